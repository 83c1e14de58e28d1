#include "cluster/kept_json.hpp"

#include <utility>

#include "cluster/compact_json.hpp"
#include "cluster/json_spans.hpp"

namespace schedhost::cluster {

KeptJson::KeptJson(std::shared_ptr<const nlohmann::json> tree)
    : base_(tree ? std::move(tree) : std::make_shared<const nlohmann::json>()) {}

KeptJson KeptJson::text(std::shared_ptr<const std::string> compact) {
  KeptJson out;
  out.text_ = compact ? std::move(compact) : std::make_shared<const std::string>("null");
  return out;
}

KeptJson& KeptJson::operator=(const KeptJson& other) {
  if (this == &other) return *this;
  base_ = other.base_;
  text_ = other.text_;
  patch_ = other.patch_;
  ready_.store(nullptr, std::memory_order_relaxed);
  made_.reset();
  return *this;
}

std::shared_ptr<const nlohmann::json> KeptJson::base_tree() const {
  if (base_) return base_;
  // Kept text is always dump()'s own output; a parse failure would be a bug, and null is safe.
  return std::make_shared<const nlohmann::json>(
      nlohmann::json::parse(*text_, nullptr, /*allow_exceptions=*/false));
}

const nlohmann::json& KeptJson::get() const {
  if (patch_ == nullptr && base_) return *base_;
  if (const nlohmann::json* done = ready_.load(std::memory_order_acquire)) return *done;
  const std::lock_guard lock(mutex_);
  if (made_ == nullptr) made_ = tree();
  ready_.store(made_.get(), std::memory_order_release);
  return *made_;
}

std::shared_ptr<const nlohmann::json> KeptJson::tree() const {
  if (patch_ == nullptr) {
    if (base_) return base_;
  } else if (ready_.load(std::memory_order_acquire) != nullptr) {
    return made_;  // complete and never replaced while this object lives unassigned
  }
  std::shared_ptr<const nlohmann::json> base = base_tree();
  if (patch_ == nullptr) return base;
  auto patched = std::make_shared<nlohmann::json>(*base);
  (*patched)[patch_->object][patch_->field] = patch_->value;
  return patched;
}

bool KeptJson::on_patch_path(std::string_view pointer) const {
  const std::string_view path = patch_->pointer;
  if (pointer.size() <= path.size()) {
    // The field itself, or an object that holds it ("" and "/spec" for /spec/nodeName).
    return path.compare(0, pointer.size(), pointer) == 0 &&
           (pointer.size() == path.size() || path[pointer.size()] == '/');
  }
  return pointer.compare(0, path.size(), path) == 0 && pointer[path.size()] == '/';
}

namespace {

// Where the containers of the text this thread last read end. The plugins' PreFilters read a
// dozen pointers from the pod being scheduled, one after the other, and each was a walk from
// the text's start over the members before it (metadata, the containers): from its second
// lookup in a text on, a thread records those ends and later lookups skip them. A one-off read
// of a text records nothing. The memo shares the text, so no other text can take its address
// while its ends are kept.
struct TextMemo {
  std::shared_ptr<const std::string> text;
  ContainerEnds ends;
};

}  // namespace

std::optional<std::string_view> KeptJson::at(std::string_view pointer,
                                             const JsonPointerCache& cache) const {
  if (text_ && (patch_ == nullptr || !on_patch_path(pointer))) {
    thread_local TextMemo memo;
    if (memo.text != text_) {
      memo.text = text_;
      memo.ends.clear();
      return compact_json_at(*text_, pointer);
    }
    return compact_json_at(*text_, pointer, &memo.ends);
  }
  return cache.get(get(), pointer);
}

KeptJson KeptJson::with(std::string object, std::string field, std::string value) const {
  // A second patch on a patched object is rare (a nominated pod then bound): its base is the
  // first patch applied, shared from now on.
  KeptJson out = patch_ == nullptr ? *this : KeptJson(tree());
  std::string pointer = "/" + object + "/" + field;
  out.patch_ = std::make_shared<const Patch>(
      Patch{std::move(object), std::move(field), std::move(value), std::move(pointer)});
  return out;
}

}  // namespace schedhost::cluster
