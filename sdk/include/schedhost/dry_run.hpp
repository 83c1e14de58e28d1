// schedhost/dry_run.hpp - a what-if copy of one node for preemption (PostFilter only): remove
// and put back pods, then ask whether the pod being scheduled would pass the profile's Filter
// plugins there. Get one from Context::dry_run(node); it ends when the object is destroyed.
// One DryRun per thread at a time; distinct ones may run in Context::parallel_for bodies.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/host_table.hpp>
#include <schedhost/objects.hpp>
#include <schedhost/status.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost {

class DryRun {
 public:
  DryRun(const schedhost_host_api_t* api, schedhost_dry_run_t* run) : api_(api), run_(run) {}
  DryRun(const DryRun&) = delete;
  DryRun& operator=(const DryRun&) = delete;
  DryRun(DryRun&& other) noexcept : api_(other.api_), run_(std::exchange(other.run_, nullptr)) {}
  DryRun& operator=(DryRun&& other) noexcept {
    if (this != &other) {
      end();
      api_ = other.api_;
      run_ = std::exchange(other.run_, nullptr);
    }
    return *this;
  }
  ~DryRun() { end(); }

  // The node copy, with the removals and additions so far.
  NodeInfo node() const { return NodeInfo(api_, api_->dry_run_node(run_)); }
  // Removes a pod of the node from the copy (and tells the PreFilter extensions).
  Status remove_pod(std::string_view uid) {
    return status(api_->dry_run_remove_pod(run_, to_str(uid)));
  }
  // Puts back a pod remove_pod took out.
  Status add_pod(std::string_view uid) { return status(api_->dry_run_add_pod(run_, to_str(uid))); }
  // The profile's Filter plugins for the pod being scheduled, on the copy.
  Status filter() { return status(api_->dry_run_filter(run_)); }

 private:
  Status status(schedhost_code_t code) const {
    if (code == SCHEDHOST_SUCCESS) return {};
    std::vector<std::string> reasons;
    const std::size_t n = api_->dry_run_reason_count(run_);
    reasons.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      reasons.emplace_back(to_view(api_->dry_run_reason_at(run_, i)));
    return {static_cast<Code>(code), std::move(reasons)};
  }
  void end() {
    if (run_ != nullptr) api_->dry_run_end(std::exchange(run_, nullptr));
  }

  const schedhost_host_api_t* api_;
  schedhost_dry_run_t* run_;
};

}  // namespace schedhost
