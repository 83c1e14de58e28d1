// The live cluster cache: informer events for nodes, assigned pods, namespaces and
// PodDisruptionBudgets, queued as they arrive (on the informers' threads) and applied to the one
// cluster::Snapshot the scheduling cycle reads, between cycles, at a cost proportional to what
// changed (upstream's scheduler cache and its incremental UpdateSnapshot, collapsed into one
// structure because schedhost's cycles run one at a time on one thread).
//
// Assumed pods (upstream's AssumePod): a pod the cycle placed is on the snapshot from Reserve
// on. The informer's copy of the bound pod confirms it (it replaces the assumed copy, never adds a
// second one); a failed binding forgets it (the cycle takes it off the snapshot); a binding that
// finished but is never confirmed is dropped after kAssumedPodTtl.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/object_kinds.hpp"
#include "cluster/snapshot.hpp"
#include "kube/informer.hpp"
#include "live/cluster_event.hpp"

namespace schedhost::live {

// What applying the queued events changed: counts for the logs, and upstream's cluster events,
// in order, for the queue to retry the pods each may help.
struct ClusterChanges {
  int nodes = 0;   // added, updated or removed
  int pods = 0;    // assigned pods added, updated or removed (confirmations not counted)
  int others = 0;  // namespaces, PodDisruptionBudgets
  std::vector<ClusterEvent> events;
  bool any() const { return nodes + pods + others > 0; }
};

class LiveCluster {
 public:
  // Unconfirmed bindings are forgotten this long after they finished.
  static constexpr std::chrono::seconds kAssumedPodTtl{60};

  LiveCluster();

  // Handlers for the informers (called on their threads; they build the typed object and queue
  // it).
  kube::InformerHandler node_handler();
  kube::InformerHandler assigned_pod_handler();  // pods with spec.nodeName set
  kube::InformerHandler namespace_handler();
  kube::InformerHandler pod_disruption_budget_handler();
  // One of the other kinds plugins read (cluster/object_kinds.hpp: PersistentVolumes, Services..).
  kube::InformerHandler object_handler(const cluster::ObjectKind& kind);

  // Scheduling thread: applies what was queued. Objects the model refuses are logged and
  // skipped (a bad object must not stop the scheduler).
  ClusterChanges apply_pending(
      std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

  cluster::Snapshot& snapshot() { return snapshot_; }
  const cluster::Snapshot& snapshot() const { return snapshot_; }

  // The cycle assumed pod (it is on the snapshot). Scheduling thread.
  void assumed(const std::string& uid);
  // Its binding was written; it stays until confirmed or kAssumedPodTtl after now.
  void binding_finished(const std::string& uid, std::chrono::steady_clock::time_point now);
  // The cycle took it off the snapshot again (a failed binding, a rejection at Permit).
  void forget(const std::string& uid);
  bool is_assumed(const std::string& uid) const { return assumed_.count(uid) != 0; }
  std::size_t assumed_count() const { return assumed_.size(); }

 private:
  enum class Kind { Node, Pod, Namespace, Budget, Object };
  // What an informer handed over, made ready on the informer's thread: a node or pod arrives as
  // its typed object (which keeps the compact text), so no JSON tree waits here for the
  // scheduling thread (thousands at a list) and that thread does not build them.
  struct Change {
    Kind kind = Kind::Object;
    bool deleted = false;
    std::string key;      // the store key, for messages
    kube::Object object;  // Namespace, Budget, Object; a node's update, for the comparisons
    std::shared_ptr<const cluster::Node> node;  // Kind::Node, not deleted
    std::shared_ptr<const cluster::Pod> pod;    // Kind::Pod (of a deletion: null if refused)
    std::string uid, node_name;                 // Kind::Pod: metadata.uid, spec.nodeName
    std::string refused;  // the model refused the object: why (logged, the change skipped)
    const cluster::ObjectKind* object_kind = nullptr;  // Kind::Object
  };
  void push(Kind kind, bool deleted, const kube::Object& object, bool update,
            const cluster::ObjectKind* object_kind = nullptr);
  kube::InformerHandler handler_for(Kind kind, const cluster::ObjectKind* object_kind = nullptr);
  // Applies one change to objects_ and says, as upstream's event handlers, what happened.
  void apply_object(const Change& c, ClusterChanges& out);
  void apply_node(const Change& c, ClusterChanges& out);
  void apply_pod(const Change& c, ClusterChanges& out);
  void place_orphans(const std::string& node_name, ClusterChanges& out);

  std::mutex mutex_;  // guards pending_
  std::vector<Change> pending_;

  cluster::Snapshot snapshot_;
  struct Assumed {
    bool binding_finished = false;
    std::chrono::steady_clock::time_point finished_at;
  };
  std::map<std::string, Assumed> assumed_;  // by pod uid
  std::chrono::steady_clock::time_point last_assumed_sweep_{};
  // Assigned pods whose node the cache does not have (yet): placed when it arrives.
  std::map<std::string, std::map<std::string, std::shared_ptr<const cluster::Pod>>> orphans_;
  std::map<std::string, std::shared_ptr<const cluster::Namespace>> namespaces_;
  std::map<std::string, std::shared_ptr<const cluster::PodDisruptionBudget>> budgets_;
  // The other kinds, by kind then store key.
  std::map<const cluster::ObjectKind*,
           std::map<std::string, std::shared_ptr<const cluster::ApiObject>>>
      objects_;
};

}  // namespace schedhost::live
