// An object's JSON tree shared with the object it was copied from, with one string field set on
// top when the tree is first read.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace schedhost::cluster {

// Pod::bound_to and nominated_to make a Pod that differs from its source in one field. Copying
// the source's whole tree for it was 3 % of a 5000-node replay, and most bound pods are never
// read as JSON; the copy is now made, once, by the first reader. [any thread]
class PatchedJson {
 public:
  explicit PatchedJson(std::shared_ptr<const nlohmann::json> tree);
  // A copy shares the tree and the patch, and makes its own patched tree when first read.
  // Assigning to an object other threads may be reading is a race, as for any object.
  PatchedJson(const PatchedJson& other) : base_(other.base_), patch_(other.patch_) {}
  PatchedJson& operator=(const PatchedJson& other);

  // The tree with the patch applied (the shared tree itself when there is none). The reference
  // lives as long as this object.
  const nlohmann::json& get() const;
  // A tree equal to get() with /object/field set to value; the patch of this one (if any) is
  // applied first, so patches accumulate.
  PatchedJson with(std::string object, std::string field, std::string value) const;

 private:
  struct Patch {
    std::string object;  // "spec", "status"
    std::string field;   // "nodeName"
    std::string value;
  };
  std::shared_ptr<const nlohmann::json> base_;                   // never null
  std::shared_ptr<const Patch> patch_;                           // null: get() is *base_
  mutable std::mutex mutex_;                                     // makes patched_ once
  mutable std::unique_ptr<const nlohmann::json> owned_;          // the patched tree, once made
  mutable std::atomic<const nlohmann::json*> patched_{nullptr};  // owned_, once complete
};

}  // namespace schedhost::cluster
