// Drives a built-in plugin the way the framework does: the real .so from the built-in plugin
// directory, loaded by the real loader, created with args, its hooks called with real cluster
// objects (pods and nodes built from kubectl-style JSON, a Snapshot of NodeInfos).
#pragma once

#include <gtest/gtest.h>
#include <schedhost/abi.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/node.hpp"
#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "common/input_error.hpp"
#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
#include "framework/plugin_instance.hpp"
#include "loader/plugin_registry.hpp"
#include "support/fixtures.hpp"

namespace schedhost::testing {

// The outcome of one hook call: its code, the reasons it reported and (Score) the score.
struct Outcome {
  schedhost_code_t code = -1;
  std::vector<std::string> reasons;
  std::int64_t score = -1;
};

// A plugin library the build made: a built-in (node_affinity.so), else an example
// (sample_plugin.so).
inline std::string built_plugin(const std::string& file) {
  const std::string builtin = builtin_plugin_dir() + "/" + file;
  return std::filesystem::exists(builtin) ? builtin : example_plugin_dir() + "/" + file;
}

// A Node as kubectl prints it: labels and status.allocatable (quantities as strings).
inline std::shared_ptr<const cluster::Node> make_node(const std::string& name,
                                                      const nlohmann::json& labels,
                                                      const nlohmann::json& allocatable) {
  nlohmann::json node = {{"apiVersion", "v1"},
                         {"kind", "Node"},
                         {"metadata", {{"name", name}, {"labels", labels}}},
                         {"status", {{"allocatable", allocatable}}}};
  return std::make_shared<const cluster::Node>(std::move(node));
}

// A Pod with one container requesting `requests` (and limited to them, as extended resources
// must be); bound to node_name when it is not empty.
inline std::shared_ptr<const cluster::Pod> make_pod(const std::string& namespace_name,
                                                    const std::string& name,
                                                    const nlohmann::json& requests,
                                                    const std::string& node_name = "") {
  nlohmann::json pod = {{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", {{"name", name}, {"namespace", namespace_name}}},
                        {"spec",
                         {{"containers",
                           {{{"name", "main"},
                             {"image", "busybox"},
                             {"resources", {{"requests", requests}, {"limits", requests}}}}}}}}};
  if (!node_name.empty()) pod["spec"]["nodeName"] = node_name;
  return std::make_shared<const cluster::Pod>(std::move(pod));
}

class PluginHarness {
 public:
  // Loads one plugin library the build made (e.g. "node_name.so"); fails the test if it is refused.
  explicit PluginHarness(const std::string& file) {
    registry_.load_file(built_plugin(file));
    for (const auto& failure : registry_.failures())
      ADD_FAILURE() << failure.path << ": " << failure.message;
  }

  const loader::PluginRegistry& registry() const { return registry_; }
  const loader::PluginDefinition& definition(const std::string& plugin) const {
    const loader::PluginDefinition* def = registry_.find(plugin);
    if (def == nullptr) throw std::runtime_error("plugin " + plugin + " is not loaded");
    return *def;
  }

  std::unique_ptr<framework::PluginInstance> create(const std::string& plugin,
                                                    const std::string& args_json) const {
    return framework::PluginInstance::create(definition(plugin), args_json);
  }

  // The one-line error the host prints when the plugin refuses args_json; "<no error>" if not.
  std::string create_error(const std::string& plugin, const std::string& args_json) const {
    try {
      create(plugin, args_json);
    } catch (const InputError& e) {
      return e.what();
    }
    return "<no error>";
  }

 private:
  loader::PluginRegistry registry_;
};

inline const schedhost_pod_t* pod_handle(const cluster::Pod& pod) {
  return reinterpret_cast<const schedhost_pod_t*>(&pod);
}

inline const schedhost_node_t* node_handle(const cluster::Snapshot& snapshot,
                                           std::string_view node_name) {
  const cluster::NodeInfo* node = snapshot.find(node_name);
  if (node == nullptr) throw std::runtime_error("no node " + std::string(node_name));
  return reinterpret_cast<const schedhost_node_t*>(node);
}

inline Outcome run_filter(const framework::PluginInstance& plugin,
                          const cluster::Snapshot& snapshot, const cluster::Pod& pod,
                          std::string_view node_name) {
  framework::Call call(&snapshot);
  framework::CycleState state;
  Outcome out;
  out.code = plugin.vtable().filter(plugin.self(), call.handle(), state.handle(), pod_handle(pod),
                                    node_handle(snapshot, node_name));
  out.reasons = call.reasons();
  return out;
}

inline Outcome run_score(const framework::PluginInstance& plugin, const cluster::Snapshot& snapshot,
                         const cluster::Pod& pod, std::string_view node_name) {
  framework::Call call(&snapshot);
  framework::CycleState state;
  Outcome out;
  out.code = plugin.vtable().score(plugin.self(), call.handle(), state.handle(), pod_handle(pod),
                                   node_handle(snapshot, node_name), &out.score);
  out.reasons = call.reasons();
  return out;
}

}  // namespace schedhost::testing
