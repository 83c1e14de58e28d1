#include "cluster/yaml_dialect.hpp"

#include <algorithm>

namespace schedhost::cluster::yaml_dialect {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool is_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_name_char);
}

bool is_blank_or_break(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Whether `at` is empty or starts with a blank or a line break.
bool ends_here(std::string_view at) {
  return at.empty() || is_blank_or_break(at.front());
}

size_t utf8_width(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

}  // namespace

bool has_divergent_bytes(std::string_view text) {
  if (!text.empty() && static_cast<unsigned char>(text[0]) >= 0xFE) return true;
  const size_t size = text.size();
  const auto byte_at = [&](size_t i) {
    return i < size ? static_cast<unsigned char>(text[i]) : 0u;
  };
  for (size_t i = 0; i < size; ++i) {
    const unsigned byte = byte_at(i);
    if (byte == '\r' && byte_at(i + 1) != '\n') return true;
    if (byte == '\t' && (i == 0 || text[i - 1] == '\n')) return true;
    if (byte == '.' && (i == 0 || text[i - 1] == '\n') && text.substr(i, 3) == "...") return true;
    if (byte == '?' && (i == 0 || std::string_view(" \t\n{[,").find(text[i - 1]) != npos)) {
      return true;
    }
    if (byte == '\\' && i + 1 < size && std::string_view("N_LP").find(text[i + 1]) != npos) {
      return true;
    }
    if (byte == 0xC2 && byte_at(i + 1) == 0x85) return true;
    if (byte == 0xE2 && byte_at(i + 1) == 0x80 && (byte_at(i + 2) & 0xFE) == 0xA8) return true;
    if (byte == 0xEF && byte_at(i + 1) == 0xBB && byte_at(i + 2) == 0xBF) return true;
  }
  return false;
}

bool is_common_tag(std::string_view tag) {
  if (tag == "!") return true;
  if (tag.starts_with(kCoreTagPrefix)) return is_name(tag.substr(kCoreTagPrefix.size()));
  return tag.starts_with("!") && is_name(tag.substr(1));
}

bool properties_read_alike(std::string_view at, bool has_anchor, bool has_tag) {
  bool anchor = false;
  bool tag = false;
  for (;;) {
    if (!at.empty() && at.front() == '&' && !anchor) {
      anchor = true;
      size_t end = 1;
      while (end < at.size() && is_name_char(at[end]))
        ++end;
      if (end == 1) return false;
      at.remove_prefix(end);
    } else if (!at.empty() && at.front() == '!' && !tag) {
      tag = true;
      size_t end = 0;
      while (end < at.size() && !is_blank_or_break(at[end]))
        ++end;
      std::string_view token = at.substr(0, end);
      if (token != "!" && !is_name(token.substr(token.starts_with("!!") ? 2 : 1))) return false;
      at.remove_prefix(end);
    } else {
      return anchor == has_anchor && tag == has_tag;
    }
    if (!ends_here(at)) return false;
    while (!at.empty() && (at.front() == ' ' || at.front() == '\t'))
      at.remove_prefix(1);
  }
}

bool alias_reads_alike(std::string_view at, bool in_flow) {
  if (at.empty() || at.front() != '*') return false;
  size_t end = 1;
  while (end < at.size() && is_name_char(at[end]))
    ++end;
  if (end == 1) return false;
  at.remove_prefix(end);
  return ends_here(at) ||
         (in_flow && (at.front() == ',' || at.front() == ']' || at.front() == '}'));
}

bool literal_header_reads_alike(std::string_view at) {
  if (at.empty() || at.front() != '|') return false;
  at.remove_prefix(1);
  if (!at.empty() && (at.front() == '-' || at.front() == '+')) at.remove_prefix(1);
  return ends_here(at);
}

bool flow_plain_scalar_reads_alike(std::string_view value) {
  return std::all_of(value.begin(), value.end(), [](char c) {
    return is_name_char(c) || static_cast<unsigned char>(c) >= 0x80 ||
           std::string_view(" ._/+=").find(c) != npos;
  });
}

SourceText::SourceText(std::string_view text)
    : text_(text), ascii_(std::all_of(text.begin(), text.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x80;
      })) {}

std::string_view SourceText::from(size_t index) {
  return text_.substr(offset(index));
}

size_t SourceText::byte_column(size_t index, size_t character_column) {
  if (ascii_) return character_column;
  const size_t at = offset(index);
  const size_t line_start = at == 0 ? npos : text_.rfind('\n', at - 1);
  return line_start == npos ? at : at - line_start - 1;
}

bool SourceText::starts_line(size_t index) {
  const size_t at = offset(index);
  for (size_t i = at; i > 0 && text_[i - 1] != '\n'; --i) {
    if (text_[i - 1] != ' ' && text_[i - 1] != '\t') return false;
  }
  return true;
}

size_t SourceText::offset(size_t index) {
  if (ascii_) return std::min(index, text_.size());
  if (index < index_) {
    index_ = 0;
    offset_ = 0;
  }
  while (index_ < index && offset_ < text_.size()) {
    offset_ += utf8_width(static_cast<unsigned char>(text_[offset_]));
    ++index_;
  }
  return std::min(offset_, text_.size());
}

}  // namespace schedhost::cluster::yaml_dialect
