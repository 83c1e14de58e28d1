// PremadeObjects: the Pods and Nodes of a cluster file, made on two threads ahead of the one pass
// that takes every object in file order.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/node.hpp"
#include "cluster/pod.hpp"

namespace schedhost::cluster {

// Making the Pod and Node objects (reading every field of their JSON) was two thirds of building
// a 16,000-object cluster, on one thread, while the other core waited. Each object's constructor
// reads only its own JSON, so they are made here on a thread of its own and the caller's, and the
// file-order pass (duplicates, placement, every message) takes them as it reaches them. An
// object whose constructor threw keeps the exception, rethrown by that pass at its place, so
// messages come in the same order as from one pass.
class PremadeObjects {
 public:
  struct Made {
    std::shared_ptr<const nlohmann::json> tree;  // the item's JSON, moved out of the document
                                                 // (null only if keeping it threw: see error)
    std::shared_ptr<const Pod> pod;              // for a Pod, unless it threw
    std::shared_ptr<const Node> node;            // for a Node, unless it threw
    std::exception_ptr error;                    // what the constructor threw
    std::string pod_namespace;                   // a Pod's namespace for messages ("default")
  };

  PremadeObjects() = default;
  PremadeObjects(const PremadeObjects&) = delete;
  PremadeObjects& operator=(const PremadeObjects&) = delete;
  // Stops the thread after the object in hand (a run that ends before build() makes no more).
  ~PremadeObjects();

  // Finds the Pods and Nodes among `documents` (top-level objects, and the items of a List, a
  // PodList or a NodeList) and starts making them on a thread (when there are enough to be worth
  // one; finish() makes the rest). Each one found is moved out of its
  // document into its Made; nothing else in the documents is touched, and they must stay where
  // they are until finish() returns.
  void start(const std::vector<nlohmann::json*>& documents);
  // Makes what is left on this thread too, then waits for the other. Idempotent.
  void finish();
  // What was made of the item at that address (before it was moved out), or nullptr.
  const Made* find(const nlohmann::json* item) const;

 private:
  void make_some();
  void consider(nlohmann::json& item, const std::string& implied_kind);

  struct Item {
    nlohmann::json* source;
    bool pod;
  };
  std::vector<Item> items_;
  std::vector<Made> made_;  // made_[i] for items_[i]
  std::unordered_map<const nlohmann::json*, std::size_t> index_;
  std::atomic<std::size_t> next_{0};
  std::thread helper_;
};

// The namespace a Pod's messages name before the Pod exists ("default" when unset), after
// merging its affinity label keys as the API server would have at creation. Both the premade
// and the file-order path call it, so their objects and messages agree.
std::string prepare_pod_object(nlohmann::json& object);

}  // namespace schedhost::cluster
