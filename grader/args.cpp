#include "args.hpp"

#include <fnmatch.h>

#include <cstdio>
#include <sstream>

namespace grader {

Args::Args(std::string usage, std::string description) : usage_(std::move(usage)), description_(std::move(description)) {
    option("help", "", "show this help and exit");
}

Args& Args::option(const std::string& name, const std::string& metavar, const std::string& help,
                   const std::string& default_value) {
    order_.push_back(name);
    options_[name] = {metavar, help, default_value};
    return *this;
}

bool Args::parse(int argc, char** argv) {
    for (int i = 0; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0 || arg == "--") {
            positional_.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2), value;
        const auto eq = name.find('=');
        const bool inline_value = eq != std::string::npos;
        if (inline_value) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const auto it = options_.find(name);
        if (it == options_.end()) throw UsageError("unknown option --" + name + " (see --help)");
        if (name == "help") {
            std::fputs(help().c_str(), stdout);
            return false;
        }
        if (!it->second.metavar.empty() && !inline_value) {
            if (i + 1 >= argc) throw UsageError("--" + name + " needs a value " + it->second.metavar);
            value = argv[++i];
        }
        values_[name] = value;
    }
    return true;
}

bool Args::has(const std::string& name) const { return values_.count(name) > 0; }

std::string Args::get(const std::string& name) const {
    const auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    const auto opt = options_.find(name);
    return opt == options_.end() ? "" : opt->second.default_value;
}

std::string Args::help() const {
    std::ostringstream out;
    out << "usage: " << usage_ << "\n\n" << description_ << "\n\noptions:\n";
    for (const auto& name : order_) {
        const auto& o = options_.at(name);
        std::string left = "  --" + name + (o.metavar.empty() ? "" : " " + o.metavar);
        constexpr std::size_t kHelpColumn = 28;
        left.resize(std::max(left.size() + 2, kHelpColumn), ' ');
        out << left << o.help;
        if (!o.default_value.empty()) out << " (default: " << o.default_value << ")";
        out << "\n";
    }
    return out.str();
}

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> items;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

std::vector<std::string> split_tabs(const std::string& s) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t tab; (tab = s.find('\t', start)) != std::string::npos; start = tab + 1)
        fields.push_back(s.substr(start, tab - start));
    fields.push_back(s.substr(start));
    return fields;
}

long long parse_int(const std::string& s, const std::string& what) {
    try {
        std::size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used != s.size()) throw std::invalid_argument(s);
        return v;
    } catch (const std::exception&) {
        throw UsageError(what + ": '" + s + "' is not a whole number");
    }
}

std::pair<int, int> parse_size(const std::string& s) {
    const auto x = s.find_first_of("xX");
    const long long w = parse_int(s.substr(0, x), "size");
    const long long h = x == std::string::npos ? w : parse_int(s.substr(x + 1), "size");
    if (w <= 0 || h <= 0 || w > (1 << 16) || h > (1 << 16))
        throw UsageError("size '" + s + "' must be WxH with 1 <= W, H <= 65536");
    return {static_cast<int>(w), static_cast<int>(h)};
}

bool glob_match(const std::string& pattern, const std::string& text) {
    return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

}  // namespace grader
