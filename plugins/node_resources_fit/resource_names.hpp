// Kubernetes resource-name rules (k8s.io/apimachinery's IsQualifiedName, core/v1/helper's
// IsExtendedResourceName) with upstream's messages. Plain C++ with no SDK dependency: the host
// checks an extender's managedResources with the same rules NodeResourcesFit applies to its args.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost_noderesources {

inline bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
inline bool is_lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Go's RegexError.
inline std::string regex_error(const std::string& msg, const std::string& fmt,
                               const std::vector<std::string>& examples) {
  if (examples.empty()) return msg + " (regex used for validation is '" + fmt + "')";
  std::string out = msg + " (e.g. ";
  for (std::size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + examples[i] + "', ";
  }
  out += "regex used for validation is '" + fmt + "')";
  return out;
}

constexpr const char* kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr const char* kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr const char* kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr const char* kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
inline bool matches_qualified_name(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
inline bool matches_dns1123_subdomain(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || !is_lower_alnum(label.front()) || !is_lower_alnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!is_lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// k8s.io/apimachinery/pkg/util/validation.IsQualifiedName: its error messages, empty when valid.
inline std::vector<std::string> qualified_name_errors(std::string_view value) {
  std::vector<std::string> errs;
  const std::vector<std::string> examples = {"MyName", "my.name", "123-abc"};
  std::string_view name;
  const std::size_t slashes = static_cast<std::size_t>(std::count(value.begin(), value.end(), '/'));
  if (slashes == 0) {
    name = value;
  } else if (slashes == 1) {
    const std::size_t slash = value.find('/');
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.emplace_back("prefix part must be no more than 253 characters");
      if (!matches_dns1123_subdomain(prefix)) {
        errs.push_back("prefix part " +
                       regex_error(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
      }
    }
  } else {
    errs.push_back("a qualified name " +
                   regex_error(kQualifiedNameErrMsg, kQualifiedNameFmt, examples) +
                   " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.emplace_back("name part must be no more than 63 characters");
  }
  if (!matches_qualified_name(name)) {
    errs.push_back("name part " + regex_error(kQualifiedNameErrMsg, kQualifiedNameFmt, examples));
  }
  return errs;
}

inline bool is_prefixed_native_resource(std::string_view name) {
  return name.find("kubernetes.io/") != std::string_view::npos;
}
inline bool is_native_resource(std::string_view name) {
  return name.find('/') == std::string_view::npos || is_prefixed_native_resource(name);
}
inline bool is_extended_resource_name(std::string_view name) {
  if (is_native_resource(name) || name.rfind("requests.", 0) == 0) return false;
  return qualified_name_errors("requests." + std::string(name)).empty();
}
}  // namespace schedhost_noderesources
