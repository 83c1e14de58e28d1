#include "framework/dry_run.hpp"

#include <algorithm>
#include <utility>

namespace schedhost::framework {

std::unique_ptr<DryRun> DryRun::begin(const PostFilterScope& scope,
                                      const cluster::Snapshot& snapshot,
                                      std::string_view node_name) {
  const cluster::NodeInfo* node = snapshot.find(node_name);
  if (node == nullptr || scope.cycle == nullptr) return nullptr;
  std::optional<CycleContext> cycle = scope.cycle->clone();
  if (!cycle) return nullptr;
  return std::unique_ptr<DryRun>(new DryRun(scope, *node, std::move(*cycle)));
}

schedhost_code_t DryRun::record(Status status) {
  reasons_ = std::move(status.reasons);
  return status.code;
}

schedhost_code_t DryRun::fail(std::string reason) {
  reasons_ = {std::move(reason)};
  return SCHEDHOST_ERROR;
}

schedhost_code_t DryRun::remove_pod(std::string_view uid) {
  const auto& pods = node_.pods();
  auto it = std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p->uid() == uid; });
  if (it == pods.end()) {
    return fail("dry run: no pod with uid \"" + std::string(uid) + "\" on node \"" + node_.name() +
                "\"");
  }
  std::shared_ptr<const cluster::Pod> pod = *it;
  node_.remove_pod(uid);
  removed_.push_back(pod);
  return record(scope_.framework->run_remove_pod(cycle_, *scope_.pod, *pod, node_));
}

schedhost_code_t DryRun::add_pod(std::string_view uid) {
  auto it = std::find_if(removed_.begin(), removed_.end(),
                         [&](const auto& p) { return p->uid() == uid; });
  if (it == removed_.end()) {
    return fail("dry run: pod with uid \"" + std::string(uid) + "\" was not removed from node \"" +
                node_.name() + "\" in this dry run");
  }
  std::shared_ptr<const cluster::Pod> pod = std::move(*it);
  removed_.erase(it);
  node_.add_pod(pod);
  return record(scope_.framework->run_add_pod(cycle_, *scope_.pod, *pod, node_));
}

schedhost_code_t DryRun::filter() {
  return record(scope_.framework->run_filter_with_nominated_pods(cycle_, *scope_.pod, node_));
}

}  // namespace schedhost::framework
