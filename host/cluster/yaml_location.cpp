#include "cluster/yaml_location.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

// Unescapes one RFC 6901 token ("~1" -> "/", "~0" -> "~").
std::string unescape_token(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// The index a sequence token names, or nullopt ("01" and overlong numbers are no index).
std::optional<size_t> index_token(const std::string& token) {
  if (token.empty() || token.size() > 9) return std::nullopt;
  if (!std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return static_cast<size_t>(std::stoul(token));
}

}  // namespace

std::string mark_location(std::string_view file, const YAML::Mark& mark) {
  if (mark.is_null()) return source_location(file);
  return source_location(file, mark.line + 1, mark.column + 1);
}

YAML::Mark locate(const YAML::Node& node, std::string_view pointer) {
  if (pointer.empty() || pointer.front() != '/') return node.Mark();
  pointer.remove_prefix(1);
  size_t end = std::min(pointer.find('/'), pointer.size());
  std::string token = unescape_token(pointer.substr(0, end));
  std::string_view rest = pointer.substr(end);
  if (node.IsMap()) {
    for (const auto& entry : node) {
      if (entry.first.IsScalar() && entry.first.Scalar() == token) {
        return entry.second.IsNull() ? entry.first.Mark() : locate(entry.second, rest);
      }
    }
  } else if (node.IsSequence()) {
    std::optional<size_t> index = index_token(token);
    if (index && *index < node.size()) return locate(node[*index], rest);
  }
  return node.Mark();
}

YAML::Mark locate_duplicate_key(const YAML::Node& node, std::string_view pointer,
                                std::string_view key) {
  // reset() rebinds a handle; assigning would rewrite the tree.
  YAML::Node current;
  current.reset(node);
  std::string_view rest = pointer;
  while (!rest.empty() && rest.front() == '/') {
    rest.remove_prefix(1);
    size_t end = std::min(rest.find('/'), rest.size());
    std::string token = unescape_token(rest.substr(0, end));
    rest.remove_prefix(end);
    YAML::Node next;
    bool found = false;
    if (current.IsMap()) {
      for (const auto& entry : current) {
        if (entry.first.IsScalar() && entry.first.Scalar() == token) {
          next.reset(entry.second);
          found = true;
          break;
        }
      }
    } else if (current.IsSequence()) {
      std::optional<size_t> index = index_token(token);
      if (index && *index < current.size()) {
        const YAML::Node& sequence = current;  // const: operator[] must not insert
        next.reset(sequence[*index]);
        found = true;
      }
    }
    if (!found) return current.Mark();
    current.reset(next);
  }
  if (!current.IsMap()) return current.Mark();
  bool seen = false;
  for (const auto& entry : current) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) {
      if (seen) return entry.first.Mark();
      seen = true;
    }
  }
  return current.Mark();
}

}  // namespace schedhost::cluster
