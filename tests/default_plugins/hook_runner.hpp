// Calls every hook of a built-in plugin the way the framework does, sharing one CycleState
// across PreFilter -> Filter and PreScore -> Score -> NormalizeScore, as upstream's plugin unit
// tests do. Builds pods and nodes from kubectl-style JSON.
#pragma once

#include <gtest/gtest.h>
#include <schedhost/abi.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/node.hpp"
#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
#include "framework/plugin_instance.hpp"
#include "plugins/plugin_harness.hpp"

namespace schedhost::testing {

using Json = nlohmann::json;

// A pod named `name` in namespace "" (as upstream's unit tests) with the given spec; a spec
// without containers gets one plain container.
inline std::shared_ptr<const cluster::Pod> pod_with_spec(Json spec, const std::string& name = "p",
                                                         const std::string& node_name = "") {
  if (!spec.contains("containers")) {
    spec["containers"] = Json::array({{{"name", "c"}, {"image", "busybox"}}});
  }
  if (!node_name.empty()) spec["nodeName"] = node_name;
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"uid", "uid-" + name + "-" + node_name}}},
              {"spec", std::move(spec)}};
  return std::make_shared<const cluster::Pod>(std::move(pod), "");
}

// A node with labels and a spec (taints, unschedulable); pods 110 allocatable.
inline std::shared_ptr<const cluster::Node> node_with(const std::string& name,
                                                      const Json& labels = Json::object(),
                                                      const Json& spec = Json::object()) {
  Json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", name}, {"labels", labels}}},
               {"spec", spec},
               {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}}}}};
  return std::make_shared<const cluster::Node>(std::move(node));
}

struct PreFilterOutcome {
  schedhost_code_t code = -1;
  std::vector<std::string> reasons;
  std::optional<std::vector<std::string>> node_names;
};

struct ScoresOutcome {
  schedhost_code_t code = -1;  // the first non-success code of PreScore, Score, NormalizeScore
  std::vector<std::string> reasons;
  std::vector<std::int64_t> scores;  // per node, in snapshot order, after NormalizeScore
};

// One pod's cycle against one snapshot through one plugin instance.
class Cycle {
 public:
  Cycle(const framework::PluginInstance& plugin, cluster::Snapshot snapshot,
        std::shared_ptr<const cluster::Pod> pod)
      : plugin_(plugin), snapshot_(std::move(snapshot)), pod_(std::move(pod)) {}

  const cluster::Snapshot& snapshot() const { return snapshot_; }
  framework::CycleState& state() { return state_; }

  Outcome pre_enqueue() {
    framework::Call call(&snapshot_);
    Outcome out;
    out.code = plugin_.vtable().pre_enqueue(plugin_.self(), call.handle(), pod_handle(*pod_));
    out.reasons = call.reasons();
    return out;
  }

  PreFilterOutcome pre_filter() {
    framework::Call call(&snapshot_);
    PreFilterOutcome out;
    out.code = plugin_.vtable().pre_filter(plugin_.self(), call.handle(), state_.handle(),
                                           pod_handle(*pod_));
    out.reasons = call.reasons();
    out.node_names = call.node_names();
    return out;
  }

  Outcome filter(const std::string& node) {
    framework::Call call(&snapshot_);
    state_.set_read_only(true);
    Outcome out;
    out.code = plugin_.vtable().filter(plugin_.self(), call.handle(), state_.handle(),
                                       pod_handle(*pod_), node_handle(snapshot_, node));
    state_.set_read_only(false);
    out.reasons = call.reasons();
    return out;
  }

  Outcome pre_score() {
    std::vector<const schedhost_node_t*> nodes;
    for (const auto& info : snapshot_.node_infos())
      nodes.push_back(node_handle(snapshot_, info.node().name()));
    framework::Call call(&snapshot_);
    Outcome out;
    out.code = plugin_.vtable().pre_score(plugin_.self(), call.handle(), state_.handle(),
                                          pod_handle(*pod_), nodes.data(), nodes.size());
    out.reasons = call.reasons();
    return out;
  }

  Outcome score(const std::string& node) {
    framework::Call call(&snapshot_);
    state_.set_read_only(true);
    Outcome out;
    out.code = plugin_.vtable().score(plugin_.self(), call.handle(), state_.handle(),
                                      pod_handle(*pod_), node_handle(snapshot_, node), &out.score);
    state_.set_read_only(false);
    out.reasons = call.reasons();
    return out;
  }

  // PreScore (when asked), Score on every node, then NormalizeScore over them all.
  ScoresOutcome scores(bool run_pre_score = true) {
    ScoresOutcome out;
    auto failed = [&](const Outcome& o) {
      out.code = o.code;
      out.reasons = o.reasons;
      return out;
    };
    if (run_pre_score) {
      Outcome pre = pre_score();
      if (pre.code != SCHEDHOST_SUCCESS) return failed(pre);
    }
    std::vector<std::string> names;
    std::vector<schedhost_node_score_t> raw;
    for (const auto& info : snapshot_.node_infos())
      names.push_back(info.node().name());
    for (const std::string& name : names) {
      Outcome s = score(name);
      if (s.code != SCHEDHOST_SUCCESS) return failed(s);
      raw.push_back({{name.data(), name.size()}, s.score});
    }
    if (plugin_.vtable().normalize_score != nullptr) {
      framework::Call call(&snapshot_);
      const schedhost_code_t code =
          plugin_.vtable().normalize_score(plugin_.self(), call.handle(), state_.handle(),
                                           pod_handle(*pod_), raw.data(), raw.size());
      if (code != SCHEDHOST_SUCCESS) return failed(Outcome{code, call.reasons(), -1});
    }
    out.code = SCHEDHOST_SUCCESS;
    for (const auto& s : raw)
      out.scores.push_back(s.score);
    return out;
  }

 private:
  const framework::PluginInstance& plugin_;
  cluster::Snapshot snapshot_;
  std::shared_ptr<const cluster::Pod> pod_;
  framework::CycleState state_;
};

}  // namespace schedhost::testing
