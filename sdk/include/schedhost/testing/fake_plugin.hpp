// schedhost/testing/fake_plugin.hpp - one plugin instance created by a FakeHost, and its hooks
// called the way the framework calls them. Each call returns a HookResult: the code, the reasons
// the plugin added, and what that hook reports besides (score, node names, nomination, timeout).
// EnqueueExtensions (ABI 1.3): events() and queueing_hint(), on fake_cluster_event.hpp's types.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/library_rules.hpp>
#include <schedhost/detail/typed_args.hpp>
#include <schedhost/status.hpp>
#include <schedhost/testing/fake_cluster_event.hpp>
#include <schedhost/testing/fake_cycle_state.hpp>
#include <schedhost/testing/fake_host.hpp>
#include <schedhost/testing/fake_objects.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::testing {

inline const char* to_string(Code code) {
  switch (code) {
    case Code::Success:
      return "Success";
    case Code::Error:
      return "Error";
    case Code::Unschedulable:
      return "Unschedulable";
    case Code::UnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::Wait:
      return "Wait";
    case Code::Skip:
      return "Skip";
  }
  return "Unknown";
}

struct NodeScore {
  std::string node;
  std::int64_t score = 0;
  bool operator==(const NodeScore& o) const { return node == o.node && score == o.score; }
};

// How one node failed Filter, for PostFilter.
struct FailedNode {
  std::string node;
  Code code = Code::Unschedulable;
  std::string plugin;
  std::string message;
};

struct HookResult {
  Code code = Code::Success;
  std::vector<std::string> reasons;                    // add_reason calls, in order
  std::int64_t score = 0;                              // Score
  std::vector<NodeScore> scores;                       // NormalizeScore, scores()
  std::optional<std::vector<std::string>> node_names;  // PreFilter: set_node_names
  std::optional<std::string> nominated_node;           // PostFilter: set_nominated_node
  std::chrono::milliseconds timeout{0};                // Permit with Wait
  // SignPod: the fragments, key -> value as compact JSON (a later one with the same key wins,
  // as in the host).
  std::map<std::string, std::string> signature;

  bool ok() const { return code == Code::Success; }
  // The reasons joined by ", ", as the host prints them.
  std::string message() const {
    std::string out;
    for (const std::string& r : reasons)
      out += (out.empty() ? "" : ", ") + r;
    return out;
  }
};

// GoogleTest prints a HookResult with this when an assertion fails.
inline std::ostream& operator<<(std::ostream& os, const HookResult& r) {
  os << to_string(r.code);
  if (!r.reasons.empty()) os << " [" << r.message() << "]";
  return os << " score=" << r.score;
}

class FakePlugin {
 public:
  FakePlugin(FakeHost& host, const schedhost_plugin_descriptor_t& descriptor,
             std::string_view args_json)
      : host_(&host), name_(descriptor.name) {
    // Read the plugin's vtable only up to the size it declares, as the host does.
    const schedhost_plugin_vtable_t* v = descriptor.vtable;
    if (v == nullptr || v->create == nullptr || v->destroy == nullptr) {
      throw std::runtime_error("plugin \"" + name_ + "\" has no create or destroy function");
    }
    std::memcpy(&vtable_, v, std::min<std::size_t>(v->struct_size, sizeof vtable_));
    handle_ = std::make_unique<detail::HostHandle>(detail::HostHandle{host_, name_});
    // apiVersion and kind inside args are checked and removed as the host does.
    const typed_args::TextResult typed = typed_args::check_and_strip_text(
        args_json.empty() ? std::string_view("{}") : args_json, name_);
    if (typed.problem) {
      throw std::runtime_error("plugin \"" + name_ + "\": args: " + typed.problem->message);
    }
    const std::string_view args = typed.text;
    detail::CallRecord call = new_call();
    const schedhost_code_t code =
        vtable_.create(host_->api(), reinterpret_cast<const schedhost_host_t*>(handle_.get()),
                       detail::str(args), call.handle(), &self_);
    if (code != SCHEDHOST_SUCCESS) {
      throw std::runtime_error("plugin \"" + name_ + "\": " +
                               (call.reasons.empty()
                                    ? "create() refused its args with code " + std::to_string(code)
                                    : call.message()));
    }
    created_ = true;
    collect_events();
  }
  FakePlugin(const FakePlugin&) = delete;
  FakePlugin& operator=(const FakePlugin&) = delete;
  FakePlugin(FakePlugin&& o) noexcept
      : host_(o.host_),
        name_(std::move(o.name_)),
        vtable_(o.vtable_),
        handle_(std::move(o.handle_)),
        self_(o.self_),
        created_(std::exchange(o.created_, false)),
        events_(std::move(o.events_)),
        events_error_(std::move(o.events_error_)) {}
  FakePlugin& operator=(FakePlugin&&) = delete;
  ~FakePlugin() {
    if (created_) vtable_.destroy(self_);
  }

  const std::string& name() const { return name_; }
  const schedhost_plugin_vtable_t& vtable() const { return vtable_; }
  void* self() const { return self_; }

  // The extension points the plugin implements, named as `schedhost plugins` lists them.
  std::vector<std::string> extension_points() const {
    const std::pair<bool, const char*> points[] = {
        {vtable_.pre_enqueue != nullptr, "PreEnqueue"},
        {vtable_.queue_sort_less != nullptr, "QueueSort"},
        {vtable_.pre_filter != nullptr, "PreFilter"},
        {vtable_.add_pod != nullptr || vtable_.remove_pod != nullptr, "PreFilterExtensions"},
        {vtable_.filter != nullptr, "Filter"},
        {vtable_.post_filter != nullptr, "PostFilter"},
        {vtable_.pre_score != nullptr, "PreScore"},
        {vtable_.score != nullptr, "Score"},
        {vtable_.normalize_score != nullptr, "NormalizeScore"},
        {vtable_.reserve != nullptr, "Reserve"},
        {vtable_.unreserve != nullptr, "Unreserve"},
        {vtable_.permit != nullptr, "Permit"},
        {vtable_.pre_bind != nullptr, "PreBind"},
        {vtable_.bind != nullptr, "Bind"},
        {vtable_.post_bind != nullptr, "PostBind"},
    };
    std::vector<std::string> out;
    for (const auto& [has, point] : points) {
      if (has) out.emplace_back(point);
    }
    return out;
  }

  // -- EnqueueExtensions (ABI 1.3) --
  // The events the plugin registered: events_to_register runs once, right after create, as in
  // the host. nullopt when the plugin has none (NULL, a plugin built for 1.0-1.2, or a host table
  // shortened below 1.3 by set_api_struct_size): then every event moves the pods it rejected.
  // Throws std::runtime_error with the host's message (`plugin "Name": ...`) when
  // events_to_register failed or registered something that is not an event: the host refuses
  // such a plugin when it creates it.
  const std::optional<std::vector<EventRegistration>>& events() const {
    if (!events_error_.empty()) throw std::runtime_error(events_error_);
    return events_;
  }
  // The plugin's queueing hint for pod (one it rejected) and event. The pod and the event's pods
  // and nodes are read through the usual accessors; the call has no snapshot, as in the host. A
  // plugin without a hint answers SCHEDHOST_QUEUE. The fake host does not check that the event
  // matches a registration: the host asks the hint only for events that do.
  HintResult queueing_hint(const FakePod& pod, const FakeClusterEvent& event) {
    HintResult r;
    if (vtable_.queueing_hint == nullptr) return r;
    const detail::PodRecord record(pod);
    std::optional<detail::PodRecord> old_pod, new_pod;
    std::optional<detail::NodeRecord> old_own, new_own;
    if (event.old_pod) old_pod.emplace(*event.old_pod);
    if (event.new_pod) new_pod.emplace(*event.new_pod);
    schedhost_cluster_event_t e{};
    e.struct_size = sizeof e;
    e.resource = detail::str(event.resource);
    e.actions = event.actions;
    e.label = detail::str(event.label);
    e.old_pod = old_pod ? reinterpret_cast<const schedhost_pod_t*>(&*old_pod) : nullptr;
    e.new_pod = new_pod ? reinterpret_cast<const schedhost_pod_t*>(&*new_pod) : nullptr;
    e.old_node = event_node(event.old_node, old_own);
    e.new_node = event_node(event.new_node, new_own);
    std::optional<detail::ObjectRecord> old_object, new_object;
    if (event.old_object) old_object.emplace(event.resource, *event.old_object);
    if (event.new_object) new_object.emplace(event.resource, *event.new_object);
    e.old_object = old_object ? reinterpret_cast<const schedhost_object_t*>(&*old_object) : nullptr;
    e.new_object = new_object ? reinterpret_cast<const schedhost_object_t*>(&*new_object) : nullptr;
    detail::CallRecord call = new_call();
    call.has_snapshot = false;
    r.answer = vtable_.queueing_hint(self_, call.handle(),
                                     reinterpret_cast<const schedhost_pod_t*>(&record), &e);
    r.reasons = std::move(call.reasons);
    return r;
  }

  // -- the hooks; each throws std::logic_error when the plugin does not implement it --
  HookResult pre_enqueue(const FakePod& pod) {
    need(vtable_.pre_enqueue, "PreEnqueue");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) { return vtable_.pre_enqueue(self_, c, pod_h); },
        pod);
  }
  // QueueSort: whether a sorts before b.
  bool less(const FakePod& a, const FakePod& b, std::int64_t a_enqueued_ms = 0,
            std::int64_t b_enqueued_ms = 0) {
    need(vtable_.queue_sort_less, "QueueSort");
    const schedhost_queued_pod_t qa{host_->keep_pod(a), a_enqueued_ms, 0};
    const schedhost_queued_pod_t qb{host_->keep_pod(b), b_enqueued_ms, 0};
    return vtable_.queue_sort_less(self_, &qa, &qb);
  }
  HookResult pre_filter(FakeCycleState& state, const FakePod& pod) {
    need(vtable_.pre_filter, "PreFilter");
    return run([&](schedhost_call_t* c,
                   auto* pod_h) { return vtable_.pre_filter(self_, c, state.handle(), pod_h); },
               pod);
  }
  HookResult add_pod(FakeCycleState& state, const FakePod& pod, const FakePod& pod_to_add,
                     std::string_view node) {
    need(vtable_.add_pod, "AddPod");
    const schedhost_pod_t* other = host_->keep_pod(pod_to_add);
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.add_pod(self_, c, state.handle(), pod_h, other, host_->node_handle(node));
        },
        pod);
  }
  HookResult remove_pod(FakeCycleState& state, const FakePod& pod, const FakePod& pod_to_remove,
                        std::string_view node) {
    need(vtable_.remove_pod, "RemovePod");
    const schedhost_pod_t* other = host_->keep_pod(pod_to_remove);
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.remove_pod(self_, c, state.handle(), pod_h, other,
                                    host_->node_handle(node));
        },
        pod);
  }
  // Filter on one node of the snapshot; the state is read-only meanwhile, as in the host.
  HookResult filter(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    const ReadOnly guard(state);
    need(vtable_.filter, "Filter");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.filter(self_, c, state.handle(), pod_h, host_->node_handle(node));
        },
        pod);
  }
  HookResult post_filter(FakeCycleState& state, const FakePod& pod,
                         const std::vector<FailedNode>& failed) {
    std::vector<schedhost_node_status_t> statuses;
    statuses.reserve(failed.size());
    for (const FailedNode& f : failed) {
      statuses.push_back({detail::str(f.node), static_cast<schedhost_code_t>(f.code),
                          detail::str(f.plugin), detail::str(f.message)});
    }
    need(vtable_.post_filter, "PostFilter");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.post_filter(self_, c, state.handle(), pod_h, statuses.data(),
                                     statuses.size());
        },
        pod);
  }
  // PreScore over nodes (default: every node of the snapshot, in snapshot order).
  HookResult pre_score(FakeCycleState& state, const FakePod& pod,
                       std::optional<std::vector<std::string>> nodes = std::nullopt) {
    std::vector<const schedhost_node_t*> handles;
    for (const std::string& n : nodes ? *nodes : host_->node_names())
      handles.push_back(host_->node_handle(n));
    need(vtable_.pre_score, "PreScore");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.pre_score(self_, c, state.handle(), pod_h, handles.data(), handles.size());
        },
        pod);
  }
  HookResult score(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    const ReadOnly guard(state);
    std::int64_t value = 0;
    need(vtable_.score, "Score");
    HookResult r = run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.score(self_, c, state.handle(), pod_h, host_->node_handle(node), &value);
        },
        pod);
    r.score = value;
    return r;
  }
  // NormalizeScore rewrites scores in place; the result's scores hold them too.
  HookResult normalize_score(FakeCycleState& state, const FakePod& pod,
                             std::vector<NodeScore>& scores) {
    std::vector<schedhost_node_score_t> raw;
    raw.reserve(scores.size());
    for (const NodeScore& s : scores)
      raw.push_back({detail::str(s.node), s.score});
    need(vtable_.normalize_score, "NormalizeScore");
    HookResult r = run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.normalize_score(self_, c, state.handle(), pod_h, raw.data(), raw.size());
        },
        pod);
    for (std::size_t i = 0; i < scores.size(); ++i)
      scores[i].score = raw[i].score;
    r.scores = scores;
    return r;
  }
  // Score on each node (default: all, in snapshot order), then NormalizeScore when the plugin
  // has it, as the framework does; stops at the first failure. PreScore is not run: call it
  // first when the plugin has one.
  HookResult scores(FakeCycleState& state, const FakePod& pod,
                    std::optional<std::vector<std::string>> nodes = std::nullopt) {
    std::vector<NodeScore> out;
    for (const std::string& n : nodes ? *nodes : host_->node_names()) {
      HookResult r = score(state, pod, n);
      if (!r.ok()) return r;
      out.push_back({n, r.score});
    }
    if (vtable_.normalize_score != nullptr) return normalize_score(state, pod, out);
    HookResult r;
    r.scores = std::move(out);
    return r;
  }
  HookResult reserve(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    need(vtable_.reserve, "Reserve");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.reserve(self_, c, state.handle(), pod_h, detail::str(node));
        },
        pod);
  }
  // Unreserve returns nothing; the result carries the reasons it reported (e.g. an exception).
  HookResult unreserve(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    need(vtable_.unreserve, "Unreserve");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          vtable_.unreserve(self_, c, state.handle(), pod_h, detail::str(node));
          return SCHEDHOST_SUCCESS;
        },
        pod, true);
  }
  HookResult permit(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    std::uint32_t timeout_ms = 0;
    need(vtable_.permit, "Permit");
    HookResult r = run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.permit(self_, c, state.handle(), pod_h, detail::str(node), &timeout_ms);
        },
        pod);
    r.timeout = std::chrono::milliseconds(timeout_ms);
    return r;
  }
  HookResult pre_bind(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    need(vtable_.pre_bind, "PreBind");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.pre_bind(self_, c, state.handle(), pod_h, detail::str(node));
        },
        pod, true);
  }
  HookResult pre_bind_pre_flight(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    need(vtable_.pre_bind_pre_flight, "PreBindPreFlight");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.pre_bind_pre_flight(self_, c, state.handle(), pod_h, detail::str(node));
        },
        pod);
  }
  // SignPod, with no snapshot, as the host calls it.
  HookResult sign_pod(const FakePod& pod) {
    need(vtable_.sign_pod, "SignPod");
    const detail::PodRecord record(pod);
    detail::CallRecord call = new_call();
    call.has_snapshot = false;
    HookResult r;
    r.code = static_cast<Code>(
        vtable_.sign_pod(self_, call.handle(), reinterpret_cast<const schedhost_pod_t*>(&record)));
    r.reasons = std::move(call.reasons);
    for (auto& [key, value] : call.sign_fragments)
      r.signature[key] = std::move(value);
    return r;
  }
  HookResult bind(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    need(vtable_.bind, "Bind");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          return vtable_.bind(self_, c, state.handle(), pod_h, detail::str(node));
        },
        pod, true);
  }
  HookResult post_bind(FakeCycleState& state, const FakePod& pod, std::string_view node) {
    need(vtable_.post_bind, "PostBind");
    return run(
        [&](schedhost_call_t* c, auto* pod_h) {
          vtable_.post_bind(self_, c, state.handle(), pod_h, detail::str(node));
          return SCHEDHOST_SUCCESS;
        },
        pod, true);
  }

 private:
  // Filter and Score may not write the cycle state (the host runs them concurrently).
  class ReadOnly {
   public:
    explicit ReadOnly(FakeCycleState& s) : state_(s), before_(s.read_only()) {
      s.set_read_only(true);
    }
    ReadOnly(const ReadOnly&) = delete;
    ReadOnly& operator=(const ReadOnly&) = delete;
    ~ReadOnly() { state_.set_read_only(before_); }

   private:
    FakeCycleState& state_;
    bool before_;
  };

  template <class Fn>
  void need(Fn* hook, const char* point) {
    if (hook == nullptr) {
      throw std::logic_error("plugin \"" + name_ + "\" does not implement " + point);
    }
    point_ = point;  // the hook the next call is, for the host's messages about it
  }
  detail::CallRecord new_call() const {
    detail::CallRecord call{host_, name_, {}, {}, {}, {}, true};
    call.hook = point_;
    return call;
  }

  // As the host after create: events_to_register once (unless the host table is older than
  // 1.3), each registration checked by the rule the host applies (library_rules.hpp).
  void collect_events() {
    const std::size_t needed =
        offsetof(schedhost_host_api_t, register_event) + sizeof(host_->api()->register_event);
    if (vtable_.events_to_register == nullptr || host_->api()->struct_size < needed) return;
    detail::CallRecord call = new_call();
    call.has_snapshot = false;
    const schedhost_code_t code = vtable_.events_to_register(self_, call.handle());
    const std::string plugin = "plugin \"" + name_ + "\": ";
    if (code != SCHEDHOST_SUCCESS) {
      events_error_ =
          plugin + "events_to_register() failed" +
          (call.reasons.empty() ? " with code " + std::to_string(code) : ": " + call.message());
      return;
    }
    std::vector<EventRegistration> events;
    for (auto& [resource, actions] : call.events) {
      if (std::string why = library_rules::check_event_registration(resource, actions);
          !why.empty()) {
        events_error_ = plugin + why;
        return;
      }
      events.push_back({std::move(resource), actions});
    }
    events_ = std::move(events);
  }

  // The handle of an event's node: the host's node by name, or own (filled in here) for a
  // FakeNode of the event's own.
  const schedhost_node_t* event_node(const std::optional<FakeEventNode>& node,
                                     std::optional<detail::NodeRecord>& own) const {
    if (!node) return nullptr;
    if (const FakeNode* n = node->own_node()) {
      own.emplace(*n);
      return reinterpret_cast<const schedhost_node_t*>(&*own);
    }
    return host_->node_handle(node->host_node());
  }

  // Calls body(call, pod handle) and collects what the plugin reported.
  template <class Body>
  // may_block: the hook may send api_request (PreBind, Bind, PostBind, Unreserve).
  HookResult run(Body&& body, const FakePod& pod, bool may_block = false) {
    const detail::PodRecord record(pod);
    const auto* pod_h = reinterpret_cast<const schedhost_pod_t*>(&record);
    detail::CallRecord call = new_call();
    call.may_block = may_block;
    HookResult r;
    r.code = static_cast<Code>(body(call.handle(), pod_h));
    r.reasons = std::move(call.reasons);
    r.node_names = std::move(call.node_names);
    r.nominated_node = std::move(call.nominated_node);
    return r;
  }

  FakeHost* host_;
  std::string name_;
  schedhost_plugin_vtable_t vtable_{};
  std::unique_ptr<detail::HostHandle> handle_;  // stable: the plugin may keep it
  const char* point_ = "";                      // the hook being called (need())
  void* self_ = nullptr;
  bool created_ = false;
  std::optional<std::vector<EventRegistration>> events_;  // collect_events()
  std::string events_error_;                              // why the host would refuse them
};

inline FakePlugin FakeHost::create(std::string_view name, std::string_view args_json) {
  return FakePlugin(*this, descriptor(name), args_json);
}

inline std::string FakeHost::create_error(std::string_view name, std::string_view args_json) {
  try {
    FakePlugin plugin(*this, descriptor(name), args_json);
  } catch (const std::runtime_error& e) {
    const std::string prefix = "plugin \"" + std::string(name) + "\": ";
    const std::string what = e.what();
    return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
  }
  return {};
}

}  // namespace schedhost::testing
