// Reading a field out of compact JSON text without building a tree: what serve's Pods and Nodes
// keep instead of nlohmann trees (a fifth of the memory), read by plugins through pointers.
#pragma once

#include <optional>
#include <string_view>

#include "cluster/json_spans.hpp"

namespace schedhost::cluster {

// The text of the value an RFC 6901 pointer names ("" = the whole text), as a view into
// `compact`, or nullopt when the pointer is malformed or names nothing. `compact` is JSON as
// nlohmann's dump() writes it (no whitespace, keys unique): the view is then exactly the dump()
// of that value, as JsonPointerCache::get gives it from the tree. Text that is not JSON gives
// nullopt or some view into it, never a read outside it. Any thread.
// ends, when given, holds where containers of `compact` end, from earlier lookups in the same
// text: the members they hold are skipped without scanning them again, and those this lookup
// scans are added.
std::optional<std::string_view> compact_json_at(std::string_view compact, std::string_view pointer,
                                                ContainerEnds* ends = nullptr);

}  // namespace schedhost::cluster
