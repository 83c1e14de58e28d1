// Objects a command leaves to the process's exit instead of freeing them.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace schedhost::cli {

// Keeps value alive until the process exits, and never destroys it: freeing a large cluster
// object by object takes longer than writing a run's whole output, and the exit returns the
// memory at once. Only for plain data (no destructor with an effect beyond memory); the objects
// stay reachable from a static, so a leak checker does not report them.
template <class T>
T& keep_until_exit(T&& value) {
  static auto* kept = new std::vector<std::shared_ptr<void>>();
  auto owned = std::make_shared<T>(std::forward<T>(value));
  T& ref = *owned;
  kept->push_back(std::move(owned));
  return ref;
}

}  // namespace schedhost::cli
