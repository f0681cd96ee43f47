#include "labkit/table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>
#include <string_view>

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
// A cell as literal text in Markdown (GitHub's, Gradescope's): cells carry student text (an
// exception message), which must not become bold, a link, an image, HTML or a new column.
std::string markdown_cell(const std::string& s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~':
                out += '\\';
                out += c;
                break;
            default: out += c;
        }
    }
    return out;
}
// A cell as text in a spreadsheet: quoted where CSV needs it, and a cell a spreadsheet would
// take for a formula (=, +, -, @, tab, CR first; not a number) starts with a quote mark instead.
std::string csv_cell(const std::string& s) {
    std::string text = s;
    if (!text.empty() && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos &&
        !(looks_numeric(text) && text.find_first_not_of("-+.0123456789eE") == std::string::npos))
        text.insert(0, 1, '\'');
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string q = "\"";
    for (const char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
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
        for (const auto& cell : row) out << " " << markdown_cell(cell) << " |";
        out << "\n";
    }
    return out.str();
}

std::string Table::csv() const {
    std::ostringstream out;
    for (std::size_t c = 0; c < headers_.size(); ++c) out << (c ? "," : "") << csv_cell(headers_[c]);
    out << "\n";
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_cell(row[c]);
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
