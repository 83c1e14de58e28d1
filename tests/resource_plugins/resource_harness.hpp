// Helpers for the resource plugins' tests: pods and nodes the way upstream's unit tests build them
// (several containers, init containers, sidecars, overhead, images), a snapshot, and the hook
// sequences the framework runs (PreFilter then Filter, PreScore then Score) on the real .so.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/plugin_harness.hpp"

namespace schedhost::testing {

using PodPtr = std::shared_ptr<const cluster::Pod>;
using NodePtr = std::shared_ptr<const cluster::Node>;

// A Pod, built container by container; requests are quantity strings ({"cpu": "100m"}).
class PodBuilder {
 public:
  explicit PodBuilder(std::string name) : name_(std::move(name)) {}

  // A regular container; `requests` null means no resources at all.
  PodBuilder& container(const nlohmann::json& requests = nullptr, const std::string& image = "") {
    containers_.push_back(make_container(requests, image));
    return *this;
  }
  PodBuilder& image(const std::string& image) { return container(nullptr, image); }
  PodBuilder& init_container(const nlohmann::json& requests, const std::string& image = "") {
    init_containers_.push_back(make_container(requests, image));
    return *this;
  }
  // A restartable init container (restartPolicy: Always).
  PodBuilder& sidecar(const nlohmann::json& requests, const std::string& image = "") {
    nlohmann::json c = make_container(requests, image);
    c["restartPolicy"] = "Always";
    init_containers_.push_back(std::move(c));
    return *this;
  }
  PodBuilder& overhead(const nlohmann::json& overhead) {
    overhead_ = overhead;
    return *this;
  }
  // Pod-level resources (spec.resources, v1.35): requests as quantity strings.
  PodBuilder& pod_requests(const nlohmann::json& requests) {
    pod_resources_ = {{"requests", requests}};
    return *this;
  }
  PodBuilder& on(const std::string& node) {
    node_ = node;
    return *this;
  }

  PodPtr build() const {
    nlohmann::json spec = {{"containers", containers_}};
    if (!init_containers_.empty()) spec["initContainers"] = init_containers_;
    if (!overhead_.is_null()) spec["overhead"] = overhead_;
    if (!pod_resources_.is_null()) spec["resources"] = pod_resources_;
    if (!node_.empty()) spec["nodeName"] = node_;
    nlohmann::json pod = {{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"metadata", {{"name", name_}, {"namespace", "default"}}},
                          {"spec", std::move(spec)}};
    return std::make_shared<const cluster::Pod>(std::move(pod));
  }

 private:
  nlohmann::json make_container(const nlohmann::json& requests, const std::string& image) {
    nlohmann::json c = {{"name", "c" + std::to_string(next_++)},
                        {"image", image.empty() ? "busybox" : image}};
    if (!requests.is_null()) {
      // Extended resources need limits equal to requests; cpu and memory limits change nothing.
      c["resources"] = {{"requests", requests}, {"limits", requests}};
    }
    return c;
  }

  std::string name_;
  nlohmann::json containers_ = nlohmann::json::array();
  nlohmann::json init_containers_ = nlohmann::json::array();
  nlohmann::json overhead_;
  nlohmann::json pod_resources_;
  std::string node_;
  int next_ = 0;
};

// A Node with status.allocatable (quantity strings) and status.images ({names, sizeBytes}).
inline NodePtr node(const std::string& name, const nlohmann::json& allocatable,
                    const nlohmann::json& images = nlohmann::json::array()) {
  nlohmann::json n = {{"apiVersion", "v1"},
                      {"kind", "Node"},
                      {"metadata", {{"name", name}}},
                      {"status", {{"allocatable", allocatable}, {"images", images}}}};
  return std::make_shared<const cluster::Node>(std::move(n));
}

// The framework's PreFilter (unless skipped) then Filter on one node, sharing one CycleState.
inline Outcome prefilter_and_filter(const framework::PluginInstance& plugin,
                                    const cluster::Snapshot& snapshot, const cluster::Pod& pod,
                                    const std::string& node_name, bool run_prefilter = true) {
  framework::CycleState state;
  if (run_prefilter) {
    framework::Call call(&snapshot);
    const schedhost_code_t code =
        plugin.vtable().pre_filter(plugin.self(), call.handle(), state.handle(), pod_handle(pod));
    EXPECT_EQ(code, SCHEDHOST_SUCCESS) << "PreFilter: " << call.message();
  }
  state.set_read_only(true);
  framework::Call call(&snapshot);
  Outcome out;
  out.code = plugin.vtable().filter(plugin.self(), call.handle(), state.handle(), pod_handle(pod),
                                    node_handle(snapshot, node_name));
  out.reasons = call.reasons();
  return out;
}

// The framework's PreScore over every node (unless skipped), then Score on each node in snapshot
// order; returns the scores (and fails the test on a status other than Success).
inline std::vector<std::int64_t> prescore_and_score(const framework::PluginInstance& plugin,
                                                    const cluster::Snapshot& snapshot,
                                                    const cluster::Pod& pod,
                                                    bool run_prescore = true) {
  framework::CycleState state;
  std::vector<const schedhost_node_t*> nodes;
  for (const cluster::NodeInfo& info : snapshot.node_infos()) {
    nodes.push_back(node_handle(snapshot, info.name()));
  }
  if (run_prescore) {
    framework::Call call(&snapshot);
    const schedhost_code_t code = plugin.vtable().pre_score(
        plugin.self(), call.handle(), state.handle(), pod_handle(pod), nodes.data(), nodes.size());
    // A plugin that skips the pod at PreScore is not scored at all: no scores.
    if (code == SCHEDHOST_SKIP) return {};
    EXPECT_EQ(code, SCHEDHOST_SUCCESS) << "PreScore: " << call.message();
  }
  state.set_read_only(true);
  std::vector<std::int64_t> scores;
  for (const schedhost_node_t* n : nodes) {
    framework::Call call(&snapshot);
    std::int64_t score = -1;
    const schedhost_code_t code = plugin.vtable().score(plugin.self(), call.handle(),
                                                        state.handle(), pod_handle(pod), n, &score);
    EXPECT_EQ(code, SCHEDHOST_SUCCESS) << "Score: " << call.message();
    scores.push_back(score);
  }
  return scores;
}

}  // namespace schedhost::testing
