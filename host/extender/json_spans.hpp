// Finding the members of a JSON object and the elements of a JSON array as spans of the text,
// without building them: a request's thousands of Node objects are then read only when they are
// new (extender/node_object_cache.hpp). Only the structure is checked (strings, brackets, commas,
// colons); each span is parsed (and so validated) by whoever uses it.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::extender {

// The members of the object that is all of text (surrounding whitespace allowed): each key as
// written between its quotes (escapes left as they are) and its value's text. nullopt when text
// is not an object of that shape.
std::optional<std::vector<std::pair<std::string_view, std::string_view>>> object_members(
    std::string_view text);

// The elements of the array that is all of text, each value's text. nullopt when text is not an
// array of that shape.
std::optional<std::vector<std::string_view>> array_elements(std::string_view text);

// text without the whitespace around it.
std::string_view trimmed(std::string_view text);

}  // namespace schedhost::extender
