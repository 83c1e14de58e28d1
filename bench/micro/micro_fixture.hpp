// What every micro-benchmark needs, built once: the plugins (built-ins and the empty fixture)
// loaded by the real loader, a one-node snapshot with three pods on it, a pending pod, and the
// host API table plugins receive.
#pragma once

#include <schedhost/abi.h>

#include <memory>

#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
#include "loader/plugin_registry.hpp"

namespace schedhost_bench {

struct MicroFixture {
  schedhost::loader::PluginRegistry registry;
  std::shared_ptr<const schedhost::cluster::Pod> pod;  // pending, with labels and affinity
  schedhost::cluster::Snapshot snapshot;               // node-0, zone1, three pods
  schedhost::framework::Call call{&snapshot};
  schedhost::framework::CycleState state;
  const schedhost_host_api_t* api = nullptr;

  const schedhost_pod_t* pod_handle() const {
    return reinterpret_cast<const schedhost_pod_t*>(pod.get());
  }
  const schedhost_node_t* node_handle() const {
    return reinterpret_cast<const schedhost_node_t*>(&snapshot.at(0));
  }
};

// Built on first use; aborts with a message when the plugins cannot be loaded.
MicroFixture& fixture();

// A pending pod like the fixture's, named pod-<index> (a fresh object: nothing cached yet).
std::shared_ptr<const schedhost::cluster::Pod> make_bench_pod(std::size_t index);

}  // namespace schedhost_bench
