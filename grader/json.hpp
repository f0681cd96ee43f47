// A small JSON value for result files: enough to write what course tools read, nothing more.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace grader {

class Json {
public:
    using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order
    using Array = std::vector<Json>;

    Json() : value_(nullptr) {}
    Json(std::nullptr_t) : value_(nullptr) {}
    Json(bool b) : value_(b) {}
    Json(int v) : value_(static_cast<double>(v)) {}
    Json(long v) : value_(static_cast<double>(v)) {}
    Json(long long v) : value_(static_cast<double>(v)) {}
    Json(unsigned long v) : value_(static_cast<double>(v)) {}
    Json(unsigned long long v) : value_(static_cast<double>(v)) {}
    Json(double v) : value_(v) {}
    Json(const char* s) : value_(std::string(s)) {}
    Json(std::string s) : value_(std::move(s)) {}
    Json(std::string_view s) : value_(std::string(s)) {}
    Json(Array a) : value_(std::move(a)) {}
    Json(Object o) : value_(std::move(o)) {}

    static Json object() { return Json(Object{}); }
    static Json array() { return Json(Array{}); }

    Json& set(const std::string& key, Json value);  // objects
    Json& push(Json value);                         // arrays
    std::string dump(int indent = 2) const;

private:
    void dump_to(std::string& out, int indent, int depth) const;
    std::variant<std::nullptr_t, bool, double, std::string, Array, Object> value_;
};

}  // namespace grader
