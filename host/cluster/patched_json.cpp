#include "cluster/patched_json.hpp"

#include <utility>

namespace schedhost::cluster {

PatchedJson::PatchedJson(std::shared_ptr<const nlohmann::json> tree)
    : base_(tree ? std::move(tree) : std::make_shared<const nlohmann::json>()) {}

PatchedJson& PatchedJson::operator=(const PatchedJson& other) {
  if (this == &other) return *this;
  base_ = other.base_;
  patch_ = other.patch_;
  patched_.store(nullptr, std::memory_order_relaxed);
  owned_.reset();
  return *this;
}

const nlohmann::json& PatchedJson::get() const {
  if (patch_ == nullptr) return *base_;
  if (const nlohmann::json* done = patched_.load(std::memory_order_acquire)) return *done;
  const std::lock_guard lock(mutex_);
  if (owned_ == nullptr) {
    auto tree = std::make_unique<nlohmann::json>(*base_);
    (*tree)[patch_->object][patch_->field] = patch_->value;
    owned_ = std::move(tree);
    patched_.store(owned_.get(), std::memory_order_release);
  }
  return *owned_;
}

PatchedJson PatchedJson::with(std::string object, std::string field, std::string value) const {
  // A second patch on a patched tree is rare (a nominated pod then bound): its base is the
  // first patch applied, shared from now on.
  PatchedJson out(patch_ == nullptr ? base_ : std::make_shared<const nlohmann::json>(get()));
  out.patch_ =
      std::make_shared<const Patch>(Patch{std::move(object), std::move(field), std::move(value)});
  return out;
}

}  // namespace schedhost::cluster
