// Reading YAML text straight into JSON documents with libyaml's event parser: the fast path for
// cluster files. yaml-cpp builds a tree of about 90 bytes per byte of text and scans with
// regular expressions; libyaml's events cost a tenth of that, and no tree is built.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedhost::cluster {

// A position in the text as yaml-cpp's marks give it: 0-based, the column in bytes.
struct TextMark {
  int line = 0;
  int column = 0;
};

struct YamlJsonDocument {
  // As yaml_to_json() converts the document yaml-cpp reads; null where yaml-cpp reads a null
  // document (empty, or a plain ~), which callers skip.
  nlohmann::json value;
  // Where the mappings that may be Kubernetes objects start, by JSON pointer: the document ("")
  // and, recursively, the mappings of an "items" sequence ("/items/3"). An object's position is
  // needed even when nothing is wrong (Cluster::ignored), and this saves a second parse for it.
  // A mapping with an anchor or a tag is left out (yaml-cpp then gives the position).
  std::unordered_map<std::string, TextMark> object_marks;
};

// The documents of `text` exactly as parse_yaml_documents() then yaml_to_json() make them, or
// nullopt when this reader cannot promise that: libyaml refuses the text (a syntax error, bad
// UTF-8...); it holds what libyaml and yaml-cpp read differently (directives, a folded or an
// indented literal scalar, a multi-line plain scalar, an alias as a key or into its own anchor,
// and the rest of yaml_dialect.hpp); or it holds what the yaml-cpp path refuses (a duplicate
// key, a key that is not a scalar, nesting deeper than kMaxNestingDepth, aliasing beyond the
// bound of check_yaml_expansion(), a text above kMaxYamlTextBytes). The caller then takes the
// yaml-cpp path, which gives the result or the error message it always gave. Throws nothing but
// std::bad_alloc.
std::optional<std::vector<YamlJsonDocument>> read_yaml_as_json(std::string_view text);

}  // namespace schedhost::cluster
