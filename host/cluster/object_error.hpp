// A field of a Pod or Node object that the model cannot accept.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace schedhost::cluster {

// Thrown while building a Pod or Node. what() is "<field path> <problem>: <what to do>", e.g.
// `spec.containers[0].resources.requests.cpu "abc" is not a valid quantity: use ...`; pointer()
// is the RFC 6901 pointer of that field inside the object, so a file loader can turn it into a
// line and column.
class ObjectError : public std::runtime_error {
 public:
  ObjectError(std::string pointer, const std::string& message)
      : std::runtime_error(message), pointer_(std::move(pointer)) {}
  const std::string& pointer() const { return pointer_; }

 private:
  std::string pointer_;
};

}  // namespace schedhost::cluster
