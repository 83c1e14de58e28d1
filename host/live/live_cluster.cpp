#include "live/live_cluster.hpp"

#include <spdlog/spdlog.h>

#include "cluster/json_field.hpp"
#include "kube/resource.hpp"

namespace schedhost::live {
namespace {

std::string name_of(const nlohmann::json& object) {
  return cluster::string_at(object, {"metadata", "name"});
}

std::string uid_of(const nlohmann::json& object) {
  return cluster::string_at(object, {"metadata", "uid"});
}

// What upstream's nodeSchedulingPropertiesChange looks at, plus annotations (plugins may read
// them): a change anywhere else (conditions, heartbeat times) is not worth a recount.
bool scheduling_relevant_change(const nlohmann::json& old_node, const nlohmann::json& new_node) {
  for (const char* pointer : {"/metadata/labels", "/metadata/annotations", "/spec",
                              "/status/allocatable", "/status/capacity", "/status/images"}) {
    const nlohmann::json::json_pointer p(pointer);
    const bool had = old_node.contains(p);
    const bool has = new_node.contains(p);
    if (had != has || (had && old_node.at(p) != new_node.at(p))) return true;
  }
  return false;
}

// The node's own pointer to one of its pods (for an event's old object: no copy).
std::shared_ptr<const cluster::Pod> shared_pod(const cluster::NodeInfo& node,
                                               const std::string& uid) {
  for (const auto& p : node.pods()) {
    if (p->uid() == uid) return p;
  }
  return nullptr;
}

}  // namespace

LiveCluster::LiveCluster() = default;

void LiveCluster::push(Kind kind, bool deleted, const kube::Object& object, bool update,
                       const cluster::ObjectKind* object_kind) {
  Change c;
  c.kind = kind;
  c.deleted = deleted;
  c.key = kube::object_key(*object);
  c.object_kind = object_kind;
  try {
    switch (kind) {
      case Kind::Node:
        if (!deleted) {
          c.node = std::make_shared<const cluster::Node>(*object, object.text());
          if (update) c.object = object;  // compared with the snapshot's version when applied
        }
        break;
      case Kind::Pod:
        c.uid = uid_of(*object);
        c.node_name = cluster::string_at(*object, {"spec", "nodeName"});
        c.pod = std::make_shared<const cluster::Pod>(*object, object.text());
        break;
      case Kind::Namespace:
      case Kind::Budget:
      case Kind::Object:
        c.object = object;  // few and small: built when applied
        break;
    }
  } catch (const std::exception& e) {
    // A deletion goes ahead by name or uid; anything else is skipped when applied, with a line.
    if (!deleted) c.refused = e.what();
  }
  std::lock_guard lock(mutex_);
  pending_.push_back(std::move(c));
}

kube::InformerHandler LiveCluster::handler_for(Kind kind, const cluster::ObjectKind* object_kind) {
  return {[this, kind, object_kind](const kube::Object& o, bool) {
            push(kind, false, o, false, object_kind);
          },
          [this, kind, object_kind](const kube::Object& old, const kube::Object& now) {
            // A relist redelivers unchanged objects: only a new version is a change.
            if (kube::resource_version_of(*old) != kube::resource_version_of(*now)) {
              push(kind, false, now, true, object_kind);
            }
          },
          [this, kind, object_kind](const kube::Object& o, bool) {
            push(kind, true, o, false, object_kind);
          }};
}

kube::InformerHandler LiveCluster::object_handler(const cluster::ObjectKind& kind) {
  return handler_for(Kind::Object, &kind);
}

kube::InformerHandler LiveCluster::node_handler() {
  return handler_for(Kind::Node);
}
kube::InformerHandler LiveCluster::assigned_pod_handler() {
  return handler_for(Kind::Pod);
}
kube::InformerHandler LiveCluster::namespace_handler() {
  return handler_for(Kind::Namespace);
}
kube::InformerHandler LiveCluster::pod_disruption_budget_handler() {
  return handler_for(Kind::Budget);
}

ClusterChanges LiveCluster::apply_pending(std::chrono::steady_clock::time_point now) {
  std::vector<Change> changes;
  {
    std::lock_guard lock(mutex_);
    changes.swap(pending_);
  }
  ClusterChanges out;
  bool namespaces_changed = false;
  bool budgets_changed = false;
  std::set<const cluster::ObjectKind*> kinds_changed;
  for (const Change& c : changes) {
    const auto what = [&c] {
      return c.kind == Kind::Node     ? std::string("node")
             : c.kind == Kind::Pod    ? std::string("pod")
             : c.kind == Kind::Object ? std::string(c.object_kind->kind)
                                      : std::string("object");
    };
    if (!c.refused.empty()) {
      spdlog::warn("cache: skipped {} {}: {}", what(), c.key, c.refused);
      continue;
    }
    try {
      switch (c.kind) {
        case Kind::Node:
          apply_node(c, out);
          break;
        case Kind::Pod:
          apply_pod(c, out);
          break;
        case Kind::Namespace: {
          const std::string name = name_of(*c.object);
          if (c.deleted) {
            namespaces_.erase(name);
          } else {
            namespaces_[name] = std::make_shared<const cluster::Namespace>(*c.object);
          }
          namespaces_changed = true;
          break;
        }
        case Kind::Object:
          apply_object(c, out);
          kinds_changed.insert(c.object_kind);
          break;
        case Kind::Budget: {
          const std::string key = kube::object_key(*c.object);
          if (c.deleted) {
            budgets_.erase(key);
          } else {
            budgets_[key] = std::make_shared<const cluster::PodDisruptionBudget>(*c.object);
          }
          budgets_changed = true;
          break;
        }
      }
    } catch (const std::exception& e) {
      spdlog::warn("cache: skipped {} {}: {}", what(), c.key, e.what());
    }
  }
  // Namespaces and budgets are few: their lists are rebuilt when one changes.
  if (namespaces_changed) {
    std::vector<std::shared_ptr<const cluster::Namespace>> list;
    for (const auto& [name, ns] : namespaces_)
      list.push_back(ns);
    snapshot_.set_namespaces(list);
    ++out.others;
  }
  if (budgets_changed) {
    std::vector<std::shared_ptr<const cluster::PodDisruptionBudget>> list;
    for (const auto& [key, pdb] : budgets_)
      list.push_back(pdb);
    snapshot_.set_pod_disruption_budgets(list);
    ++out.others;
  }
  // The other kinds are rebuilt per kind (a handful of PersistentVolumes or Services change at a
  // time; the lists are shared, immutable, by the snapshot copies).
  for (const cluster::ObjectKind* kind : kinds_changed) {
    std::vector<std::shared_ptr<const cluster::ApiObject>> list;
    for (const auto& [key, object] : objects_[kind])
      list.push_back(object);
    snapshot_.set_objects(*kind, std::move(list));
  }
  // Bindings that finished but were never confirmed (the informer never showed them bound),
  // looked for once a second as upstream's cleanupAssumedPods: this runs before every pod, and
  // hundreds of bindings can be awaiting their confirmation.
  const bool sweep = now - last_assumed_sweep_ >= std::chrono::seconds(1);
  if (sweep) last_assumed_sweep_ = now;
  for (auto it = sweep ? assumed_.begin() : assumed_.end(); it != assumed_.end();) {
    if (it->second.binding_finished && now - it->second.finished_at > kAssumedPodTtl) {
      spdlog::warn("cache: assumed pod {} expired: its binding was never confirmed", it->first);
      const cluster::NodeInfo* on = snapshot_.node_of_pod(it->first);
      ClusterEvent e = framework::assigned_pod_event(SCHEDHOST_ACTION_DELETE);
      if (on != nullptr) e.old_pod = shared_pod(*on, it->first);
      snapshot_.remove(it->first);
      ++out.pods;
      out.events.push_back(std::move(e));
      it = assumed_.erase(it);
    } else {
      ++it;
    }
  }
  // The journal would otherwise keep every pod this process ever placed (and each assumed copy).
  snapshot_.trim_journal();
  return out;
}

void LiveCluster::apply_object(const Change& c, ClusterChanges& out) {
  const cluster::ObjectKind& kind = *c.object_kind;
  auto& known = objects_[&kind];
  const std::string key = kube::object_key(*c.object);
  const auto found = known.find(key);
  std::shared_ptr<const cluster::ApiObject> old = found == known.end() ? nullptr : found->second;
  ClusterEvent event;
  if (c.deleted) {
    if (!old) return;  // never seen (or refused when it came)
    known.erase(found);
    event = framework::object_event(kind.resource, SCHEDHOST_ACTION_DELETE);
    event.old_object = std::move(old);
  } else {
    auto now = std::make_shared<const cluster::ApiObject>(kind, *c.object);
    known[key] = now;
    event = framework::object_event(kind.resource,
                                    old ? SCHEDHOST_ACTION_ANY_UPDATE : SCHEDHOST_ACTION_ADD);
    event.old_object = std::move(old);
    event.object = std::move(now);
  }
  ++out.others;
  if (kind.sends_events) out.events.push_back(std::move(event));
}

void LiveCluster::apply_node(const Change& c, ClusterChanges& out) {
  const std::string& name = c.key;
  if (c.deleted) {
    if (const cluster::NodeInfo* info = snapshot_.find(name)) {
      // Its pods stay known (upstream keeps a NodeInfo without a node for them): they come
      // back if the node does.
      for (const auto& pod : info->pods()) {
        if (assumed_.erase(pod->uid()) == 0) orphans_[name][pod->uid()] = pod;
      }
      // v1.35 tells the queue (a pod PodTopologySpread rejected may fit without the node).
      ClusterEvent e = framework::node_event(SCHEDHOST_ACTION_DELETE);
      e.old_node = std::make_shared<const cluster::NodeInfo>(info->node_ptr());
      snapshot_.remove_node(name);
      ++out.nodes;
      out.events.push_back(std::move(e));
    }
    return;
  }
  std::shared_ptr<const cluster::Node> node = c.node;
  std::vector<schedhost_action_t> actions{SCHEDHOST_ACTION_ADD};
  std::shared_ptr<const cluster::Node> old_node;
  if (const cluster::NodeInfo* info = snapshot_.find(name)) {
    old_node = info->node_ptr();
    // Parsed for the comparison and dropped: a tree kept by every node would undo keeping text.
    // The new version's tree came with an update; a node added again (a relist) is parsed.
    const std::shared_ptr<const nlohmann::json> old_json = info->node().json_tree();
    const std::shared_ptr<const nlohmann::json> new_json =
        c.object ? c.object.tree() : node->json_tree();
    actions = node_update_actions(*old_json, *new_json);
    // Status heartbeats change nothing the plugins read; an update restarts the snapshot's
    // timeline (plugins recount), so only a relevant change is applied.
    if (scheduling_relevant_change(*old_json, *new_json)) {
      snapshot_.update_node(std::move(node));
      ++out.nodes;
    }
  } else {
    snapshot_.add_node(std::move(node));
    place_orphans(name, out);
    ++out.nodes;
  }
  if (actions.empty()) return;
  const auto with_pods = std::make_shared<const cluster::NodeInfo>(*snapshot_.find(name));
  const auto without_pods =
      old_node ? std::make_shared<const cluster::NodeInfo>(old_node) : nullptr;
  for (const schedhost_action_t action : actions) {
    ClusterEvent e = framework::node_event(action);
    e.node = with_pods;
    e.old_node = without_pods;
    out.events.push_back(std::move(e));
  }
}

void LiveCluster::place_orphans(const std::string& node_name, ClusterChanges& out) {
  auto it = orphans_.find(node_name);
  if (it == orphans_.end()) return;
  for (auto& [uid, pod] : it->second) {
    snapshot_.add_pod(pod);
    ++out.pods;
  }
  orphans_.erase(it);
}

void LiveCluster::apply_pod(const Change& c, ClusterChanges& out) {
  const std::string& uid = c.uid;
  if (c.deleted) {
    assumed_.erase(uid);
    // The event carries the deleted object; the cache's own copy if the model refused that.
    const cluster::NodeInfo* on = snapshot_.node_of_pod(uid);
    std::shared_ptr<const cluster::Pod> last = c.pod;
    if (last == nullptr && on != nullptr) last = shared_pod(*on, uid);
    if (snapshot_.remove(uid)) {
      ++out.pods;
      ClusterEvent e = framework::assigned_pod_event(SCHEDHOST_ACTION_DELETE);
      e.old_pod = std::move(last);
      out.events.push_back(std::move(e));
    }
    if (auto it = orphans_.find(c.node_name); it != orphans_.end()) it->second.erase(uid);
    return;
  }
  const std::shared_ptr<const cluster::Pod>& pod = c.pod;
  const cluster::NodeInfo* placed_on = snapshot_.node_of_pod(uid);
  const bool was_assumed = assumed_.erase(uid) != 0;
  if (placed_on != nullptr && placed_on->name() == pod->node_name()) {
    // The informer's copy replaces the assumed one (a confirmation), or a newer version. Upstream
    // sees a confirmation as an assigned pod's add (it may help pods with affinity to it).
    if (was_assumed) {
      ClusterEvent e = framework::assigned_pod_event(SCHEDHOST_ACTION_ADD);
      e.pod = pod;
      out.events.push_back(std::move(e));
    } else {
      const std::shared_ptr<const cluster::Pod> old_pod = shared_pod(*placed_on, uid);
      const std::vector<schedhost_action_t> actions =
          old_pod ? pod_update_actions(*old_pod, *pod)
                  : std::vector<schedhost_action_t>{SCHEDHOST_ACTION_ANY_UPDATE};
      for (const schedhost_action_t action : actions) {
        ClusterEvent e = framework::assigned_pod_event(action);
        e.old_pod = old_pod;
        e.pod = pod;
        out.events.push_back(std::move(e));
      }
      ++out.pods;
    }
    snapshot_.replace_pod(pod);
    return;
  }
  if (placed_on != nullptr) {
    // Assumed on one node, bound to another (another scheduler won): the server is right.
    spdlog::warn("cache: pod {} was assumed on {} but is bound to {}", pod->key(),
                 placed_on->name(), pod->node_name());
    snapshot_.remove(uid);
  }
  if (snapshot_.find(pod->node_name()) == nullptr) {
    orphans_[pod->node_name()][uid] = pod;
    return;
  }
  snapshot_.add_pod(pod);
  ++out.pods;
  ClusterEvent e = framework::assigned_pod_event(SCHEDHOST_ACTION_ADD);
  e.pod = pod;
  out.events.push_back(std::move(e));
}

void LiveCluster::assumed(const std::string& uid) {
  assumed_[uid] = Assumed{};
}

void LiveCluster::binding_finished(const std::string& uid,
                                   std::chrono::steady_clock::time_point now) {
  auto it = assumed_.find(uid);
  if (it == assumed_.end()) return;
  it->second.binding_finished = true;
  it->second.finished_at = now;
}

void LiveCluster::forget(const std::string& uid) {
  assumed_.erase(uid);
}

}  // namespace schedhost::live
