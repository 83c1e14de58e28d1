// The JSON a Pod or Node keeps of the object it was built from: the tree itself, shared with
// whoever made it (a replay's cluster), or only its compact text (serve's informers: about a
// fifth of a tree's memory), with one string field set on top by bound_to / nominated_to.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cluster/json_pointer_cache.hpp"

namespace schedhost::cluster {

// Pod::bound_to and nominated_to make a Pod that differs from its source in one field. Copying
// the source's whole tree for it was 3 % of a 5000-node replay, and most bound pods are never
// read as JSON; the patched tree is made, once, by the first reader. In text form a tree is
// parsed only for a reader that asks for the whole tree; pointers are read from the text.
// [any thread]
class KeptJson {
 public:
  // Keeps (shares) the tree; null keeps an empty one.
  explicit KeptJson(std::shared_ptr<const nlohmann::json> tree);
  // Keeps only compact text, as dump() writes it (never null).
  static KeptJson text(std::shared_ptr<const std::string> compact);
  // A copy shares the tree or text and the patch, and makes its own patched tree when first read.
  // Assigning to an object other threads may be reading is a race, as for any object.
  KeptJson(const KeptJson& other) : base_(other.base_), text_(other.text_), patch_(other.patch_) {}
  KeptJson& operator=(const KeptJson& other);

  // The tree with the patch applied. Made once and kept when there is a patch or only text: a
  // long-lived reader of serve's objects should prefer tree(). The reference lives as long as
  // this object.
  const nlohmann::json& get() const;
  // The same tree, shared: kept text is parsed anew on each call (and not kept).
  std::shared_ptr<const nlohmann::json> tree() const;
  // Compact JSON of the value at an RFC 6901 pointer ("" = everything), nullopt when it names
  // nothing: read from the text when kept as text and the patch is not on the way, otherwise
  // dumped from get() into `cache`. The view lives as long as this object and `cache`. A thread's
  // reads of one text in a row skip what its earlier reads scanned: the thread keeps where that
  // text's objects and arrays end, and the text itself, until it reads another one.
  std::optional<std::string_view> at(std::string_view pointer, const JsonPointerCache& cache) const;
  // A KeptJson equal to get() with /object/field set to value; the patch of this one (if any) is
  // applied first, so patches accumulate.
  KeptJson with(std::string object, std::string field, std::string value) const;

 private:
  struct Patch {
    std::string object;  // "spec", "status"
    std::string field;   // "nodeName"
    std::string value;
    std::string pointer;  // "/spec/nodeName": plain names, nothing to escape
  };
  KeptJson() = default;
  // The unpatched tree: the kept one, or parsed from the text.
  std::shared_ptr<const nlohmann::json> base_tree() const;
  // Whether the value at pointer contains, is, or is inside the patched field.
  bool on_patch_path(std::string_view pointer) const;

  std::shared_ptr<const nlohmann::json> base_;          // the tree; null when kept as text
  std::shared_ptr<const std::string> text_;             // compact text; null when kept as tree
  std::shared_ptr<const Patch> patch_;                  // null: get() is the base itself
  mutable std::mutex mutex_;                            // makes made_ once
  mutable std::shared_ptr<const nlohmann::json> made_;  // the tree get() made, once made
  mutable std::atomic<const nlohmann::json*> ready_{nullptr};  // made_, once complete
};

}  // namespace schedhost::cluster
