#include "cluster/premade_objects.hpp"

#include <utility>

#include "cluster/pod_creation.hpp"

namespace schedhost::cluster {
namespace {

// The kind add_document would give the value: its own "kind" when that is a string, else the
// list's implied one.
std::string kind_of(const nlohmann::json& value, const std::string& implied) {
  auto it = value.find("kind");
  if (it == value.end() || it->is_null()) return implied;
  return it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string prepare_pod_object(nlohmann::json& object) {
  std::string ns = "default";
  if (auto metadata = object.find("metadata"); metadata != object.end() && metadata->is_object()) {
    if (auto value = metadata->find("namespace");
        value != metadata->end() && value->is_string() && !value->get<std::string>().empty()) {
      ns = value->get<std::string>();
    }
  }
  merge_affinity_label_keys(object);
  return ns;
}

PremadeObjects::~PremadeObjects() {
  next_.store(items_.size(), std::memory_order_relaxed);
  if (helper_.joinable()) helper_.join();
}

void PremadeObjects::start(const std::vector<nlohmann::json*>& documents) {
  for (nlohmann::json* document : documents) {
    if (!document->is_object()) continue;
    const std::string kind = kind_of(*document, "");
    auto items = document->find("items");
    const bool typed_list = kind.size() > 4 && kind.ends_with("List") && items != document->end();
    if (kind == "List" || typed_list) {
      if (items == document->end() || !items->is_array()) continue;
      const std::string implied = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
      for (nlohmann::json& item : *items)
        consider(item, implied);
    } else {
      consider(*document, "");
    }
  }
  made_.resize(items_.size());
  // One Pod takes a few microseconds: below a few hundred objects a thread is not worth it.
  if (items_.size() >= 256) helper_ = std::thread([this] { make_some(); });
}

void PremadeObjects::consider(nlohmann::json& item, const std::string& implied_kind) {
  if (!item.is_object()) return;
  const std::string kind = kind_of(item, implied_kind);
  if (kind != "Pod" && kind != "Node") return;
  index_.emplace(&item, items_.size());
  items_.push_back({&item, kind == "Pod"});
}

void PremadeObjects::make_some() {
  for (;;) {
    const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= items_.size()) return;
    Made& made = made_[i];
    // Nothing may escape this thread (it would end the process): whatever is thrown is kept,
    // for the file-order pass to rethrow at this object's place.
    try {
      auto tree = std::make_shared<nlohmann::json>(std::move(*items_[i].source));
      made.tree = tree;
      if (items_[i].pod) {
        made.pod_namespace = prepare_pod_object(*tree);
        made.pod = std::make_shared<const Pod>(std::move(tree));
      } else {
        made.node = std::make_shared<const Node>(std::move(tree));
      }
    } catch (...) {
      made.error = std::current_exception();
    }
  }
}

void PremadeObjects::finish() {
  make_some();
  if (helper_.joinable()) helper_.join();
}

const PremadeObjects::Made* PremadeObjects::find(const nlohmann::json* item) const {
  auto it = index_.find(item);
  return it == index_.end() ? nullptr : &made_[it->second];
}

}  // namespace schedhost::cluster
