// A small command-line parser: named options with a value or without, positional arguments,
// and a --help text generated from the same declarations, so help and parsing never disagree.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Args {
public:
    Args(std::string usage, std::string description);
    // name without dashes; metavar empty for a switch.
    Args& option(const std::string& name, const std::string& metavar, const std::string& help,
                 const std::string& default_value = "");
    // Throws UsageError; returns false when --help was asked for (help already printed).
    bool parse(int argc, char** argv);

    bool has(const std::string& name) const;
    std::string get(const std::string& name) const;
    const std::vector<std::string>& positional() const { return positional_; }
    std::string help() const;

private:
    struct Option {
        std::string metavar, help, default_value;
    };
    std::string usage_, description_;
    std::vector<std::string> order_;
    std::map<std::string, Option> options_;
    std::map<std::string, std::string> values_;
    std::vector<std::string> positional_;
};

// "a,b,c" -> {"a","b","c"} (empty items dropped).
std::vector<std::string> split_list(const std::string& s);
// "a\tb\t\tc" -> {"a","b","","c"} (empty fields kept).
std::vector<std::string> split_tabs(const std::string& s);
// "1024x768" -> {1024, 768}; "1024" -> {1024, 1024}. Throws UsageError.
std::pair<int, int> parse_size(const std::string& s);
long long parse_int(const std::string& s, const std::string& what);
// Shell-style wildcard match (*, ?), used for --variants.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace grader
