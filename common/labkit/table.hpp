// Tables for the terminal (aligned), for reports (Markdown) and for tools (CSV), and a progress
// line for long sweeps.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace labkit {

class Table {
public:
    Table(std::string title, std::vector<std::string> headers);
    void add_row(std::vector<std::string> cells);
    const std::string& title() const { return title_; }
    bool empty() const { return rows_.empty(); }

    std::string terminal() const;
    std::string markdown() const;
    std::string csv() const;

private:
    std::string title_;
    std::vector<std::string> headers_;
    std::vector<std::vector<std::string>> rows_;
};

std::string format_fixed(double value, int decimals);

// "[ 12/40] gpu-02-kogge-stone-s512-b8 1024x768 random": rewritten in place on a terminal,
// one line each on a pipe (so logs stay readable). Written to stderr, keeping stdout for tables.
class Progress {
public:
    Progress(std::string what, int total);
    void step(const std::string& label);    // the next item
    void detail(const std::string& label);  // more about the current item
    void done();

private:
    std::string what_;
    int total_;
    int count_ = 0;
    bool tty_;
};

}  // namespace labkit
