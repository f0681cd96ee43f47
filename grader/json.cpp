#include "json.hpp"

#include <cmath>
#include <cstdio>

namespace grader {

Json& Json::set(const std::string& key, Json value) {
    auto& obj = std::get<Object>(value_);
    for (auto& [k, v] : obj)
        if (k == key) {
            v = std::move(value);
            return *this;
        }
    obj.emplace_back(key, std::move(value));
    return *this;
}

Json& Json::push(Json value) {
    std::get<Array>(value_).push_back(std::move(value));
    return *this;
}

namespace {
void escape(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}
}  // namespace

void Json::dump_to(std::string& out, int indent, int depth) const {
    std::string pad_in, pad_out;  // a newline and the indentation inside and after a container
    if (indent) {
        pad_in.assign((depth + 1) * indent + 1, ' ');
        pad_out.assign(depth * indent + 1, ' ');
        pad_in[0] = pad_out[0] = '\n';
    }
    if (std::holds_alternative<std::nullptr_t>(value_)) {
        out += "null";
    } else if (auto b = std::get_if<bool>(&value_)) {
        out += *b ? "true" : "false";
    } else if (auto d = std::get_if<double>(&value_)) {
        if (!std::isfinite(*d)) {
            out += "null";  // JSON has no NaN or infinity
        } else {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.10g", *d);
            out += buf;
        }
    } else if (auto s = std::get_if<std::string>(&value_)) {
        escape(out, *s);
    } else if (auto a = std::get_if<Array>(&value_)) {
        out += '[';
        for (std::size_t i = 0; i < a->size(); ++i) {
            if (i) out += ',';
            out += pad_in;
            (*a)[i].dump_to(out, indent, depth + 1);
        }
        if (!a->empty()) out += pad_out;
        out += ']';
    } else {
        const auto& o = std::get<Object>(value_);
        out += '{';
        for (std::size_t i = 0; i < o.size(); ++i) {
            if (i) out += ',';
            out += pad_in;
            escape(out, o[i].first);
            out += indent ? ": " : ":";
            o[i].second.dump_to(out, indent, depth + 1);
        }
        if (!o.empty()) out += pad_out;
        out += '}';
    }
}

std::string Json::dump(int indent) const {
    std::string out;
    dump_to(out, indent, 0);
    return out + (indent ? "\n" : "");
}

}  // namespace grader
