#include "cluster/json_spans.hpp"

#include <cstring>

namespace schedhost::cluster {
namespace {

constexpr std::size_t kBad = std::string_view::npos;

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t skip_space(std::string_view t, std::size_t i) {
  while (i < t.size() && is_space(t[i]))
    ++i;
  return i;
}

// t[i] is '"': the position past the closing quote.
std::size_t string_end(std::string_view t, std::size_t i) {
  for (++i; i < t.size(); ++i) {
    // Jump to the next quote or backslash: most of a node's text is plain string content.
    const void* q = std::memchr(t.data() + i, '"', t.size() - i);
    const std::size_t quote = q == nullptr ? t.size() : static_cast<const char*>(q) - t.data();
    const void* b = std::memchr(t.data() + i, '\\', quote - i);
    if (b == nullptr) return quote == t.size() ? kBad : quote + 1;
    i = static_cast<const char*>(b) - t.data() + 1;  // skip the escaped character
  }
  return kBad;
}

// How many levels of containers below a scanned value ContainerEnds records: enough for a
// request's Nodes (the value scanned first, 0), their items (1) and each node (2).
constexpr int kRecordedDepth = 2;

}  // namespace

std::size_t value_end(std::string_view t, std::size_t i, ContainerEnds* ends) {
  if (i >= t.size()) return kBad;
  const char c = t[i];
  if (c == '"') return string_end(t, i);
  if (c == '{' || c == '[') {
    if (ends != nullptr) {
      if (const char* end = ends->find(t.data() + i)) return end - t.data();
    }
    std::vector<std::size_t> opens;  // the open containers at recorded depths
    int depth = 0;
    for (std::size_t j = i; j < t.size(); ++j) {
      const char d = t[j];
      if (d == '"') {
        j = string_end(t, j);
        if (j == kBad) return kBad;
        --j;
      } else if (d == '{' || d == '[') {
        if (ends != nullptr && depth <= kRecordedDepth) opens.push_back(j);
        ++depth;
      } else if (d == '}' || d == ']') {
        --depth;
        if (ends != nullptr && depth <= kRecordedDepth) {
          ends->record(t.data() + opens.back(), t.data() + j + 1);
          opens.pop_back();
        }
        if (depth == 0) return j + 1;
      }
    }
    return kBad;
  }
  std::size_t j = i;
  while (j < t.size() && !is_space(t[j]) && t[j] != ',' && t[j] != '}' && t[j] != ']')
    ++j;
  return j == i ? kBad : j;
}

std::string_view trimmed(std::string_view text) {
  const std::size_t begin = skip_space(text, 0);
  std::size_t end = text.size();
  while (end > begin && is_space(text[end - 1]))
    --end;
  return text.substr(begin, end - begin);
}

std::optional<std::vector<std::pair<std::string_view, std::string_view>>> object_members(
    std::string_view text, ContainerEnds* ends) {
  const std::string_view t = trimmed(text);
  if (t.size() < 2 || t.front() != '{' || t.back() != '}') return std::nullopt;
  std::vector<std::pair<std::string_view, std::string_view>> out;
  std::size_t i = skip_space(t, 1);
  if (i == t.size() - 1) return out;
  while (true) {
    if (t[i] != '"') return std::nullopt;
    const std::size_t key_end = string_end(t, i);
    if (key_end == kBad) return std::nullopt;
    const std::string_view key = t.substr(i + 1, key_end - i - 2);
    i = skip_space(t, key_end);
    if (i >= t.size() || t[i] != ':') return std::nullopt;
    i = skip_space(t, i + 1);
    const std::size_t end = value_end(t, i, ends);
    if (end == kBad) return std::nullopt;
    out.emplace_back(key, t.substr(i, end - i));
    i = skip_space(t, end);
    if (i == t.size() - 1) return out;
    if (t[i] != ',') return std::nullopt;
    i = skip_space(t, i + 1);
  }
}

std::optional<std::vector<std::string_view>> array_elements(std::string_view text,
                                                            ContainerEnds* ends) {
  const std::string_view t = trimmed(text);
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') return std::nullopt;
  std::vector<std::string_view> out;
  std::size_t i = skip_space(t, 1);
  if (i == t.size() - 1) return out;
  while (true) {
    const std::size_t end = value_end(t, i, ends);
    if (end == kBad) return std::nullopt;
    out.push_back(t.substr(i, end - i));
    i = skip_space(t, end);
    if (i == t.size() - 1) return out;
    if (t[i] != ',') return std::nullopt;
    i = skip_space(t, i + 1);
  }
}

}  // namespace schedhost::cluster
