// Finding the members of a JSON object and the elements of a JSON array as spans of the text,
// without building them: an extender request's thousands of Node objects are then read only when
// they are new (extender/node_object_cache.hpp), and serve's objects kept as text are read by
// pointer (cluster/compact_json.hpp). Only the structure is checked (strings, brackets, commas,
// colons); each span is parsed (and so validated) by whoever uses it.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace schedhost::cluster {

// Where the objects and arrays met while scanning a text end, down to a few levels below the
// scanned value, so that splitting one of them afterwards is a lookup rather than a second scan
// of its bytes: a 5000-node request's Nodes, then its items, then each node, cost one scan, not
// three. Keyed by address: valid for one text, which must outlive it.
class ContainerEnds {
 public:
  void record(const char* open, const char* past_close) { ends_[open] = past_close; }
  // Past the close of the container opening at `open`, or nullptr when it was not recorded.
  const char* find(const char* open) const {
    auto it = ends_.find(open);
    return it == ends_.end() ? nullptr : it->second;
  }
  // Forgets every end, to be used for another text.
  void clear() { ends_.clear(); }

 private:
  std::unordered_map<const char*, const char*> ends_;
};

// The members of the object that is all of text (surrounding whitespace allowed): each key as
// written between its quotes (escapes left as they are) and its value's text. nullopt when text
// is not an object of that shape.
// ends, when given, is read and filled.
std::optional<std::vector<std::pair<std::string_view, std::string_view>>> object_members(
    std::string_view text, ContainerEnds* ends = nullptr);

// The elements of the array that is all of text, each value's text. nullopt when text is not an
// array of that shape.
std::optional<std::vector<std::string_view>> array_elements(std::string_view text,
                                                            ContainerEnds* ends = nullptr);

// The position just past the value that starts at text[at] (no whitespace before it), or npos
// when text ends before it does or no value starts there. ends, when given, is read and filled.
std::size_t value_end(std::string_view text, std::size_t at, ContainerEnds* ends = nullptr);

// text without the whitespace around it.
std::string_view trimmed(std::string_view text);

}  // namespace schedhost::cluster
