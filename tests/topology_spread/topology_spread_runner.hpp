// Drives PodTopologySpread's hooks the way the framework does: PreFilter -> (AddPod/RemovePod on
// a copy of the state) -> Filter, and PreScore over the feasible nodes -> Score -> NormalizeScore,
// with pods and nodes built as upstream's unit tests build them (namespace "").
#pragma once

#include <gtest/gtest.h>
#include <schedhost/abi.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "default_plugins/hook_runner.hpp"

namespace schedhost::testing::pts {

using ::schedhost::testing::Outcome;
using ::schedhost::testing::PreFilterOutcome;
using ::schedhost::testing::ScoresOutcome;
using PodPtr = std::shared_ptr<const cluster::Pod>;
using NodePtr = std::shared_ptr<const cluster::Node>;

constexpr schedhost_code_t kSuccess = SCHEDHOST_SUCCESS;
constexpr schedhost_code_t kError = SCHEDHOST_ERROR;
constexpr schedhost_code_t kSkip = SCHEDHOST_SKIP;
constexpr schedhost_code_t kU = SCHEDHOST_UNSCHEDULABLE;
constexpr schedhost_code_t kUU = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;
constexpr const char* kHostname = "kubernetes.io/hostname";
constexpr const char* kNotMatch = "node(s) didn't match pod topology spread constraints";
constexpr const char* kMissingLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";

inline Json exists(const char* key) {
  return {{"matchExpressions", Json::array({{{"key", key}, {"operator", "Exists"}}})}};
}
inline const Json kFoo = exists("foo");
inline const Json kBar = exists("bar");

// A topologySpreadConstraint; selector null = no labelSelector; extra fields merged in.
inline Json spread(int max_skew, const std::string& key, const std::string& when,
                   const Json& selector, Json extra = Json::object()) {
  Json c = {{"maxSkew", max_skew}, {"topologyKey", key}, {"whenUnsatisfiable", when}};
  if (!selector.is_null()) c["labelSelector"] = selector;
  for (auto& [k, v] : extra.items())
    c[k] = v;
  return c;
}

// Builds a pod (st.MakePod()-like): labels, node, namespace, spec fields.
class PodBuilder {
 public:
  explicit PodBuilder(std::string name) : name_(std::move(name)) {}
  PodBuilder& label(const std::string& k, const std::string& v = "") {
    labels_[k] = v;
    return *this;
  }
  PodBuilder& node(const std::string& n) {
    spec_["nodeName"] = n;
    return *this;
  }
  PodBuilder& ns(const std::string& n) {
    namespace_ = n;
    return *this;
  }
  PodBuilder& terminating() {
    terminating_ = true;
    return *this;
  }
  PodBuilder& constraint(Json c) {
    spec_["topologySpreadConstraints"].push_back(std::move(c));
    return *this;
  }
  PodBuilder& spec(const std::string& field, Json value) {
    spec_[field] = std::move(value);
    return *this;
  }
  PodPtr obj() const {
    Json spec = spec_;
    spec["containers"] = Json::array({{{"name", "c"}, {"image", "busybox"}}});
    Json metadata = {{"name", name_}, {"uid", "uid-" + name_}, {"labels", labels_}};
    if (!namespace_.empty()) metadata["namespace"] = namespace_;
    if (terminating_) metadata["deletionTimestamp"] = "2024-01-01T00:00:00Z";
    Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
    return std::make_shared<const cluster::Pod>(std::move(pod), "");
  }

 private:
  std::string name_;
  std::string namespace_;
  bool terminating_ = false;
  Json labels_ = Json::object();
  Json spec_ = Json::object();
};

inline PodBuilder make_pod(const std::string& name) {
  return PodBuilder(name);
}

// A node with labels (and taints).
inline NodePtr make_node(const std::string& name, const Json& labels, const Json& taints = Json()) {
  Json spec = Json::object();
  if (!taints.is_null()) spec["taints"] = taints;
  return node_with(name, labels, spec);
}

// One pod's cycle through PodTopologySpread against one snapshot.
class Runner {
 public:
  Runner(const framework::PluginInstance& plugin, const std::vector<NodePtr>& nodes,
         const std::vector<PodPtr>& existing, PodPtr pod)
      : plugin_(plugin), snapshot_(nodes, existing), pod_(std::move(pod)) {
    for (const NodePtr& n : nodes)
      names_.push_back(n->name());
  }

  framework::CycleState& state() { return state_; }

  PreFilterOutcome pre_filter() {
    framework::Call call(&snapshot_);
    PreFilterOutcome out;
    out.code = plugin_.vtable().pre_filter(plugin_.self(), call.handle(), state_.handle(),
                                           pod_handle(*pod_));
    out.reasons = call.reasons();
    return out;
  }

  Outcome filter(const std::string& node) { return filter_with(state_, node); }
  Outcome filter_with(framework::CycleState& state, const std::string& node) {
    framework::Call call(&snapshot_);
    state.set_read_only(true);
    Outcome out;
    out.code = plugin_.vtable().filter(plugin_.self(), call.handle(), state.handle(),
                                       pod_handle(*pod_), node_handle(snapshot_, node));
    state.set_read_only(false);
    out.reasons = call.reasons();
    return out;
  }

  // AddPod (add) or RemovePod of `other` on `node` into `state`.
  Outcome update(framework::CycleState& state, const cluster::Pod& other, const std::string& node,
                 bool add) {
    framework::Call call(&snapshot_);
    Outcome out;
    auto fn = add ? plugin_.vtable().add_pod : plugin_.vtable().remove_pod;
    out.code = fn(plugin_.self(), call.handle(), state.handle(), pod_handle(*pod_),
                  pod_handle(other), node_handle(snapshot_, node));
    out.reasons = call.reasons();
    return out;
  }

  // Filter on every node: "Success" or "<code>:<reason>" per node, in node order.
  std::vector<std::string> filter_all(framework::CycleState& state) {
    std::vector<std::string> out;
    for (const std::string& n : names_) {
      Outcome o = filter_with(state, n);
      std::string s = o.code == kSuccess ? "Success" : std::to_string(o.code);
      for (const std::string& r : o.reasons)
        s += ":" + r;
      out.push_back(s);
    }
    return out;
  }
  std::vector<std::string> filter_all() { return filter_all(state_); }

  Outcome pre_score(const std::vector<std::string>& feasible) {
    std::vector<const schedhost_node_t*> nodes;
    for (const std::string& n : feasible)
      nodes.push_back(node_handle(snapshot_, n));
    framework::Call call(&snapshot_);
    Outcome out;
    out.code = plugin_.vtable().pre_score(plugin_.self(), call.handle(), state_.handle(),
                                          pod_handle(*pod_), nodes.data(), nodes.size());
    out.reasons = call.reasons();
    return out;
  }

  // PreScore over `feasible` (all nodes when empty), Score and NormalizeScore over them.
  ScoresOutcome scores(std::vector<std::string> feasible = {}) {
    if (feasible.empty()) feasible = names_;
    ScoresOutcome out;
    Outcome pre = pre_score(feasible);
    if (pre.code != kSuccess) {
      out.code = pre.code;
      out.reasons = pre.reasons;
      return out;
    }
    std::vector<schedhost_node_score_t> raw;
    for (const std::string& n : feasible) {
      framework::Call call(&snapshot_);
      state_.set_read_only(true);
      std::int64_t score = -1;
      const schedhost_code_t code =
          plugin_.vtable().score(plugin_.self(), call.handle(), state_.handle(), pod_handle(*pod_),
                                 node_handle(snapshot_, n), &score);
      state_.set_read_only(false);
      if (code != kSuccess) {
        out.code = code;
        out.reasons = call.reasons();
        return out;
      }
      raw.push_back({{n.data(), n.size()}, score});
    }
    framework::Call call(&snapshot_);
    out.code = plugin_.vtable().normalize_score(plugin_.self(), call.handle(), state_.handle(),
                                                pod_handle(*pod_), raw.data(), raw.size());
    out.reasons = call.reasons();
    for (const auto& s : raw)
      out.scores.push_back(s.score);
    return out;
  }

 private:
  const framework::PluginInstance& plugin_;
  cluster::Snapshot snapshot_;
  PodPtr pod_;
  framework::CycleState state_;
  std::vector<std::string> names_;
};

}  // namespace schedhost::testing::pts
