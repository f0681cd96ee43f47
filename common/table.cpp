#include "labkit/table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace labkit {

Table::Table(std::string title, std::vector<std::string> headers)
    : title_(std::move(title)), headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
    cells.resize(headers_.size());
    rows_.push_back(std::move(cells));
}

namespace {
// Display width of a UTF-8 string: count code points, not bytes (tables hold "×" and "—").
std::size_t display_width(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}
std::string pad(const std::string& s, std::size_t width, bool right) {
    const std::string fill(width - std::min(width, display_width(s)), ' ');
    return right ? fill + s : s + fill;
}
bool looks_numeric(const std::string& s) {
    return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || (s[0] == '-' && s.size() > 1));
}
}  // namespace

std::string Table::terminal() const {
    std::vector<std::size_t> widths(headers_.size());
    for (std::size_t c = 0; c < headers_.size(); ++c) {
        widths[c] = display_width(headers_[c]);
        for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
    }
    std::ostringstream out;
    out << title_ << "\n";
    for (std::size_t c = 0; c < headers_.size(); ++c) out << (c ? "  " : "") << pad(headers_[c], widths[c], c > 0);
    out << "\n";
    for (std::size_t c = 0; c < headers_.size(); ++c) out << (c ? "  " : "") << std::string(widths[c], '-');
    out << "\n";
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c < row.size(); ++c)
            out << (c ? "  " : "") << pad(row[c], widths[c], c > 0 && looks_numeric(row[c]));
        out << "\n";
    }
    return out.str();
}

std::string Table::markdown() const {
    std::ostringstream out;
    out << "**" << title_ << "**\n\n|";
    for (const auto& h : headers_) out << " " << h << " |";
    out << "\n|";
    for (std::size_t c = 0; c < headers_.size(); ++c) out << (c ? " ---: |" : " --- |");
    out << "\n";
    for (const auto& row : rows_) {
        out << "|";
        for (const auto& cell : row) out << " " << cell << " |";
        out << "\n";
    }
    return out.str();
}

std::string Table::csv() const {
    auto quote = [](const std::string& s) {
        if (s.find_first_of(",\"\n") == std::string::npos) return s;
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    std::ostringstream out;
    for (std::size_t c = 0; c < headers_.size(); ++c) out << (c ? "," : "") << quote(headers_[c]);
    out << "\n";
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << quote(row[c]);
        out << "\n";
    }
    return out.str();
}

std::string format_fixed(double value, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    return buf;
}

Progress::Progress(std::string what, int total) : what_(std::move(what)), total_(total), tty_(isatty(STDERR_FILENO)) {}

void Progress::step(const std::string& label) {
    ++count_;
    print(label);
}

void Progress::detail(const std::string& label) {
    constexpr auto kPipedInterval = std::chrono::seconds(5);
    if (!tty_ && std::chrono::steady_clock::now() - last_line_ < kPipedInterval) return;
    print(label);
}

void Progress::print(const std::string& label) {
    last_line_ = std::chrono::steady_clock::now();
    if (tty_)
        std::fprintf(stderr, "\r\033[K%s [%d/%d] %s", what_.c_str(), count_, total_, label.c_str());
    else
        std::fprintf(stderr, "%s [%d/%d] %s\n", what_.c_str(), count_, total_, label.c_str());
    std::fflush(stderr);
}

void Progress::done() {
    if (tty_ && count_ > 0) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
}

}  // namespace labkit
