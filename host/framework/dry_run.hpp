// DryRun: a private copy of one node and of the failed cycle's state, on which a preemption
// plugin removes and puts back pods and runs the profile's Filter chain. Upstream's
// SelectVictimsOnNode works the same way on NodeInfo.Clone and CycleState.Clone.
#pragma once

#include <schedhost/abi.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/node_info.hpp"
#include "cluster/snapshot.hpp"
#include "framework/framework.hpp"
#include "framework/post_filter_scope.hpp"

namespace schedhost::framework {

class DryRun {
 public:
  // nullptr when the snapshot has no such node or a cycle state value cannot be cloned.
  static std::unique_ptr<DryRun> begin(const PostFilterScope& scope,
                                       const cluster::Snapshot& snapshot,
                                       std::string_view node_name);

  const cluster::NodeInfo& node() const { return node_; }
  // Each returns the status code and keeps the reasons of a failure for reasons().
  schedhost_code_t remove_pod(std::string_view uid);  // RemovePod extensions on the copy
  schedhost_code_t add_pod(std::string_view uid);     // puts back a removed pod; AddPod
  schedhost_code_t filter();                          // the profile's Filter chain on the copy
  const std::vector<std::string>& reasons() const { return reasons_; }

  schedhost_dry_run_t* handle() { return reinterpret_cast<schedhost_dry_run_t*>(this); }
  static DryRun* from(schedhost_dry_run_t* h) { return reinterpret_cast<DryRun*>(h); }
  static const DryRun* from(const schedhost_dry_run_t* h) {
    return reinterpret_cast<const DryRun*>(h);
  }

 private:
  DryRun(const PostFilterScope& scope, cluster::NodeInfo node, CycleContext cycle)
      : scope_(scope), node_(std::move(node)), cycle_(std::move(cycle)) {}
  schedhost_code_t record(Status status);
  schedhost_code_t fail(std::string reason);

  const PostFilterScope& scope_;
  cluster::NodeInfo node_;
  CycleContext cycle_;
  std::vector<std::shared_ptr<const cluster::Pod>> removed_;  // may be put back
  std::vector<std::string> reasons_;
};

}  // namespace schedhost::framework
