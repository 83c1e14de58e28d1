#include "cluster/json_pointer_token.hpp"

#include <algorithm>

namespace schedhost::cluster {

bool take_pointer_token(std::string_view& pointer, std::string_view& token) {
  if (pointer.empty() || pointer.front() != '/') return false;
  pointer.remove_prefix(1);
  const std::size_t end = std::min(pointer.find('/'), pointer.size());
  token = pointer.substr(0, end);
  pointer.remove_prefix(end);
  return true;
}

void append_pointer_token(std::string& out, std::string_view key) {
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

bool unescape_pointer_token(std::string_view token, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '~') {
      out += token[i];
      continue;
    }
    if (i + 1 == token.size() || (token[i + 1] != '0' && token[i + 1] != '1')) return false;
    out += token[++i] == '0' ? '~' : '/';
  }
  return true;
}

bool pointer_array_index(std::string_view token, std::size_t& index) {
  if (token.empty() || token.size() > 18 || (token.size() > 1 && token.front() == '0')) {
    return false;
  }
  index = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

}  // namespace schedhost::cluster
