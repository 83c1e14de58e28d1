// Where libyaml and yaml-cpp 0.7 read the same YAML text differently, so that the libyaml
// reader (yaml_json_reader.hpp) can step aside before its result could differ. Each rule below
// was found by reading random texts both ways (tests/yaml_reader); a rule may refuse more than
// it must, which only costs speed.
#pragma once

#include <cstddef>
#include <string_view>

namespace schedhost::cluster::yaml_dialect {

// Bytes anywhere in the text, its leading byte order mark removed, that the two read
// differently: a lone CR, NEL, LS or PS (line breaks to libyaml only), a tab starting a line
// (refused by yaml-cpp where it looks for indentation, skipped by libyaml), a byte order mark
// (skipped by libyaml at the start of any line), the escapes \N \_ \L \P (written as Latin-1 by
// yaml-cpp), a line starting with "..." (the two count the documents around it differently), a '?'
// that may be an explicit key (after a blank, a line break, '{', '[' or ','; yaml-cpp refuses or
// misreads several such keys), and a UTF-16 byte order mark (libyaml reads UTF-16, the yaml-cpp
// path refuses it).
bool has_divergent_bytes(std::string_view text);

// A resolved tag both read alike: "!", "!name" or "tag:yaml.org,2002:name", name in
// [A-Za-z0-9_-] (yaml-cpp scans other characters differently and decodes no %XX escape).
bool is_common_tag(std::string_view tag);

// The node properties at the start of `at`, an anchor if `has_anchor` and a tag if `has_tag`
// (in either order, on one line), each written as both read it: an anchor of [A-Za-z0-9_-] and
// a tag "!", "!name" or "!!name", each followed by a blank, a line break or the end (yaml-cpp
// reads "&a:b" as one name, libyaml as "a" then ":b").
bool properties_read_alike(std::string_view at, bool has_anchor, bool has_tag);

// An alias at the start of `at` ("*name") that ends where both end it: a blank, a line break,
// the end, or in a flow collection ',', ']' or '}'.
bool alias_reads_alike(std::string_view at, bool in_flow);

// A literal block scalar header at the start of `at` ("|", "|-", "|+"): yaml-cpp measures an
// explicit indentation indicator ("|2") from elsewhere than libyaml does.
bool literal_header_reads_alike(std::string_view at);

// A plain scalar inside a flow collection, of characters that neither parser treats specially
// there (letters, digits, non-ASCII, and " -._/+="): the two disagree on '?', '&', ':' and more.
bool flow_plain_scalar_reads_alike(std::string_view value);

// Byte offsets of libyaml's marks, which count characters. Marks are asked for in increasing
// order, so the walk through the text is linear overall (and skipped for ASCII text).
class SourceText {
 public:
  explicit SourceText(std::string_view text);

  // The text from the character at `index` on.
  std::string_view from(size_t index);
  // The column of the character at `index` as yaml-cpp counts it, in bytes from the line start.
  size_t byte_column(size_t index, size_t character_column);
  // Whether only blanks come before the character at `index` on its line.
  bool starts_line(size_t index);

 private:
  size_t offset(size_t index);

  std::string_view text_;
  bool ascii_;
  size_t index_ = 0;   // a character index...
  size_t offset_ = 0;  // ...and its byte offset
};

}  // namespace schedhost::cluster::yaml_dialect
