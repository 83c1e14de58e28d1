#include "framework/framework.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <utility>

#include "common/input_error.hpp"
#include "common/plugin_search.hpp"
#include "framework/call.hpp"
#include "framework/hook_activity.hpp"
#include "framework/hook_loop.hpp"
#include "framework/post_filter_scope.hpp"

namespace schedhost::framework {
namespace {

using cluster::NodeInfo;
using cluster::Pod;

const schedhost_pod_t* handle(const Pod& p) {
  return reinterpret_cast<const schedhost_pod_t*>(&p);
}
const schedhost_node_t* handle(const NodeInfo& n) {
  return reinterpret_cast<const schedhost_node_t*>(&n);
}
schedhost_str_t str(const std::string& s) {
  return {s.data(), s.size()};
}

std::string in_quotes(const std::string& s) {
  return "\"" + s + "\"";
}

// A failure wrapped the way upstream wraps errors of that point.
Status wrapped(const Status& s, const std::string& prefix) {
  return Status::error(prefix + ": " + s.message(), s.plugin);
}

// Creates one plugin with the profile's args for it. A refusal names the pluginConfig entry
// (file:line:column) when the profile came from a file.
std::unique_ptr<PluginInstance> create_instance(const config::Profile& profile,
                                                const loader::PluginDefinition& def) {
  // Invalid UTF-8 in args is replaced rather than thrown on: the plugin judges its args.
  const std::string args =
      profile.args_for(def.name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  try {
    return PluginInstance::create(def, args);
  } catch (const InputError& e) {
    auto where = profile.plugin_config_locations.find(def.name);
    if (where == profile.plugin_config_locations.end() || !where->second.known()) throw;
    throw InputError(where->second.to_string() + ": " + e.what());
  }
}

}  // namespace

Framework::Framework(const config::Profile& profile, const loader::PluginRegistry& registry)
    : name_(profile.scheduler_name), percentage_(profile.percentage_of_nodes_to_score) {
  std::vector<std::string> created;  // instance names, parallel to instances_
  for (ExtensionPoint point : kAllExtensionPoints) {
    for (const config::EnabledPlugin& e : profile.enabled_at(point)) {
      auto it = std::find(created.begin(), created.end(), e.name);
      if (it == created.end()) {
        const loader::PluginDefinition* def = registry.find(e.name);
        if (def == nullptr) {
          throw InputError("profile " + in_quotes(name_) + ": " +
                           not_installed_message(e.name, registry.names(), registry.searched(),
                                                 "put its .so in a --plugin-dir, or remove it"));
        }
        instances_.push_back(create_instance(profile, *def));
        created.push_back(e.name);
        it = created.end() - 1;
      }
      points_[index(point)].push_back(
          {static_cast<std::size_t>(it - created.begin()), std::max(e.weight, 1)});
    }
  }
  // Upstream's computeBatchablePlugins: the plugins that decide where a pod fits must all sign.
  for (ExtensionPoint point : {ExtensionPoint::PreFilter, ExtensionPoint::Filter,
                               ExtensionPoint::PreScore, ExtensionPoint::Score}) {
    for (const Enabled& e : points_[index(point)]) {
      if (std::find(signers_.begin(), signers_.end(), e.instance) != signers_.end()) continue;
      const PluginInstance& p = plugin(e);
      if (p.vtable().sign_pod != nullptr) {
        signers_.push_back(e.instance);
      } else if (std::find(unsigned_plugins_.begin(), unsigned_plugins_.end(), p.name()) ==
                 unsigned_plugins_.end()) {
        unsigned_plugins_.push_back(p.name());
      }
    }
  }
  std::sort(unsigned_plugins_.begin(), unsigned_plugins_.end());
  if (!unsigned_plugins_.empty()) signers_.clear();
}

std::optional<CycleContext> CycleContext::clone() const {
  std::unique_ptr<CycleState> copy = state.clone();
  if (!copy) return std::nullopt;
  return CycleContext{std::move(*copy), skip_filter, skip_score, skip_pre_bind,
                      sample_plugin_metrics};
}

CycleContext Framework::new_cycle() const {
  CycleContext c;
  c.skip_filter.assign(instances_.size(), false);
  c.skip_score.assign(instances_.size(), false);
  c.skip_pre_bind.assign(instances_.size(), false);
  if (metrics_ != nullptr) {
    // As upstream's pluginMetricsSamplePercent: timing every hook would cost more than many hooks.
    thread_local std::minstd_rand random{std::random_device{}()};
    c.sample_plugin_metrics = random() % 100 < sample_percent_;
  }
  return c;
}

void Framework::set_environment(const cluster::Snapshot* snapshot, WaitingPods* waiting_pods,
                                Parallelizer* parallelizer, const NominatedPods* nominated_pods) {
  snapshot_ = snapshot;
  waiting_pods_ = waiting_pods;
  parallelizer_ = parallelizer;
  nominated_pods_ = nominated_pods;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

schedhost_code_t code_of(const Status& s) {
  return s.code;
}
template <class Outcome>
schedhost_code_t code_of(const Outcome& o) {
  return o.status.code;
}
// A signature: Success when the pod was signed, Unschedulable when it was not.
schedhost_code_t code_of(const std::optional<std::string>& signature) {
  return signature ? SCHEDHOST_SUCCESS : SCHEDHOST_UNSCHEDULABLE;
}

}  // namespace

template <class Hook>
schedhost_code_t Framework::invoke(Call& c, const PluginInstance& plugin, const CallSite& site,
                                   bool sampled, Hook&& hook, HookLoop* loop) const {
  c.reset(plugin.name());
  // Every hook may record Events (ABI 1.9 record_event) but sign_pod.
  c.set_events(std::string_view(site.hook) == "Sign" ? nullptr : events_);
  std::optional<HookActivity::Scope> activity;
  std::optional<PluginCallScope> scope;
  if (loop != nullptr) {
    loop->enter(plugin.definition());
  } else {
    activity.emplace(plugin.definition(), site.hook);
    scope.emplace(plugin.definition(), site);
  }
  if (!sampled) return hook(plugin.vtable(), plugin.self(), c.handle());
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = loop != nullptr ? loop->lap_start() : Clock::now();
  const schedhost_code_t code = hook(plugin.vtable(), plugin.self(), c.handle());
  const Clock::time_point end = loop != nullptr ? loop->lap_end() : Clock::now();
  const bool known = code >= SCHEDHOST_SUCCESS && code <= SCHEDHOST_SKIP;
  metrics_->plugin_execution(plugin.name(), metric_label(site.hook), known ? code : SCHEDHOST_ERROR,
                             std::chrono::duration<double>(end - start).count());
  return code;
}

template <class Hook>
Status Framework::call(const PluginInstance& plugin, const CallSite& site, bool sampled,
                       Hook&& hook) const {
  Call c(snapshot_, plugin.name(), waiting_pods_);
  // The hooks upstream lets block may call the API server (api_request).
  const std::string_view hook_name(site.hook);
  if (hook_name == "PreBind" || hook_name == "Bind" || hook_name == "PostBind" ||
      hook_name == "Unreserve") {
    c.set_may_block();
    c.set_api(api_);
  }
  return to_status(c, plugin, invoke(c, plugin, site, sampled, std::forward<Hook>(hook)));
}

template <class Body>
auto Framework::timed(std::string_view point, Body&& body) const {
  if (metrics_ == nullptr) return body();
  const auto start = std::chrono::steady_clock::now();
  auto result = body();
  metrics_->extension_point(name_, point, code_of(result), seconds_since(start));
  return result;
}

void Framework::fault(const PluginInstance& plugin, PluginFault kind) const {
  if (metrics_ != nullptr) metrics_->plugin_fault(plugin.name(), kind);
}

Status Framework::to_status(Call& c, const PluginInstance& plugin, schedhost_code_t code) const {
  if (code < SCHEDHOST_SUCCESS || code > SCHEDHOST_SKIP) {
    fault(plugin, PluginFault::BadCode);
    return Status::error("plugin " + in_quotes(plugin.name()) + " returned unknown status code " +
                             std::to_string(code),
                         plugin.name());
  }
  if (c.exception()) fault(plugin, PluginFault::Exception);
  Status s;
  s.code = code;
  s.reasons = c.take_reasons();
  if (code != SCHEDHOST_SUCCESS) s.plugin = plugin.name();
  return s;
}

Status Framework::run_pre_enqueue(const Pod& pod) const {
  for (const Enabled& e : points_[index(ExtensionPoint::PreEnqueue)]) {
    Status s = call(plugin(e), {"PreEnqueue", &pod}, false,
                    [&](const auto& v, void* self, schedhost_call_t* c) {
                      return v.pre_enqueue(self, c, handle(pod));
                    });
    if (!s.ok()) return s;
  }
  return {};
}

bool Framework::worth_requeuing(const Pod& pod, const std::set<std::string>& rejected_by,
                                const ClusterEvent& event) const {
  if (rejected_by.empty() || event.resource == kAnyResource) return true;
  for (const std::string& name : rejected_by) {
    const auto it = std::find_if(instances_.begin(), instances_.end(),
                                 [&](const auto& i) { return i->name() == name; });
    // Not a plugin of this profile ("PreEnqueue" for a pod gated without a plugin name): safe.
    if (it == instances_.end()) return true;
    if ((*it)->worth_requeuing(pod, event)) return true;
  }
  return false;
}

bool Framework::interested_in(const ClusterEvent& event) const {
  return event.resource == kAnyResource ||
         std::any_of(instances_.begin(), instances_.end(),
                     [&](const auto& i) { return i->registered_for(event); });
}

bool Framework::less(const schedhost_queued_pod_t& a, const schedhost_queued_pod_t& b) const {
  const auto& sorters = points_[index(ExtensionPoint::QueueSort)];
  if (sorters.empty()) return false;
  const PluginInstance& p = plugin(sorters.front());
  const PluginCallScope scope(p.definition(), {"QueueSort"});
  return p.vtable().queue_sort_less(p.self(), &a, &b);
}

std::string go_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items)
    out += (out.size() == 1 ? "" : " ") + item;
  return out + "]";
}

PreFilterOutcome Framework::run_pre_filter(CycleContext& cycle, const Pod& pod) const {
  return timed("PreFilter", [&]() -> PreFilterOutcome {
    PreFilterOutcome out;
    // Upstream v1.35: an Unschedulable PreFilter does not stop the others (preemption may still
    // run, and needs their state); the last one is the answer. UnschedulableAndUnresolvable
    // and errors stop at once.
    std::optional<Status> unschedulable;
    for (const Enabled& e : points_[index(ExtensionPoint::PreFilter)]) {
      const PluginInstance& p = plugin(e);
      std::optional<std::vector<std::string>> names;
      Status s = call(p, {"PreFilter", &pod}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        // PreFilter runs on the scheduling thread, outside any parallel loop: it
                        // may use the pool.
                        Call::from(h).set_parallelizer(parallelizer_);
                        const schedhost_code_t code =
                            v.pre_filter(self, h, cycle.state.handle(), handle(pod));
                        names = Call::from(h).node_names();
                        return code;
                      });
      if (s.skipped()) {
        cycle.skip_filter[e.instance] = true;
        continue;
      }
      if (s.code == SCHEDHOST_UNSCHEDULABLE) {
        unschedulable = std::move(s);
        continue;
      }
      if (s.rejected()) {
        out.status = std::move(s);
        return out;
      }
      if (!s.ok()) {
        out.status = wrapped(s, "running PreFilter plugin " + in_quotes(p.name()));
        return out;
      }
      if (!names) continue;
      out.narrowing.insert(std::upper_bound(out.narrowing.begin(), out.narrowing.end(), p.name()),
                           p.name());
      std::sort(names->begin(), names->end());
      names->erase(std::unique(names->begin(), names->end()), names->end());
      if (!out.node_names) {
        out.node_names = std::move(names);
      } else {
        std::vector<std::string> both;
        std::set_intersection(out.node_names->begin(), out.node_names->end(), names->begin(),
                              names->end(), std::back_inserter(both));
        out.node_names = std::move(both);
      }
      if (out.node_names->empty()) {
        std::string message;
        if (out.narrowing.size() == 1) {
          message = "node(s) didn't satisfy plugin " + out.narrowing.front();
        } else {
          message =
              "node(s) didn't satisfy plugin(s) " + go_list(out.narrowing) + " simultaneously";
        }
        out.status = {SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE, {message}, {}};
        return out;
      }
    }
    if (unschedulable) out.status = std::move(*unschedulable);
    return out;
  });
}

Status Framework::run_filter(const CycleContext& cycle, const Pod& pod,
                             const NodeInfo& node) const {
  Call c(snapshot_, {}, waiting_pods_);
  const CallSite site{"Filter", &pod, nullptr, &node};
  std::optional<HookLoop> loop;
  for (const Enabled& e : points_[index(ExtensionPoint::Filter)]) {
    if (cycle.skip_filter[e.instance]) continue;
    const PluginInstance& p = plugin(e);
    if (!loop) loop.emplace(p.definition(), site);
    const schedhost_code_t code = invoke(
        c, p, site, cycle.sample_plugin_metrics,
        [&](const auto& v, void* self, schedhost_call_t* h) {
          return v.filter(self, h, cycle.state.handle(), handle(pod), handle(node));
        },
        &*loop);
    if (code == SCHEDHOST_SUCCESS) continue;
    Status s = to_status(c, p, code);
    if (s.rejected()) return s;
    // Anything else is an error that aborts the cycle, whatever code the plugin used.
    return wrapped(s, "running " + in_quotes(p.name()) + " filter plugin");
  }
  return {};
}

bool Framework::enables(std::string_view name, ExtensionPoint point) const {
  const auto& enabled = points_[index(point)];
  return std::any_of(enabled.begin(), enabled.end(),
                     [&](const Enabled& e) { return plugin(e).name() == name; });
}

PostFilterOutcome Framework::run_post_filter(CycleContext& cycle, const Pod& pod,
                                             const std::vector<schedhost_node_status_t>& statuses,
                                             Parallelizer* parallelizer,
                                             std::function<std::uint64_t()> random,
                                             const PreemptionExtenders* extenders) const {
  return timed("PostFilter", [&]() -> PostFilterOutcome {
    const PostFilterScope scope{this, &cycle, &pod, parallelizer, std::move(random), extenders};
    PostFilterOutcome out;
    out.status = {SCHEDHOST_UNSCHEDULABLE, {}, {}};
    std::vector<std::string> reasons;
    for (const Enabled& e : points_[index(ExtensionPoint::PostFilter)]) {
      const PluginInstance& p = plugin(e);
      std::optional<std::string> nominated;
      std::vector<std::string> victims;
      Status s = call(p, {"PostFilter", &pod}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        Call::from(h).set_post_filter_scope(&scope);
                        const schedhost_code_t code =
                            v.post_filter(self, h, cycle.state.handle(), handle(pod),
                                          statuses.data(), statuses.size());
                        nominated = Call::from(h).nominated_node();
                        victims = Call::from(h).take_victims();
                        return code;
                      });
      if (s.ok()) {
        out.status = std::move(s);
        out.nominated_node = std::move(nominated);
        out.victims = std::move(victims);
        out.plugin = p.name();
        return out;
      }
      if (s.code == SCHEDHOST_UNSCHEDULABLE) {
        reasons.insert(reasons.end(), s.reasons.begin(), s.reasons.end());
        // A rejection may still set the nomination (upstream: "" clears the pod's).
        if (nominated) out.nominated_node = std::move(nominated);
        continue;
      }
      if (s.code == SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE) {
        reasons.insert(reasons.end(), s.reasons.begin(), s.reasons.end());
        out.status = {s.code, std::move(reasons), s.plugin};
        return out;
      }
      // Upstream keeps an Error's message as it is (it ends up in the FitError).
      out.status = {SCHEDHOST_ERROR, std::move(s.reasons), p.name()};
      return out;
    }
    out.status.reasons = std::move(reasons);
    return out;
  });
}

Status Framework::run_filter_with_nominated_pods(const CycleContext& cycle, const Pod& pod,
                                                 const NodeInfo& node) const {
  if (nominated_pods_ == nullptr || nominated_pods_->empty()) return run_filter(cycle, pod, node);
  const std::vector<NominatedPods::PodPtr> nominated =
      nominated_pods_->counted_for(pod, node.name());
  if (nominated.empty()) return run_filter(cycle, pod, node);
  std::optional<CycleContext> with = cycle.clone();
  if (!with) {
    return Status::error("could not copy the cycle state to count the pods nominated to node " +
                             in_quotes(node.name()) + ": a plugin's clone failed",
                         "");
  }
  NodeInfo copy = node;
  with->state.set_read_only(false);  // AddPod updates the copy
  for (const NominatedPods::PodPtr& p : nominated) {
    copy.add_pod(p);
    if (Status s = run_add_pod(*with, pod, *p, copy); !s.ok()) return s;
  }
  with->state.set_read_only(true);
  if (Status s = run_filter(*with, pod, copy); !s.ok()) return s;
  return run_filter(cycle, pod, node);
}

Status Framework::run_add_pod(CycleContext& cycle, const Pod& pod, const Pod& other,
                              const NodeInfo& node) const {
  for (const Enabled& e : points_[index(ExtensionPoint::PreFilter)]) {
    const PluginInstance& p = plugin(e);
    if (cycle.skip_filter[e.instance] || p.vtable().add_pod == nullptr) continue;
    Status s = call(p, {"AddPod", &pod, &node.name()}, cycle.sample_plugin_metrics,
                    [&](const auto& v, void* self, schedhost_call_t* h) {
                      return v.add_pod(self, h, cycle.state.handle(), handle(pod), handle(other),
                                       handle(node));
                    });
    if (!s.ok()) return wrapped(s, "running AddPod on PreFilter plugin " + in_quotes(p.name()));
  }
  return {};
}

Status Framework::run_remove_pod(CycleContext& cycle, const Pod& pod, const Pod& other,
                                 const NodeInfo& node) const {
  for (const Enabled& e : points_[index(ExtensionPoint::PreFilter)]) {
    const PluginInstance& p = plugin(e);
    if (cycle.skip_filter[e.instance] || p.vtable().remove_pod == nullptr) continue;
    Status s = call(p, {"RemovePod", &pod, &node.name()}, cycle.sample_plugin_metrics,
                    [&](const auto& v, void* self, schedhost_call_t* h) {
                      return v.remove_pod(self, h, cycle.state.handle(), handle(pod), handle(other),
                                          handle(node));
                    });
    if (!s.ok()) {
      return wrapped(s, "running RemovePod on PreFilter plugin " + in_quotes(p.name()));
    }
  }
  return {};
}

Status Framework::run_pre_score(CycleContext& cycle, const Pod& pod,
                                const std::vector<const NodeInfo*>& nodes) const {
  return timed("PreScore", [&]() -> Status {
    std::vector<const schedhost_node_t*> handles;
    handles.reserve(nodes.size());
    for (const NodeInfo* n : nodes)
      handles.push_back(handle(*n));
    for (const Enabled& e : points_[index(ExtensionPoint::PreScore)]) {
      const PluginInstance& p = plugin(e);
      Status s = call(p, {"PreScore", &pod}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        Call::from(h).set_parallelizer(parallelizer_);  // as PreFilter
                        return v.pre_score(self, h, cycle.state.handle(), handle(pod),
                                           handles.data(), handles.size());
                      });
      if (s.skipped()) {
        cycle.skip_score[e.instance] = true;
        continue;
      }
      if (!s.ok()) return wrapped(s, "running PreScore plugin " + in_quotes(p.name()));
    }
    return {};
  });
}

ScoreOutcome Framework::run_score(CycleContext& cycle, const Pod& pod,
                                  const std::vector<const NodeInfo*>& nodes,
                                  Parallelizer& parallelizer) const {
  return timed("Score", [&]() -> ScoreOutcome {
    ScoreOutcome out;
    out.totals.assign(nodes.size(), 0);
    std::vector<const Enabled*> scorers;
    for (const Enabled& e : points_[index(ExtensionPoint::Score)]) {
      if (!cycle.skip_score[e.instance]) scorers.push_back(&e);
    }
    out.scores.assign(scorers.size(), std::vector<std::int64_t>(nodes.size(), 0));
    // Failures are rare: collected under a lock, and the first in (plugin, node) order is reported
    // whatever the threads' timing.
    std::mutex failures_mutex;
    std::vector<std::pair<std::size_t, Status>> failures;

    // Every (plugin, node) pair in parallel; the cycle state is read-only meanwhile.
    cycle.state.set_read_only(true);
    // Per node, every scorer in turn: the node's data is loaded once for all of them.
    parallelizer.until(scorers.empty() ? 0 : nodes.size(), [&](std::size_t ni) {
      Call c(snapshot_, {}, waiting_pods_);
      const CallSite site{"Score", &pod, nullptr, nodes[ni]};
      HookLoop loop(plugin(*scorers.front()).definition(), site);
      for (std::size_t pi = 0; pi < scorers.size(); ++pi) {
        const PluginInstance& p = plugin(*scorers[pi]);
        std::int64_t score = 0;
        const schedhost_code_t code = invoke(
            c, p, site, cycle.sample_plugin_metrics,
            [&](const auto& v, void* self, schedhost_call_t* h) {
              return v.score(self, h, cycle.state.handle(), handle(pod), handle(*nodes[ni]),
                             &score);
            },
            &loop);
        out.scores[pi][ni] = score;
        if (code == SCHEDHOST_SUCCESS) continue;
        Status s = to_status(c, p, code);
        const std::lock_guard lock(failures_mutex);
        failures.emplace_back(pi * nodes.size() + ni, std::move(s));
      }
    });
    cycle.state.set_read_only(false);
    if (!failures.empty()) {
      const auto first =
          std::min_element(failures.begin(), failures.end(),
                           [](const auto& a, const auto& b) { return a.first < b.first; });
      const std::string name = plugin(*scorers[first->first / nodes.size()]).name();
      out.status = wrapped(first->second, "plugin " + in_quotes(name) + " failed with");
      return out;
    }

    // The node names NormalizeScore gets, read once for every plugin that normalizes.
    std::vector<schedhost_str_t> names;
    std::vector<schedhost_node_score_t> list;
    for (std::size_t pi = 0; pi < scorers.size(); ++pi) {
      const PluginInstance& p = plugin(*scorers[pi]);
      out.plugins.push_back(p.name());
      if (p.vtable().normalize_score != nullptr) {
        if (names.empty()) {
          names.reserve(nodes.size());
          for (const NodeInfo* node : nodes)
            names.push_back(str(node->name()));
        }
        list.resize(nodes.size());
        for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
          list[ni] = {names[ni], out.scores[pi][ni]};
        }
        Status s = call(p, {"NormalizeScore", &pod}, cycle.sample_plugin_metrics,
                        [&](const auto& v, void* self, schedhost_call_t* h) {
                          return v.normalize_score(self, h, cycle.state.handle(), handle(pod),
                                                   list.data(), list.size());
                        });
        if (!s.ok()) {
          out.status = wrapped(s, "running NormalizeScore of plugin " + in_quotes(p.name()));
          return out;
        }
        for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
          if (list[ni].node_name.data != names[ni].data ||
              list[ni].node_name.len != names[ni].len) {
            fault(p, PluginFault::BadNodeList);
            out.status = Status::error("plugin " + in_quotes(p.name()) +
                                           " changed the node list in NormalizeScore: it may only "
                                           "rewrite the scores",
                                       p.name());
            return out;
          }
          out.scores[pi][ni] = list[ni].score;
        }
      }
      for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
        const std::int64_t s = out.scores[pi][ni];
        if (s < 0 || s > 100) {
          fault(p, PluginFault::BadScore);
          out.status =
              Status::error("plugin " + in_quotes(p.name()) + " returns an invalid score " +
                                std::to_string(s) + " for node " + in_quotes(nodes[ni]->name()) +
                                ", it should in the range of [0, 100] after normalizing",
                            p.name());
          return out;
        }
        out.totals[ni] += s * scorers[pi]->weight;
      }
    }
    return out;
  });
}

Status Framework::run_reserve(CycleContext& cycle, const Pod& pod, const std::string& node) const {
  return timed("Reserve", [&]() -> Status {
    for (const Enabled& e : points_[index(ExtensionPoint::Reserve)]) {
      const PluginInstance& p = plugin(e);
      Status s = call(p, {"Reserve", &pod, &node}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        return v.reserve(self, h, cycle.state.handle(), handle(pod), str(node));
                      });
      if (s.ok()) continue;
      if (s.rejected()) return s;
      return wrapped(s, "running Reserve plugin " + in_quotes(p.name()));
    }
    return {};
  });
}

void Framework::run_unreserve(CycleContext& cycle, const Pod& pod, const std::string& node) const {
  (void)timed("Unreserve", [&]() -> Status {
    const auto& reservers = points_[index(ExtensionPoint::Reserve)];
    for (auto it = reservers.rbegin(); it != reservers.rend(); ++it) {
      const PluginInstance& p = plugin(*it);
      if (p.vtable().unreserve == nullptr) continue;
      (void)call(p, {"Unreserve", &pod, &node}, cycle.sample_plugin_metrics,
                 [&](const auto& v, void* self, schedhost_call_t* h) {
                   v.unreserve(self, h, cycle.state.handle(), handle(pod), str(node));
                   return SCHEDHOST_SUCCESS;
                 });
    }
    return {};
  });
}

PermitOutcome Framework::run_permit(CycleContext& cycle, const Pod& pod,
                                    const std::string& node) const {
  return timed("Permit", [&]() -> PermitOutcome {
    constexpr std::uint32_t kMaxTimeoutMs = 15 * 60 * 1000;  // upstream caps waits at 15 minutes
    PermitOutcome out;
    for (const Enabled& e : points_[index(ExtensionPoint::Permit)]) {
      const PluginInstance& p = plugin(e);
      std::uint32_t timeout_ms = 0;
      Status s = call(p, {"Permit", &pod, &node}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        return v.permit(self, h, cycle.state.handle(), handle(pod), str(node),
                                        &timeout_ms);
                      });
      if (s.ok()) continue;
      if (s.code == SCHEDHOST_WAIT) {
        out.waits.push_back({p.name(), std::min(timeout_ms, kMaxTimeoutMs)});
        continue;
      }
      out.status =
          s.rejected() ? std::move(s) : wrapped(s, "running Permit plugin " + in_quotes(p.name()));
      out.waits.clear();
      return out;
    }
    if (!out.waits.empty()) out.status.code = SCHEDHOST_WAIT;
    return out;
  });
}

std::optional<std::string> Framework::sign_pod(const Pod& pod) const {
  if (!signs_pods()) return std::nullopt;
  return timed("Sign", [&]() -> std::optional<std::string> {
    // key -> value as the plugin wrote it; a later fragment with the same key replaces the
    // earlier, as in upstream's map. Each value is checked to be JSON (without building it).
    std::map<std::string, std::string, std::less<>> fragments;
    fragments["v1.Pod.Spec.SchedulerName"] = nlohmann::json(pod.scheduler_name()).dump();
    // The plugin that refused last is asked first: in upstream's default profile
    // PodTopologySpread refuses every pod, and asking the others first would cost each pod
    // ten calls for nothing. The order changes nothing else: any refusal means no signature.
    const std::size_t first = refused_last_.load(std::memory_order_relaxed);
    for (std::size_t k = 0; k < signers_.size(); ++k) {
      const std::size_t at = k == 0 ? first : (k <= first ? k - 1 : k);
      const PluginInstance& p = *instances_[signers_[at]];
      std::vector<std::pair<std::string, std::string>> signed_fragments;
      const Status s =
          call(p, {"Sign", &pod}, false, [&](const auto& v, void* self, schedhost_call_t* h) {
            const schedhost_code_t code = v.sign_pod(self, h, handle(pod));
            signed_fragments = Call::from(h).take_sign_fragments();
            return code;
          });
      if (!s.ok()) {
        refused_last_.store(at, std::memory_order_relaxed);
        // Unschedulable is a refusal (upstream logs it at V(5)); anything else is an error.
        if (s.code != SCHEDHOST_UNSCHEDULABLE) {
          spdlog::debug("plugin \"{}\" failed to sign pod {}: {}", p.name(), pod.key(),
                        s.message());
        }
        return std::nullopt;
      }
      for (auto& [key, value] : signed_fragments) {
        if (!nlohmann::json::accept(value)) {
          if (p.first_bad_fragment()) {
            spdlog::warn(
                "plugin \"{}\" signed pod {} with a fragment {} that is not JSON: pods it signs "
                "so are not batched (logged once)",
                p.name(), pod.key(), key);
          }
          return std::nullopt;
        }
        fragments.insert_or_assign(std::move(key), std::move(value));
      }
    }
    // Canonical: keys in order, each value as its plugin wrote it (a plugin writes the same
    // value the same way).
    std::string signature = "{";
    for (const auto& [key, value] : fragments) {
      if (signature.size() > 1) signature += ',';
      signature +=
          nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      signature += ':';
      signature += value;
    }
    signature += '}';
    return signature;
  });
}

Status Framework::run_pre_bind_pre_flight(CycleContext& cycle, const Pod& pod,
                                          const std::string& node) const {
  return timed("PreBindPreFlight", [&]() -> Status {
    bool any_work = false;
    for (const Enabled& e : points_[index(ExtensionPoint::PreBind)]) {
      const PluginInstance& p = plugin(e);
      if (p.vtable().pre_bind_pre_flight == nullptr) {  // built before ABI 1.6: it acts
        any_work = true;
        continue;
      }
      Status s = call(p, {"PreBindPreFlight", &pod, &node}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        return v.pre_bind_pre_flight(self, h, cycle.state.handle(), handle(pod),
                                                     str(node));
                      });
      if (s.ok()) {
        any_work = true;
      } else if (s.skipped()) {
        cycle.skip_pre_bind[e.instance] = true;
      } else if (s.code == SCHEDHOST_ERROR) {
        return wrapped(s, "running PreBindPreFlight " + in_quotes(p.name()));
      } else {
        return Status::error("PreBindPreFlight " + p.name() + " returned \"" +
                                 std::string(code_name(s.code)) +
                                 "\", which is unsupported. It is supposed to return Success, "
                                 "Skip, or Error status",
                             p.name());
      }
    }
    if (any_work) return {};
    return Status{SCHEDHOST_SKIP, {}, {}};
  });
}

Status Framework::run_pre_bind(CycleContext& cycle, const Pod& pod, const std::string& node) const {
  return timed("PreBind", [&]() -> Status {
    for (const Enabled& e : points_[index(ExtensionPoint::PreBind)]) {
      if (cycle.skip_pre_bind[e.instance]) continue;
      const PluginInstance& p = plugin(e);
      Status s = call(p, {"PreBind", &pod, &node}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        return v.pre_bind(self, h, cycle.state.handle(), handle(pod), str(node));
                      });
      if (s.ok()) continue;
      if (s.rejected()) return s;
      return wrapped(s, "running PreBind plugin " + in_quotes(p.name()));
    }
    return {};
  });
}

Status Framework::run_bind(CycleContext& cycle, const Pod& pod, const std::string& node) const {
  return timed("Bind", [&]() -> Status {
    for (const Enabled& e : points_[index(ExtensionPoint::Bind)]) {
      const PluginInstance& p = plugin(e);
      Status s = call(p, {"Bind", &pod, &node}, cycle.sample_plugin_metrics,
                      [&](const auto& v, void* self, schedhost_call_t* h) {
                        return v.bind(self, h, cycle.state.handle(), handle(pod), str(node));
                      });
      if (s.skipped()) continue;  // the next binder may take it
      if (s.ok() || s.rejected()) return s;
      return wrapped(s, "running Bind plugin " + in_quotes(p.name()));
    }
    return Status::error("every Bind plugin skipped the pod: none bound it");
  });
}

void Framework::run_post_bind(CycleContext& cycle, const Pod& pod, const std::string& node) const {
  (void)timed("PostBind", [&]() -> Status {
    for (const Enabled& e : points_[index(ExtensionPoint::PostBind)]) {
      (void)call(plugin(e), {"PostBind", &pod, &node}, cycle.sample_plugin_metrics,
                 [&](const auto& v, void* self, schedhost_call_t* h) {
                   v.post_bind(self, h, cycle.state.handle(), handle(pod), str(node));
                   return SCHEDHOST_SUCCESS;
                 });
    }
    return {};
  });
}

}  // namespace schedhost::framework
