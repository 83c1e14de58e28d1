#include "validator/plugin_checks.hpp"

#include <schedhost/detail/action_names.hpp>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "cluster/cluster.hpp"
#include "framework/call.hpp"
#include "framework/cluster_event.hpp"
#include "framework/plugin_host.hpp"
#include "framework/plugin_metrics.hpp"
#include "framework/status.hpp"
#include "validator/audited_state.hpp"
#include "validator/generated_cluster.hpp"
#include "validator/heap_usage.hpp"
#include "validator/validator_host_api.hpp"

namespace schedhost::validator {
namespace {

using cluster::NodeInfo;
using cluster::Pod;
using framework::Call;

const schedhost_pod_t* handle(const Pod& pod) {
  return reinterpret_cast<const schedhost_pod_t*>(&pod);
}
const schedhost_node_t* handle(const NodeInfo& node) {
  return reinterpret_cast<const schedhost_node_t*>(&node);
}
schedhost_str_t str(const std::string& s) {
  return {s.data(), s.size()};
}

std::string code_text(schedhost_code_t code) {
  if (code < SCHEDHOST_SUCCESS || code > SCHEDHOST_SKIP) return "code " + std::to_string(code);
  return std::string(framework::code_name(code));
}

// The channel and plugin name the cycle-state destroy hook reports through.
const ChildChannel* g_channel = nullptr;
std::string g_plugin;

void destroy_progress(std::string_view key) {
  if (g_channel != nullptr) {
    g_channel->progress(g_plugin + ".ops->destroy (cycle-state value \"" + std::string(key) +
                        "\")");
  }
}

class PluginChecker {
 public:
  PluginChecker(const loader::PluginDefinition& plugin, const PluginCheckOptions& options,
                const ChildChannel& channel)
      : v_(plugin.vtable),
        name_(plugin.name),
        legacy_events_(plugin.library != nullptr &&
                       plugin.library->abi_minor < framework::kFirstMinorWithV135Events),
        options_(options),
        channel_(channel),
        host_{"plugin \"" + plugin.name + "\"", framework::declared_metric_ids(plugin)} {
    scenarios_.push_back(std::make_unique<Scenario>(generated_cluster(), ""));
    if (options.user_objects) {
      scenarios_.push_back(std::make_unique<Scenario>(options.user_objects->cluster,
                                                      " [" + options.user_objects->label + "]"));
    }
    use(*scenarios_.front());
  }

  void run() {
    reset_event_tally();
    void* self = create("create", options_.args_json);
    if (self == nullptr) return;
    report("create", true, "accepted " + options_.args_json);
    if (!create_destroy_cycles()) {
      destroy(self);
      return;
    }
    self_ = self;
    const bool hints = events_to_register();
    for (const auto& scenario : scenarios_) {
      use(*scenario);
      queue_sort();
      for (const auto& pod : *pending_)
        cycle(*pod);
      if (hints) queueing_hints();
    }
    use(*scenarios_.front());
    report_tallies();
    report_events();
    report_metrics();
    report_state();
    leak_check();
    destroy(self_);
  }

 private:
  // A cluster the hooks run on: the generated one, or the author's objects.
  struct Scenario {
    Scenario(cluster::Cluster c, std::string s)
        : cluster(std::move(c)), snapshot(cluster.snapshot()), suffix(std::move(s)) {
      for (const NodeInfo& node : snapshot.node_infos())
        nodes.push_back(&node);
    }
    cluster::Cluster cluster;
    cluster::Snapshot snapshot;
    std::vector<const NodeInfo*> nodes;
    std::string suffix;  // appended to the name of every check that runs on it
  };

  void use(const Scenario& scenario) {
    snapshot_ = &scenario.snapshot;
    nodes_ = scenario.nodes;
    pending_ = &scenario.cluster.pending_pods;
    suffix_ = scenario.suffix;
  }

  struct Tally {
    std::size_t calls = 0;
    std::size_t failures = 0;
    std::size_t tolerated_errors = 0;  // PostFilter: Errors the validator's missing dry runs cause
    std::string first;
  };

  void report(const std::string& check, bool pass, const std::string& detail) const {
    channel_.check({pass, name_, check, detail});
  }

  Tally& tally(const std::string& hook) {
    const std::string check = hook + suffix_;
    auto it = std::find(order_.begin(), order_.end(), check);
    if (it == order_.end()) order_.push_back(check);
    return tallies_[check];
  }
  void fail(const std::string& check, const std::string& text) {
    Tally& t = tally(check);
    if (t.failures++ == 0) t.first = text;
  }

  void report_tallies() const {
    for (const std::string& check : order_) {
      const Tally& t = tallies_.at(check);
      if (t.failures == 0) {
        const bool errors = t.tolerated_errors > 0;
        report(check, true,
               std::to_string(t.calls) + " calls" +
                   (errors ? " (" + std::to_string(t.tolerated_errors) +
                                 " returned Error: preemption dry runs are not available here)"
                           : ""));
      } else {
        report(check, false,
               t.first + (t.failures > 1 ? " (and " + std::to_string(t.failures - 1) + " more of " +
                                               std::to_string(t.calls) + " calls)"
                                         : ""));
      }
    }
  }

  // ABI 1.9's Events: refused ones fail the check (the host would drop them).
  void report_events() const {
    const EventTally t = event_tally();
    if (t.recorded == 0 && t.refused == 0) return;
    if (t.refused == 0) {
      report("record_event", true, std::to_string(t.recorded) + " events recorded");
    } else {
      report("record_event", false,
             t.first_refusal + (t.refused > 1
                                    ? " (and " + std::to_string(t.refused - 1) + " more of " +
                                          std::to_string(t.recorded + t.refused) + ")"
                                    : ""));
    }
  }

  // "3", "0.5": as a person writes it, not std::to_string's "3.000000".
  static std::string number_text(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  }

  // ABI 1.9's metrics: what the checks' calls recorded in each, as /metrics would show it.
  void report_metrics() const {
    for (const prometheus::MetricFamily& family : framework::PluginMetrics::instance().collect()) {
      for (const prometheus::ClientMetric& m : family.metric) {
        const bool ours = std::any_of(m.label.begin(), m.label.end(), [&](const auto& l) {
          return l.name == "plugin" && l.value == name_;
        });
        if (!ours) continue;
        const std::string value = family.type == prometheus::MetricType::Histogram
                                      ? std::to_string(m.histogram.sample_count) + " observations"
                                      : "total " + number_text(m.counter.value);
        report("metric " + family.name, true, value);
      }
    }
  }

  void report_state() const {
    const StateAudit& audit = state_audit();
    const std::vector<std::string> problems = audit.problems();
    for (const std::string& p : problems) {
      std::string text = p;
      if (p.find("no destroy function") != std::string::npos) {
        text += ": " + std::to_string(audit.leaked.load()) + " value(s) leaked";
      }
      report("cycle-state", false, text);
    }
    const std::size_t written = audit.written, destroyed = audit.destroyed;
    if (written != destroyed) {
      report("cycle-state", false,
             std::to_string(written) + " values stored but " + std::to_string(destroyed) +
                 " destroyed");
    } else if (problems.empty()) {
      report("cycle-state", true,
             std::to_string(written) + " values stored (" + std::to_string(audit.cloned.load()) +
                 " by clone), each destroyed once");
    }
  }

  // Repeats the cycle of every pod, single-threaded and unchecked, and watches the heap: memory
  // that grows in two windows in a row, by more than a few bytes per cycle, is memory the plugin
  // allocates per cycle and never frees (a cycle-state value whose destroy does not free it, a
  // forgotten buffer). Warm-up rounds first, so that caches and the allocator settle.
  void leak_check() {
    constexpr int kWarmUp = 10, kWindow = 25;
    constexpr std::size_t kBytesPerRound = 64;
    for (int i = 0; i < kWarmUp; ++i)
      leak_round();
    const std::size_t start = heap_in_use();
    for (int i = 0; i < kWindow; ++i)
      leak_round();
    const std::size_t middle = heap_in_use();
    for (int i = 0; i < kWindow; ++i)
      leak_round();
    const std::size_t end = heap_in_use();
    const std::size_t cycles = 2 * kWindow * (*pending_).size();
    if (middle > start + kBytesPerRound * kWindow && end > middle + kBytesPerRound * kWindow) {
      report("leak", false,
             "the heap grew by " + std::to_string((end - start) / cycles) +
                 " bytes per scheduling cycle over " + std::to_string(cycles) +
                 " cycles: memory allocated by the plugin is never freed");
    } else {
      report("leak", true, "no heap growth over " + std::to_string(cycles) + " cycles");
    }
  }

  void leak_round() {
    for (const auto& pod : (*pending_)) {
      AuditedState state;
      auto call = [&](const std::string& hook, auto&& fn) {
        Call c(snapshot_, name_);
        progress(hook + " (leak check)" + at(*pod));
        return fn(c.handle());
      };
      bool filter_runs = true;
      if (v_.pre_filter != nullptr) {
        filter_runs = call("PreFilter", [&](schedhost_call_t* h) {
                        return v_.pre_filter(self_, h, state.handle(), handle(*pod));
                      }) == SCHEDHOST_SUCCESS;
      }
      for (const NodeInfo* node : nodes_) {
        if (!filter_runs || v_.filter == nullptr) break;
        call("Filter", [&](schedhost_call_t* h) {
          return v_.filter(self_, h, state.handle(), handle(*pod), handle(*node));
        });
      }
      std::vector<const schedhost_node_t*> handles;
      for (const NodeInfo* n : nodes_)
        handles.push_back(handle(*n));
      if (v_.pre_score != nullptr) {
        call("PreScore", [&](schedhost_call_t* h) {
          return v_.pre_score(self_, h, state.handle(), handle(*pod), handles.data(),
                              handles.size());
        });
      }
      for (const NodeInfo* node : nodes_) {
        if (v_.score == nullptr) break;
        std::int64_t value = 0;
        call("Score", [&](schedhost_call_t* h) {
          return v_.score(self_, h, state.handle(), handle(*pod), handle(*node), &value);
        });
      }
      if (v_.reserve != nullptr) {
        const std::string node = nodes_.front()->name();
        call("Reserve", [&](schedhost_call_t* h) {
          return v_.reserve(self_, h, state.handle(), handle(*pod), str(node));
        });
        if (v_.unreserve != nullptr) {
          call("Unreserve", [&](schedhost_call_t* h) {
            v_.unreserve(self_, h, state.handle(), handle(*pod), str(node));
            return SCHEDHOST_SUCCESS;
          });
        }
      }
    }
  }

  void progress(const std::string& what) const { channel_.progress(name_ + "." + what); }

  // A fresh instance, or nullptr after reporting the refusal under `check`.
  void* create(const std::string& check, const std::string& args) {
    progress("create");
    Call call;
    void* self = nullptr;
    const schedhost_code_t code =
        v_.create(validator_host_api(), host_.handle(), str(args), call.handle(), &self);
    if (code != SCHEDHOST_SUCCESS) {
      const std::string why = call.message().empty()
                                  ? "create() returned " + code_text(code) + " without a reason"
                                  : call.message();
      report(
          check, false,
          "refused args " + args + ": " + why + " (give its args with --args " + name_ + "=JSON)");
      return nullptr;
    }
    if (self == nullptr) {
      report(check, false, "create() returned Success with *out_self NULL");
      return nullptr;
    }
    return self;
  }

  void destroy(void* self) const {
    progress("destroy");
    v_.destroy(self);
  }

  bool create_destroy_cycles() {
    const std::string check = "create/destroy x" + std::to_string(options_.create_cycles);
    for (int i = 0; i < options_.create_cycles; ++i) {
      void* self = create(check, options_.args_json);
      if (self == nullptr) return false;
      destroy(self);
    }
    report(check, true, "every create succeeded");
    return true;
  }

  // Checks a status: in the ABI's range, not Error, and one this hook may return.
  void judge(const std::string& hook, schedhost_code_t code, const Call& call,
             const std::string& where, std::initializer_list<schedhost_code_t> allowed) {
    ++tally(hook).calls;
    if (code < SCHEDHOST_SUCCESS || code > SCHEDHOST_SKIP) {
      fail(hook, "returned unknown status code " + std::to_string(code) + where);
    } else if (code == SCHEDHOST_ERROR) {
      fail(hook, std::string(options_.cpp_sdk ? "threw or returned Error: " : "returned Error: ") +
                     call.message() + where);
    } else if (std::find(allowed.begin(), allowed.end(), code) == allowed.end()) {
      fail(hook, "returned " + code_text(code) + ", which " + hook + " may not return" + where);
    }
  }

  template <class Hook>
  schedhost_code_t invoke(const std::string& hook, const std::string& where, Call& call,
                          Hook&& body) {
    progress(hook + where);
    return body(call.handle());
  }

  static std::string at(const Pod& pod) { return " (pod " + pod.key() + ")"; }
  static std::string at(const Pod& pod, const NodeInfo& node) {
    return " (pod " + pod.key() + ", node " + node.name() + ")";
  }

  // Upstream v1.35's names of action bits, "|"-joined ("Update" for every update bit, "All").
  static std::string action_names(schedhost_action_t actions) {
    if (actions == SCHEDHOST_ACTION_ANY) return "All";
    std::string out;
    for (schedhost_action_t bits :
         {schedhost_action_t{SCHEDHOST_ACTION_ADD}, schedhost_action_t{SCHEDHOST_ACTION_DELETE},
          schedhost_action_t{SCHEDHOST_ACTION_ANY_UPDATE}}) {
      if ((actions & bits) != bits) continue;
      out += (out.empty() ? "" : "|") + std::string(detail::action_name(bits));
      actions &= ~bits;
    }
    for (schedhost_action_t bit = 1; bit <= SCHEDHOST_ACTION_ANY; bit <<= 1) {
      if ((actions & bit) != 0)
        out += (out.empty() ? "" : "|") + std::string(detail::action_name(bit));
    }
    return out;
  }

  // EnqueueExtensions (ABI 1.3): calls events_to_register as the host does right after create,
  // checks each registration by the host's rule and reports them. True when the queueing hint is
  // to be exercised (the plugin has one and its registrations would load).
  bool events_to_register() {
    if (v_.events_to_register == nullptr) return false;
    progress("events_to_register()");
    Call call;  // no snapshot, as in the host
    const schedhost_code_t code = v_.events_to_register(self_, call.handle());
    if (code != SCHEDHOST_SUCCESS) {
      report("events", false,
             "events_to_register() failed" +
                 (call.message().empty() ? " with code " + std::to_string(code)
                                         : ": " + call.message()) +
                 ": the host refuses the plugin");
      return false;
    }
    std::string list;
    for (auto& [resource, actions] : call.take_events()) {
      const framework::EventRegistration r{resource, actions};
      if (std::string why = framework::check_registration(r); !why.empty()) {
        report("events", false, why + ": the host refuses the plugin");
        return false;
      }
      // As the host reads it: a library built before 1.7 meant v1.28's bits.
      const framework::EventRegistration read =
          legacy_events_ ? framework::legacy_registration(r) : r;
      registrations_.push_back(read);
      list += (list.empty() ? "" : ", ") + resource + " " + action_names(read.actions);
    }
    report("events", true,
           list.empty() ? "registers none: only the periodic flush retries the pods it rejects"
                        : "registers " + list);
    return v_.queueing_hint != nullptr;
  }

  // The queueing hint on synthetic events of the scenario's nodes and running pods, for each
  // pending pod as one the plugin rejected; only the events its registrations match, as the host
  // asks. An answer must be SKIP (0) or QUEUE (1), without a reason (a C++ hint that throws
  // answers QUEUE with the exception as its reason).
  void queueing_hints() {
    static const schedhost_action_t kNodeEvents[] = {SCHEDHOST_ACTION_ADD,
                                                     SCHEDHOST_ACTION_DELETE,
                                                     SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE,
                                                     SCHEDHOST_ACTION_UPDATE_NODE_LABEL,
                                                     SCHEDHOST_ACTION_UPDATE_NODE_TAINT,
                                                     SCHEDHOST_ACTION_UPDATE_NODE_CONDITION,
                                                     SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION};
    static const schedhost_action_t kPodEvents[] = {
        SCHEDHOST_ACTION_ADD, SCHEDHOST_ACTION_UPDATE_POD_LABEL, SCHEDHOST_ACTION_ANY_UPDATE,
        SCHEDHOST_ACTION_DELETE};
    // The pending pod's own updates (ABI 1.7; never sent to a library built before it).
    static const schedhost_action_t kOwnEvents[] = {
        SCHEDHOST_ACTION_UPDATE_POD_LABEL, SCHEDHOST_ACTION_UPDATE_POD_TOLERATION,
        SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, SCHEDHOST_ACTION_ANY_UPDATE};
    const auto registered = [&](const framework::ClusterEvent& e) {
      return std::any_of(registrations_.begin(), registrations_.end(),
                         [&](const auto& r) { return framework::registration_matches(r, e); });
    };
    for (const auto& pod : *pending_) {
      for (const schedhost_action_t action : kNodeEvents) {
        const framework::ClusterEvent e = framework::node_event(action);
        const std::string& label = e.label;
        if (!registered(e)) continue;
        for (const NodeInfo* node : nodes_) {
          const NodeInfo before(node->node_ptr());  // the Node as it was: no pods
          schedhost_cluster_event_t raw = abi_event(e);
          if (e.actions != SCHEDHOST_ACTION_DELETE) raw.new_node = handle(*node);
          if (e.actions != SCHEDHOST_ACTION_ADD) raw.old_node = handle(before);
          hint(*pod, raw, " (pod " + pod->key() + ", " + label + " of node " + node->name() + ")");
        }
      }
      for (const schedhost_action_t action : kPodEvents) {
        const framework::ClusterEvent e = framework::assigned_pod_event(action);
        const std::string& label = e.label;
        if (!registered(e)) continue;
        for (const NodeInfo* node : nodes_) {
          for (const auto& other : node->pods()) {
            schedhost_cluster_event_t raw = abi_event(e);
            if (e.actions != SCHEDHOST_ACTION_ADD) raw.old_pod = handle(*other);
            if (e.actions != SCHEDHOST_ACTION_DELETE) raw.new_pod = handle(*other);
            hint(*pod, raw, " (pod " + pod->key() + ", " + label + " of pod " + other->key() + ")");
          }
        }
      }
      for (const schedhost_action_t action : kOwnEvents) {
        const framework::ClusterEvent e = framework::pending_pod_event(action);
        if (legacy_events_ || !registered(e)) continue;
        schedhost_cluster_event_t raw = abi_event(e);
        raw.old_pod = handle(*pod);
        raw.new_pod = handle(*pod);
        hint(*pod, raw, " (pod " + pod->key() + ", " + e.label + ")");
      }
    }
  }

  // As the host hands it (a library built before 1.7 sees v1.28's bits and labels); the label
  // is kept in legacy_label_ until the next call.
  schedhost_cluster_event_t abi_event(const framework::ClusterEvent& e) {
    schedhost_cluster_event_t raw{};
    raw.struct_size = sizeof raw;
    raw.resource = str(e.resource);
    raw.actions = e.actions;
    raw.label = str(e.label);
    if (legacy_events_) {
      const framework::LegacyView view = framework::legacy_view(e);
      legacy_label_ = view.label;
      raw.actions = view.actions;
      raw.label = str(legacy_label_);
    }
    return raw;
  }

  void hint(const Pod& pod, const schedhost_cluster_event_t& event, const std::string& where) {
    static const std::string check = "QueueingHint";
    progress(check + where);
    Call c;  // no snapshot, as in the host
    const schedhost_queueing_hint_t answer =
        v_.queueing_hint(self_, c.handle(), handle(pod), &event);
    ++tally(check).calls;
    if (answer != SCHEDHOST_QUEUE_SKIP && answer != SCHEDHOST_QUEUE) {
      fail(check, "answered " + std::to_string(answer) +
                      ", which is neither SKIP (0) nor QUEUE (1): the host counts it as QUEUE" +
                      where);
    } else if (!c.message().empty()) {
      fail(check, std::string(options_.cpp_sdk ? "threw: " : "failed: ") + c.message() +
                      ": the host counts it as QUEUE" + where);
    }
  }

  void queue_sort() {
    if (v_.queue_sort_less == nullptr) return;
    std::vector<schedhost_queued_pod_t> queued;
    std::int64_t t = 1'700'000'000'000;
    int i = 0;
    for (const auto& pod : (*pending_)) {
      queued.push_back({handle(*pod), t + (i / 2) * 1000, i % 3});  // pairs share a time
      ++i;
    }
    const auto& pods = (*pending_);
    for (std::size_t a = 0; a < queued.size(); ++a) {
      for (std::size_t b = a + 1; b < queued.size(); ++b) {
        const std::string pair = pods[a]->key() + ", " + pods[b]->key();
        progress("QueueSort less(" + pair + ")");
        const bool ab = v_.queue_sort_less(self_, &queued[a], &queued[b]);
        const bool ba = v_.queue_sort_less(self_, &queued[b], &queued[a]);
        tally("QueueSort").calls += 2;
        if (ab && ba) {
          fail("QueueSort", "less(" + pair + ") and less(" + pods[b]->key() + ", " +
                                pods[a]->key() + ") are both true: not antisymmetric");
        }
      }
    }
    for (std::size_t a = 0; a < queued.size(); ++a) {
      progress("QueueSort less(" + pods[a]->key() + ", itself)");
      ++tally("QueueSort").calls;
      if (v_.queue_sort_less(self_, &queued[a], &queued[a])) {
        fail("QueueSort", "less(" + pods[a]->key() + ", itself) is true: not a strict order");
      }
    }
  }

  // Runs one(i) for every node on `threads` threads at once, several rounds, and compares each
  // result with the single-threaded one.
  template <class One>
  void concurrently(const std::string& hook, const Pod& pod,
                    const std::vector<std::string>& baseline, One&& one) {
    const std::string check = hook + " on threads";
    std::mutex mutex;
    std::string mismatch;
    std::size_t calls = 0;
    for (int round = 0; round < options_.rounds && mismatch.empty(); ++round) {
      progress(hook + " on " + std::to_string(options_.threads) + " threads" + at(pod));
      std::vector<std::thread> threads;
      for (int t = 0; t < options_.threads; ++t) {
        threads.emplace_back([&, t] {
          for (std::size_t k = 0; k < nodes_.size(); ++k) {
            const std::size_t i = (k + static_cast<std::size_t>(t)) % nodes_.size();
            std::string got = one(*nodes_[i]);
            std::lock_guard lock(mutex);
            ++calls;
            if (got != baseline[i] && mismatch.empty()) {
              mismatch = "node " + nodes_[i]->name() + " of pod " + pod.key() + ": " + got +
                         " on " + std::to_string(options_.threads) + " threads, " + baseline[i] +
                         " on one thread";
            }
          }
        });
      }
      for (std::thread& th : threads)
        th.join();
    }
    tally(check).calls += calls;
    if (!mismatch.empty()) fail(check, mismatch);
  }

  std::string filter_once(AuditedState& state, const Pod& pod, const NodeInfo& node,
                          schedhost_code_t* code_out = nullptr) {
    Call c(snapshot_, name_);
    const schedhost_code_t code =
        v_.filter(self_, c.handle(), state.handle(), handle(pod), handle(node));
    if (code_out != nullptr) *code_out = code;
    return code_text(code) + (c.message().empty() ? "" : " \"" + c.message() + "\"");
  }

  std::string score_once(AuditedState& state, const Pod& pod, const NodeInfo& node,
                         std::int64_t* value_out = nullptr, Call* call_out = nullptr) {
    Call local(snapshot_, name_);
    Call& c = call_out != nullptr ? *call_out : local;
    std::int64_t value = 0;
    const schedhost_code_t code =
        v_.score(self_, c.handle(), state.handle(), handle(pod), handle(node), &value);
    if (value_out != nullptr) *value_out = value;
    return code == SCHEDHOST_SUCCESS ? "score " + std::to_string(value) : code_text(code);
  }

  void cycle(const Pod& pod) {
    using S = schedhost_code_t;
    const S kS = SCHEDHOST_SUCCESS, kU = SCHEDHOST_UNSCHEDULABLE,
            kUU = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE, kSkip = SCHEDHOST_SKIP;
    if (v_.pre_enqueue != nullptr) {
      Call c(snapshot_, name_);
      const S code = invoke("PreEnqueue", at(pod), c, [&](schedhost_call_t* h) {
        return v_.pre_enqueue(self_, h, handle(pod));
      });
      judge("PreEnqueue", code, c, at(pod), {kS, kU, kUU});
    }
    AuditedState state;
    bool filter_runs = true;
    if (v_.pre_filter != nullptr) {
      Call c(snapshot_, name_);
      const S code = invoke("PreFilter", at(pod), c, [&](schedhost_call_t* h) {
        return v_.pre_filter(self_, h, state.handle(), handle(pod));
      });
      judge("PreFilter", code, c, at(pod), {kS, kU, kUU, kSkip});
      filter_runs = code == kS;  // the framework runs no Filter after a Skip or a failure
    }
    if (filter_runs && v_.add_pod != nullptr && v_.remove_pod != nullptr) add_remove(state, pod);
    if (filter_runs && v_.filter != nullptr) filter(state, pod);
    if (v_.post_filter != nullptr) post_filter(state, pod);
    bool score_runs = true;
    if (v_.pre_score != nullptr) {
      std::vector<const schedhost_node_t*> handles;
      for (const NodeInfo* n : nodes_)
        handles.push_back(handle(*n));
      Call c(snapshot_, name_);
      const S code = invoke("PreScore", at(pod), c, [&](schedhost_call_t* h) {
        return v_.pre_score(self_, h, state.handle(), handle(pod), handles.data(), handles.size());
      });
      judge("PreScore", code, c, at(pod), {kS, kSkip});
      score_runs = code == kS;
    }
    if (score_runs && v_.score != nullptr) score(state, pod);
    binding(state, pod);
    progress("clone of the cycle state" + at(pod));
    state.clone();  // as for preemption: every value's clone runs, then its destroy
  }

  void add_remove(AuditedState& state, const Pod& pod) {
    for (const NodeInfo* node : nodes_) {
      for (const auto& other : node->pods()) {
        auto copy = state.clone();
        const std::string where =
            " (pod " + pod.key() + ", other " + other->key() + ", node " + node->name() + ")";
        Call c(snapshot_, name_);
        schedhost_code_t code = invoke("RemovePod", where, c, [&](schedhost_call_t* h) {
          return v_.remove_pod(self_, h, copy->handle(), handle(pod), handle(*other),
                               handle(*node));
        });
        judge("RemovePod", code, c, where, {SCHEDHOST_SUCCESS});
        Call c2(snapshot_, name_);
        code = invoke("AddPod", where, c2, [&](schedhost_call_t* h) {
          return v_.add_pod(self_, h, copy->handle(), handle(pod), handle(*other), handle(*node));
        });
        judge("AddPod", code, c2, where, {SCHEDHOST_SUCCESS});
      }
    }
  }

  void filter(AuditedState& state, const Pod& pod) {
    state.set_read_only("Filter");
    std::vector<std::string> baseline;
    for (const NodeInfo* node : nodes_) {
      progress("Filter" + at(pod, *node));
      Call c(snapshot_, name_);
      const schedhost_code_t code =
          v_.filter(self_, c.handle(), state.handle(), handle(pod), handle(*node));
      judge("Filter", code, c, at(pod, *node),
            {SCHEDHOST_SUCCESS, SCHEDHOST_UNSCHEDULABLE, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE});
      baseline.push_back(code_text(code) + (c.message().empty() ? "" : " \"" + c.message() + "\""));
    }
    concurrently("Filter", pod, baseline,
                 [&](const NodeInfo& node) { return filter_once(state, pod, node); });
    state.set_writable();
  }

  void post_filter(AuditedState& state, const Pod& pod) {
    static const std::string plugin = "NodeResourcesFit", message = "Insufficient cpu";
    std::vector<schedhost_node_status_t> statuses;
    for (const NodeInfo* node : nodes_) {
      statuses.push_back({str(node->name()), SCHEDHOST_UNSCHEDULABLE, str(plugin), str(message)});
    }
    Call c(snapshot_, name_);
    const schedhost_code_t code = invoke("PostFilter", at(pod), c, [&](schedhost_call_t* h) {
      return v_.post_filter(self_, h, state.handle(), handle(pod), statuses.data(),
                            statuses.size());
    });
    // The validator has no framework behind PostFilter, so dry_run_begin answers NULL: an Error
    // that follows is the validator's doing, counted but not failed.
    if (code == SCHEDHOST_ERROR) {
      Tally& t = tally("PostFilter");
      ++t.calls;
      ++t.tolerated_errors;
      return;
    }
    judge("PostFilter", code, c, at(pod),
          {SCHEDHOST_SUCCESS, SCHEDHOST_UNSCHEDULABLE, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE});
  }

  void score(AuditedState& state, const Pod& pod) {
    state.set_read_only("Score");
    std::vector<std::string> baseline;
    std::vector<std::string> names;
    std::vector<std::int64_t> values;
    bool all_ok = true;
    for (const NodeInfo* node : nodes_) {
      progress("Score" + at(pod, *node));
      Call c(snapshot_, name_);
      std::int64_t value = 0;
      baseline.push_back(score_once(state, pod, *node, &value, &c));
      judge_score_code(baseline.back(), c, pod, *node);
      if (baseline.back().rfind("score ", 0) != 0) {
        all_ok = false;
        continue;
      }
      if (v_.normalize_score == nullptr && (value < 0 || value > 100)) {
        fail("Score", "score " + std::to_string(value) + " outside 0..100 without NormalizeScore" +
                          at(pod, *node));
      }
      names.push_back(node->name());
      values.push_back(value);
    }
    concurrently("Score", pod, baseline,
                 [&](const NodeInfo& node) { return score_once(state, pod, node); });
    state.set_writable();
    if (all_ok && v_.normalize_score != nullptr) normalize(state, pod, names, values);
  }

  void judge_score_code(const std::string& result, const Call& c, const Pod& pod,
                        const NodeInfo& node) {
    ++tally("Score").calls;
    if (result.rfind("score ", 0) == 0) return;
    if (result.rfind("code ", 0) == 0) {
      fail("Score", "returned unknown status code " + result.substr(5) + at(pod, node));
    } else if (result == "Error") {
      fail("Score",
           std::string(options_.cpp_sdk ? "threw or returned Error: " : "returned Error: ") +
               c.message() + at(pod, node));
    } else {
      fail("Score", "returned " + result + ", which Score may not return" + at(pod, node));
    }
  }

  void normalize(AuditedState& state, const Pod& pod, const std::vector<std::string>& names,
                 const std::vector<std::int64_t>& values) {
    std::vector<schedhost_node_score_t> list;
    for (std::size_t i = 0; i < names.size(); ++i)
      list.push_back({str(names[i]), values[i]});
    Call c(snapshot_, name_);
    const schedhost_code_t code = invoke("NormalizeScore", at(pod), c, [&](schedhost_call_t* h) {
      return v_.normalize_score(self_, h, state.handle(), handle(pod), list.data(), list.size());
    });
    judge("NormalizeScore", code, c, at(pod), {SCHEDHOST_SUCCESS});
    if (code != SCHEDHOST_SUCCESS) return;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string_view got(list[i].node_name.data == nullptr ? "" : list[i].node_name.data,
                                 list[i].node_name.data == nullptr ? 0 : list[i].node_name.len);
      if (got != names[i]) {
        fail("NormalizeScore", "changed the node list: entry " + std::to_string(i) + " is \"" +
                                   std::string(got) + "\", was \"" + names[i] + "\"" + at(pod));
      } else if (list[i].score < 0 || list[i].score > 100) {
        fail("NormalizeScore", "score " + std::to_string(list[i].score) + " for node " + names[i] +
                                   " outside 0..100 after NormalizeScore" + at(pod));
      }
    }
  }

  void binding(AuditedState& state, const Pod& pod) {
    const std::string node = nodes_.front()->name();
    const std::string where = " (pod " + pod.key() + ", node " + node + ")";
    const schedhost_code_t kS = SCHEDHOST_SUCCESS, kU = SCHEDHOST_UNSCHEDULABLE,
                           kUU = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    auto point = [&](const std::string& hook, auto fn, std::initializer_list<schedhost_code_t> ok) {
      Call c(snapshot_, name_);
      const schedhost_code_t code = invoke(hook, where, c, fn);
      judge(hook, code, c, where, ok);
    };
    if (v_.reserve != nullptr) {
      point("Reserve",
            [&](schedhost_call_t* h) {
              return v_.reserve(self_, h, state.handle(), handle(pod), str(node));
            },
            {kS, kU, kUU});
    }
    if (v_.permit != nullptr) {
      std::uint32_t timeout = 0;
      point("Permit",
            [&](schedhost_call_t* h) {
              return v_.permit(self_, h, state.handle(), handle(pod), str(node), &timeout);
            },
            {kS, kU, kUU, SCHEDHOST_WAIT});
    }
    if (v_.pre_bind != nullptr) {
      point("PreBind",
            [&](schedhost_call_t* h) {
              return v_.pre_bind(self_, h, state.handle(), handle(pod), str(node));
            },
            {kS, kU, kUU});
    }
    if (v_.bind != nullptr) {
      point("Bind",
            [&](schedhost_call_t* h) {
              return v_.bind(self_, h, state.handle(), handle(pod), str(node));
            },
            {kS, kU, kUU, SCHEDHOST_SKIP});
    }
    if (v_.post_bind != nullptr) {
      Call c(snapshot_, name_);
      progress("PostBind" + where);
      v_.post_bind(self_, c.handle(), state.handle(), handle(pod), str(node));
      ++tally("PostBind").calls;
    }
    if (v_.unreserve != nullptr) {
      for (int i = 0; i < 2; ++i) {  // Unreserve must be idempotent
        Call c(snapshot_, name_);
        progress("Unreserve" + where);
        v_.unreserve(self_, c.handle(), state.handle(), handle(pod), str(node));
        ++tally("Unreserve").calls;
      }
    }
  }

  const schedhost_plugin_vtable_t& v_;
  const std::string name_;
  const bool legacy_events_;  // built against ABI 1.3-1.6: v1.28's event bits
  const PluginCheckOptions& options_;
  const ChildChannel& channel_;
  framework::PluginHost host_;  // outlives every instance: a plugin may keep the handle
  std::vector<std::unique_ptr<Scenario>> scenarios_;  // the generated cluster first
  // The scenario the hooks run on now (use()).
  const cluster::Snapshot* snapshot_ = nullptr;
  std::vector<const NodeInfo*> nodes_;
  const std::vector<std::shared_ptr<const Pod>>* pending_ = nullptr;
  std::string suffix_;
  void* self_ = nullptr;
  std::vector<framework::EventRegistration> registrations_;  // events_to_register()
  std::string legacy_label_;
  std::vector<std::string> order_;  // checks in the order they first ran
  std::map<std::string, Tally> tallies_;
};

}  // namespace

void check_plugin(const loader::PluginDefinition& plugin, const PluginCheckOptions& options,
                  const ChildChannel& channel) {
  g_channel = &channel;
  g_plugin = plugin.name;
  set_destroy_progress(&destroy_progress);
  PluginChecker(plugin, options, channel).run();
}

}  // namespace schedhost::validator
