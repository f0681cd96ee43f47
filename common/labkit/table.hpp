// Tables for the terminal (aligned), for reports (Markdown) and for tools (CSV), and a progress
// line for long sweeps.
#pragma once

#include <chrono>
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
    // More about the current item. Into a pipe or a log, at most one detail line every few
    // seconds: enough to show where a long run is, not a line per case.
    void detail(const std::string& label);
    void done();

private:
    void print(const std::string& label);

    std::string what_;
    int total_;
    int count_ = 0;
    bool tty_;
    std::chrono::steady_clock::time_point last_line_{};
};

}  // namespace labkit
