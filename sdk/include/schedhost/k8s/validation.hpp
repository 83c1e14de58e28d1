// schedhost/k8s/validation.hpp - Kubernetes name and label validation, and field errors worded
// as upstream's (k8s.io/apimachinery util/validation and util/validation/field).
//
//   is_qualified_name("example.com/MyName")   -> {}          (label keys)
//   is_valid_label_value("bad value")         -> {"a valid label must be ..."}
//   FieldError::invalid("key", "\"a b\"", "...").to_string()
//       -> key: Invalid value: "a b": ...
//
// Header-only C++17; depends on nothing but the standard library.
#pragma once

#include <cctype>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::k8s {

// A field path as upstream prints it: "spec.affinity.nodeSelectorTerms[0].matchFields[1]".
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string path) : path_(std::move(path)) {}

  FieldPath child(std::string_view name) const {
    return FieldPath(path_.empty() ? std::string(name) : path_ + "." + std::string(name));
  }
  FieldPath index(std::size_t i) const { return FieldPath(path_ + "[" + std::to_string(i) + "]"); }
  FieldPath key(std::string_view k) const { return FieldPath(path_ + "[" + std::string(k) + "]"); }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// Go's %q (strconv.Quote) of a string: quotes, backslashes and control characters escaped as Go
// escapes them, UTF-8 kept.
inline std::string go_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
      case '\\':
        out += '\\';
        out += c;
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out += kHex[u >> 4];
          out += kHex[u & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

// Go's %#v of a []string: []string{"a", "b"} ([]string(nil) when empty, as a missing list is).
inline std::string go_string_slice(const std::vector<std::string>& values) {
  if (values.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += go_quote(values[i]);
  }
  return out + "}";
}

// One field.Error: "<field>: <type>: <value>: <detail>".
struct FieldError {
  std::string field;
  std::string type;   // "Invalid value", "Unsupported value", "Required value", ...
  std::string value;  // already rendered as upstream does (quoted string, Go slice, number)
  std::string detail;

  static FieldError invalid(const FieldPath& path, std::string value, std::string detail) {
    return {path.str(), "Invalid value", std::move(value), std::move(detail)};
  }
  static FieldError not_supported(const FieldPath& path, std::string_view value,
                                  const std::vector<std::string_view>& supported) {
    std::string detail = "supported values: ";
    for (std::size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += go_quote(supported[i]);
    }
    return {path.str(), "Unsupported value", go_quote(value), std::move(detail)};
  }

  std::string to_string() const {
    std::string s = field.empty() ? std::string() : field + ": ";
    s += type;
    if (!value.empty()) s += ": " + value;
    if (!detail.empty()) s += ": " + detail;
    return s;
  }
};

// upstream's utilerrors.NewAggregate(...).Error(): identical messages once; one message as is,
// several as "[e1, e2]".
inline std::string aggregate(const std::vector<FieldError>& errors) {
  std::vector<std::string> seen;
  for (const FieldError& e : errors) {
    std::string msg = e.to_string();
    bool duplicate = false;
    for (const std::string& s : seen)
      duplicate = duplicate || s == msg;
    if (!duplicate) seen.push_back(std::move(msg));
  }
  if (seen.size() == 1) return seen.front();
  std::string out = "[";
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) out += ", ";
    out += seen[i];
  }
  return out + "]";
}

// Thrown by the parsers of this library: what() is the aggregated, upstream-worded message.
class ParseError : public std::invalid_argument {
 public:
  explicit ParseError(std::vector<FieldError> errors)
      : std::invalid_argument(aggregate(errors)), errors_(std::move(errors)) {}
  const std::vector<FieldError>& errors() const { return errors_; }

 private:
  std::vector<FieldError> errors_;
};

namespace detail {

inline bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
inline bool matches_qualified_name(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (const char c : s) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
inline bool matches_dns1123_subdomain(std::string_view s) {
  if (s.empty()) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty()) return false;
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (const char c : label) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

inline std::string regex_error(std::string_view msg, std::string_view fmt,
                               const std::vector<std::string_view>& examples) {
  std::string out(msg);
  out += " (e.g. ";
  for (std::size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + std::string(examples[i]) + "', ";
  }
  out += "regex used for validation is '" + std::string(fmt) + "')";
  return out;
}

inline std::string max_len_error(std::size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

}  // namespace detail

// upstream validation.IsDNS1123Subdomain: the problems, none when valid.
inline std::vector<std::string> is_dns1123_subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(detail::max_len_error(253));
  if (!detail::matches_dns1123_subdomain(value)) {
    errs.push_back(detail::regex_error(detail::kDns1123SubdomainErrMsg,
                                       detail::kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

// upstream validation.IsQualifiedName (label keys): the problems, none when valid.
inline std::vector<std::string> is_qualified_name(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  const std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " +
                     detail::regex_error(detail::kQualifiedNameErrMsg, detail::kQualifiedNameFmt,
                                         {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : is_dns1123_subdomain(prefix))
        errs.push_back("prefix part " + msg);
    }
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + detail::max_len_error(63));
  }
  if (!detail::matches_qualified_name(name)) {
    errs.push_back("name part " + detail::regex_error(detail::kQualifiedNameErrMsg,
                                                      detail::kQualifiedNameFmt,
                                                      {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

// upstream validation.IsValidLabelValue: the problems, none when valid ("" is valid).
inline std::vector<std::string> is_valid_label_value(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(detail::max_len_error(63));
  if (!value.empty() && !detail::matches_qualified_name(value)) {
    errs.push_back(detail::regex_error(detail::kLabelValueErrMsg, detail::kLabelValueFmt,
                                       {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

inline std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace schedhost::k8s
