// The objects of a cluster file, sorted into what the scheduler does with them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/api_object.hpp"
#include "cluster/namespace.hpp"
#include "cluster/node.hpp"
#include "cluster/object_kinds.hpp"
#include "cluster/pod.hpp"
#include "cluster/pod_disruption_budget.hpp"
#include "cluster/snapshot.hpp"

namespace schedhost::cluster {

// An object of a kind the model does not use yet (kept so later features can pick them up).
struct IgnoredObject {
  std::string kind;
  std::string name;       // "namespace/name" when it has a namespace
  std::string location;   // "file:line:column"
  nlohmann::json object;  // as read
};

// Everything in file order (files of a directory by name). Pods and nodes are immutable and
// shared, so a Snapshot and the queue can hold the same objects.
struct Cluster {
  std::vector<std::shared_ptr<const Node>> nodes;
  // kind: Namespace (v1). A pod's namespace need not have one (its labels are then empty).
  std::vector<std::shared_ptr<const Namespace>> namespaces;
  // spec.nodeName set: they count against their node.
  std::vector<std::shared_ptr<const Pod>> running_pods;
  // spec.nodeName unset: to be scheduled, in this order.
  std::vector<std::shared_ptr<const Pod>> pending_pods;
  // status.phase Succeeded or Failed: neither scheduled nor counted, as upstream's informers
  // leave terminated pods out of the scheduler cache.
  std::vector<std::shared_ptr<const Pod>> finished_pods;
  // kind: PodDisruptionBudget (policy/v1 or v1beta1), for preemption (no plugin uses them yet).
  std::vector<std::shared_ptr<const PodDisruptionBudget>> pod_disruption_budgets;
  // The other kinds the plugins read (object_kinds.hpp: PersistentVolumes, StorageClasses,
  // Services, ReplicaSets..., and the kinds plugins declared), in file order.
  std::vector<std::shared_ptr<const ApiObject>> objects;
  // Kinds schedhost does not model (yet): kept as read, counted for nothing.
  std::vector<IgnoredObject> ignored;
  // spec.nodeName names a node the cluster does not have: counted on no node, as kube-scheduler's
  // cache keeps a pod whose node was deleted first (the informers deliver that order).
  std::vector<std::shared_ptr<const Pod>> unplaced_pods;
  // What the file holds that counts for nothing, one line each ("file:line:col: ..."), for the
  // commands to print as warnings: each unplaced pod, and each ignored kind (its count, the first
  // one's place, and what schedhost does without it).
  std::vector<std::string> warnings;

  // A NodeInfo per node (file order) with the running pods on it, the namespaces and the
  // PodDisruptionBudgets.
  Snapshot snapshot() const {
    Snapshot s(nodes, running_pods);
    s.set_namespaces(namespaces);
    s.set_pod_disruption_budgets(pod_disruption_budgets);
    for (const ObjectKind* kind : all_object_kinds()) {
      std::vector<std::shared_ptr<const ApiObject>> of_kind;
      for (const auto& o : objects) {
        if (&o->kind() == kind) of_kind.push_back(o);
      }
      if (!of_kind.empty()) s.set_objects(*kind, std::move(of_kind));
    }
    return s;
  }
};

}  // namespace schedhost::cluster
