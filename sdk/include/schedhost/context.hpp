// schedhost/context.hpp - the current call: the snapshot it sees (nodes, namespaces,
// PodDisruptionBudgets, the objects of other kinds), the pods waiting at Permit, and for PostFilter
// the preemption tools (dry runs, parallel_for, the run's random numbers). Valid until the hook
// returns, on the hook's thread ([call]).
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/host_table.hpp>
#include <schedhost/dry_run.hpp>
#include <schedhost/objects.hpp>
#include <schedhost/status.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost {

// A node where preemption would make room for the pod, and what it would cost there.
struct PreemptionCandidate {
  std::string node;
  std::vector<std::string> victims;  // pod uids, most important first
  std::int64_t pdb_violations = 0;   // victims whose PodDisruptionBudget the eviction violates
};

class Context {
 public:
  Context(const schedhost_host_api_t* api, schedhost_call_t* call) : api_(api), call_(call) {}

  // Every node of the snapshot, in snapshot order.
  auto nodes() const {
    return make_index_range<NodeInfo>(api_->snapshot_node_count(call_),
                                      [api = api_, call = call_](std::size_t i) {
                                        return NodeInfo(api, api->snapshot_node_at(call, i));
                                      });
  }
  // The nodes holding at least one pod of that kind (ALL: any pod), in snapshot order: upstream's
  // HavePodsWithAffinityList and HavePodsWithRequiredAntiAffinityList. A host older than ABI 1.1
  // has no such list; then every node is visited and the ones without such pods are skipped.
  auto nodes_with_pods(schedhost_node_pods_t which) const {
    auto count = detail::host_fn(api_, &schedhost_host_api_t::snapshot_nodes_with_pods_count);
    auto at = detail::host_fn(api_, &schedhost_host_api_t::snapshot_nodes_with_pods_at);
    std::shared_ptr<std::vector<const schedhost_node_t*>> fallback;
    if (count == nullptr || at == nullptr) {
      fallback = std::make_shared<std::vector<const schedhost_node_t*>>();
      for (std::size_t i = 0, n = api_->snapshot_node_count(call_); i < n; ++i) {
        const schedhost_node_t* node = api_->snapshot_node_at(call_, i);
        if (api_->node_pod_count(node, which) != 0) fallback->push_back(node);
      }
    }
    return make_index_range<NodeInfo>(
        fallback ? fallback->size() : count(call_, which),
        [api = api_, call = call_, at, which, fallback](std::size_t i) {
          return NodeInfo(api, fallback ? (*fallback)[i] : at(call, which, i));
        });
  }
  // Where the snapshot stands, for data a plugin keeps across cycles (ABI 1.2): tag the data
  // with this, and before using it again replay the changes made since (for_each_change). An id
  // of 0 means the host keeps no journal (older than 1.2): recompute every cycle.
  struct SnapshotVersion {
    std::uint64_t id = 0;
    std::uint64_t revision = 0;
  };
  SnapshotVersion snapshot_version() const {
    auto id = detail::host_fn(api_, &schedhost_host_api_t::snapshot_id);
    auto revision = detail::host_fn(api_, &schedhost_host_api_t::snapshot_revision);
    if (id == nullptr || revision == nullptr) return {};
    return {id(call_), revision(call_)};
  }
  // Calls fn(Pod, node_index, delta) for the changes [from, to) of the snapshot, in order: delta
  // +1 when the pod was placed on node nodes()[node_index], -1 when it was removed from it.
  template <class Fn>
  void for_each_change(std::uint64_t from, std::uint64_t to, Fn&& fn) const {
    auto at = detail::host_fn(api_, &schedhost_host_api_t::snapshot_change_at);
    if (at == nullptr) return;
    for (std::uint64_t k = from; k < to; ++k) {
      const schedhost_pod_t* pod = nullptr;
      std::size_t node_index = 0;
      const std::int32_t delta = at(call_, k, &pod, &node_index);
      if (delta != 0) fn(Pod(api_, pod), node_index, delta);
    }
  }
  std::optional<NodeInfo> node(std::string_view name) const {
    const schedhost_node_t* node = api_->snapshot_node_get(call_, to_str(name));
    if (node == nullptr) return std::nullopt;
    return NodeInfo(api_, node);
  }

  // The names of the snapshot's Namespace objects, in snapshot order (empty on a host without
  // namespace support).
  auto namespaces() const {
    auto count = detail::host_fn(api_, &schedhost_host_api_t::namespace_count);
    auto at = detail::host_fn(api_, &schedhost_host_api_t::namespace_name_at);
    return make_index_range<std::string_view>(
        count == nullptr || at == nullptr ? 0 : count(call_),
        [at, call = call_](std::size_t i) { return to_view(at(call, i)); });
  }
  // The labels of namespace ns, in key order; empty when it has no Namespace object (or the host
  // predates namespace support).
  auto namespace_labels(std::string_view ns) const {
    auto count = detail::host_fn(api_, &schedhost_host_api_t::namespace_label_count);
    auto at = detail::host_fn(api_, &schedhost_host_api_t::namespace_label_at);
    return make_index_range<KeyValue>(
        count == nullptr || at == nullptr ? 0 : count(call_, to_str(ns)),
        [at, call = call_, ns](std::size_t i) {
          schedhost_str_t k{}, v{};
          at(call, to_str(ns), i, &k, &v);
          return KeyValue{to_view(k), to_view(v)};
        });
  }
  // One label of namespace ns; nullopt when absent.
  std::optional<std::string_view> namespace_label(std::string_view ns, std::string_view key) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::namespace_label_get);
    schedhost_str_t out{};
    if (fn == nullptr || !fn(call_, to_str(ns), to_str(key), &out)) return std::nullopt;
    return to_view(out);
  }

  // The snapshot's objects of `resource` (ABI 1.8; a resource:: name such as
  // resource::kPersistentVolume) in namespace ns ("" for every namespace, and for cluster-scoped
  // kinds), ordered by namespace then name. Empty on an older host.
  auto objects(std::string_view resource_name, std::string_view ns = {}) const {
    auto count = detail::host_fn(api_, &schedhost_host_api_t::object_count);
    auto at = detail::host_fn(api_, &schedhost_host_api_t::object_at);
    return make_index_range<Object>(
        count == nullptr || at == nullptr ? 0 : count(call_, to_str(resource_name), to_str(ns)),
        [api = api_, call = call_, at, resource_name, ns](std::size_t i) {
          return Object(api, at(call, to_str(resource_name), to_str(ns), i));
        });
  }
  // One object by namespace ("" for a cluster-scoped kind) and name; nullopt when absent.
  std::optional<Object> object(std::string_view resource_name, std::string_view ns,
                               std::string_view name) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::object_get);
    const schedhost_object_t* o =
        fn == nullptr ? nullptr : fn(call_, to_str(resource_name), to_str(ns), to_str(name));
    if (o == nullptr) return std::nullopt;
    return Object(api_, o);
  }
  // The objects of `resource` in namespace ns ("" for every namespace) whose labels match
  // `selector`, in Kubernetes' syntax ("app=web,tier in (a,b),!canary"; "" for all), in objects()'
  // order (ABI 1.9: a lister's List(selector)). Throws std::invalid_argument when the selector
  // does not parse, or on a host older than 1.9.
  std::vector<Object> select(std::string_view resource_name, std::string_view ns,
                             std::string_view selector) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::object_select);
    if (fn == nullptr) throw std::invalid_argument("select: this host predates ABI 1.9");
    std::vector<const schedhost_object_t*> found(16);
    for (;;) {
      std::size_t count = 0;
      schedhost_str_t error{nullptr, 0};
      if (fn(call_, to_str(resource_name), to_str(ns), to_str(selector), found.data(), found.size(),
             &count, &error) != SCHEDHOST_SUCCESS) {
        throw std::invalid_argument(std::string(to_view(error)));
      }
      if (count <= found.size()) {
        std::vector<Object> out;
        out.reserve(count);
        for (std::size_t i = 0; i < count; ++i)
          out.emplace_back(api_, found[i]);
        return out;
      }
      found.resize(count);  // the list grew past the first guess: ask again for all of it
    }
  }

  // Records an Event about pod (ABI 1.9), as upstream's EventRecorder.Eventf: type "Normal" or
  // "Warning", reason UpperCamelCase, message one line. In serve an Event through the host's
  // recorder; in run the pod's result lists it. False when the host refused it (another type, no
  // reason) or predates 1.9.
  bool record_event(const Pod& pod, std::string_view type, std::string_view reason,
                    std::string_view message) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::record_event);
    return fn != nullptr && fn(call_, pod.handle(), to_str(type), to_str(reason), to_str(message));
  }

  // How many pods placed on the snapshot's nodes mount PersistentVolumeClaim ns/claim (upstream's
  // usedPVCSet; 0 on a host older than ABI 1.8).
  std::size_t pvc_users(std::string_view ns, std::string_view claim) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::snapshot_pvc_users);
    return fn == nullptr ? 0 : fn(call_, to_str(ns), to_str(claim));
  }

  // One request to the API server (ABI 1.8), from PreBind, Bind, PostBind or Unreserve in
  // `serve`: the scheduler's credentials and rate limits. answered(): the server answered (any
  // status, in `status`, with its `body`). no_api_server: the process has none (`run`): nothing
  // was sent, act as if the write was made. Otherwise `error` says why nothing was sent (another
  // hook, no answer, a host older than 1.8). Views valid until the hook returns.
  struct ApiResponse {
    std::int32_t status = 0;
    std::string_view body;
    std::string error;
    bool no_api_server = false;
    bool answered() const { return error.empty() && !no_api_server; }
  };
  ApiResponse api_request(std::string_view verb, std::string_view path, std::string_view body = {},
                          std::string_view content_type = {}) const {
    ApiResponse r;
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::api_request);
    if (fn == nullptr) {
      r.error = "api_request: this host predates ABI 1.8";
      return r;
    }
    schedhost_str_t out{nullptr, 0};
    const schedhost_code_t code =
        fn(call_, to_str(verb), to_str(path), to_str(content_type), to_str(body), &r.status, &out);
    if (code == SCHEDHOST_SKIP) {
      r.no_api_server = true;
      return r;
    }
    if (code != SCHEDHOST_SUCCESS) {
      r.error = std::string(to_view(out));
      if (r.error.empty()) r.error = "api_request failed";
      return r;
    }
    r.body = to_view(out);
    return r;
  }

  // Pods currently waiting at Permit.
  auto waiting_pods() const {
    auto count = detail::host_fn(api_, &schedhost_host_api_t::waiting_pod_count);
    return make_index_range<Pod>(count == nullptr ? 0 : count(call_),
                                 [api = api_, call = call_](std::size_t i) {
                                   return Pod(api, api->waiting_pod_at(call, i));
                                 });
  }
  // Ends this plugin's wait on a waiting pod; false if no such pod is waiting.
  bool allow_waiting_pod(std::string_view uid) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::waiting_pod_allow);
    return fn != nullptr && fn(call_, to_str(uid));
  }
  bool reject_waiting_pod(std::string_view uid, std::string_view message) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::waiting_pod_reject);
    return fn != nullptr && fn(call_, to_str(uid), to_str(message));
  }

  // The cluster's PodDisruptionBudgets: how many, and any field of one as JSON by RFC 6901
  // pointer (nullopt when absent, or on a host that predates them).
  std::size_t pod_disruption_budget_count() const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::pdb_count);
    return fn == nullptr ? 0 : fn(call_);
  }
  std::optional<std::string_view> pod_disruption_budget_json(std::size_t index,
                                                             std::string_view pointer) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::pdb_json);
    schedhost_str_t out{};
    if (fn == nullptr || !fn(call_, index, to_str(pointer), &out)) return std::nullopt;
    return to_view(out);
  }

  // -- PostFilter only (elsewhere: no dry runs, random() is 0; parallel_for also runs on the
  // host's threads in PreFilter and PreScore, and inline anywhere else) --

  // A number from the run's seeded generator, so a run with the same --seed replays.
  std::uint64_t random() const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::random);
    return fn == nullptr ? 0 : fn(call_);
  }
  // Calls body(i) for i in [0, count) on the host's worker threads; returns when all are done.
  // The first exception a body throws is rethrown here, after the others finished.
  template <class Body>
  void parallel_for(std::size_t count, Body&& body) const {
    struct Job {
      Body& body;
      std::mutex mutex;
      std::exception_ptr error;
    } job{body, {}, {}};
    auto run = [](void* ctx, std::size_t i) {
      Job& j = *static_cast<Job*>(ctx);
      try {
        j.body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(j.mutex);
        if (!j.error) j.error = std::current_exception();
      }
    };
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::parallel_for);
    if (fn != nullptr) {
      fn(call_, count, run, &job);
    } else {
      for (std::size_t i = 0; i < count; ++i)
        run(&job, i);
    }
    if (job.error) std::rethrow_exception(job.error);
  }
  // A dry run on a copy of node `name` (see dry_run.hpp); nullopt outside PostFilter, for an
  // unknown node, or when a cycle state value cannot be cloned.
  std::optional<DryRun> dry_run(std::string_view name) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::dry_run_begin);
    schedhost_dry_run_t* run = fn == nullptr ? nullptr : fn(call_, to_str(name));
    if (run == nullptr) return std::nullopt;
    return std::optional<DryRun>(std::in_place, api_, run);
  }

  // PostFilter: offers the candidates to the profile's extenders with a preemptVerb (ABI 1.5);
  // on success `candidates` holds what they kept, in order (maybe none, maybe other victims). An
  // Error carries a non-ignorable extender's failure. A host older than 1.5 keeps them all.
  Status process_preemption(std::vector<PreemptionCandidate>& candidates) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::process_preemption);
    if (fn == nullptr || candidates.empty()) return Status::Success();
    std::vector<std::vector<schedhost_str_t>> uids(candidates.size());
    std::vector<schedhost_preemption_candidate_t> offered(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      for (const std::string& uid : candidates[i].victims)
        uids[i].push_back(to_str(uid));
      offered[i] = {to_str(candidates[i].node), uids[i].data(), uids[i].size(),
                    candidates[i].pdb_violations};
    }
    std::size_t kept = 0;
    schedhost_str_t error{nullptr, 0};
    if (fn(call_, offered.data(), offered.size(), &kept, &error) != SCHEDHOST_SUCCESS) {
      return Status::Error(std::string(error.data == nullptr ? "" : error.data, error.len));
    }
    std::vector<PreemptionCandidate> out;
    for (std::size_t i = 0; i < kept && i < offered.size(); ++i) {
      PreemptionCandidate c{std::string(offered[i].node_name.data, offered[i].node_name.len),
                            {},
                            offered[i].pdb_violations};
      for (std::size_t v = 0; v < offered[i].victim_count; ++v)
        c.victims.emplace_back(offered[i].victim_uids[v].data, offered[i].victim_uids[v].len);
      out.push_back(std::move(c));
    }
    candidates = std::move(out);
    return Status::Success();
  }

  const schedhost_host_api_t* api() const { return api_; }
  schedhost_call_t* handle() const { return call_; }

 private:
  const schedhost_host_api_t* api_;
  schedhost_call_t* call_;
};

}  // namespace schedhost
