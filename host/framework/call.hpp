// Call: one invocation of a plugin function. It collects what the plugin reports through the
// host API (reasons, PreFilter's node names, PostFilter's nomination) and carries what the
// plugin may look at (the snapshot). Each invocation, on each thread, has its own Call.
#pragma once

#include <schedhost/abi.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::cluster {
class Snapshot;
}

namespace schedhost::framework {

class ApiAccess;
class Parallelizer;
class PluginEvents;
class WaitingPods;
struct PostFilterScope;

class Call {
 public:
  Call() = default;
  explicit Call(const cluster::Snapshot* snapshot, std::string_view plugin = {},
                WaitingPods* waiting_pods = nullptr)
      : snapshot_(snapshot), plugin_(plugin), waiting_pods_(waiting_pods) {}

  // Readies this call for the next hook of a loop (Filter over plugins, Score over plugins):
  // reusing one Call per node keeps construction out of the per-plugin path.
  void reset(std::string_view plugin) {
    plugin_ = plugin;
    reasons_.clear();
    exception_ = false;
  }

  const cluster::Snapshot* snapshot() const { return snapshot_; }
  // The API server this call may send requests to (api_request): set for the blocking hooks in
  // serve only.
  void set_api(ApiAccess* api) { api_ = api; }
  ApiAccess* api() const { return api_; }
  // A hook upstream lets block (PreBind, Bind, PostBind, Unreserve): it may call api_request.
  void set_may_block() { may_block_ = true; }
  bool may_block() const { return may_block_; }
  std::string_view plugin() const { return plugin_; }  // the plugin being called
  // Where record_event's Events go (ABI 1.9): set by the framework for every hook but sign_pod;
  // null (record_event answers false) for the calls made outside it.
  void set_events(PluginEvents* events) { events_ = events; }
  PluginEvents* events() const { return events_; }
  WaitingPods* waiting_pods() const { return waiting_pods_; }

  // Reasons longer than kMaxReasonBytes are cut (at a UTF-8 boundary) and marked, so a
  // plugin cannot flood the output or the memory with one message.
  static constexpr std::size_t kMaxReasonBytes = 1024;
  void add_reason(std::string_view reason);
  const std::vector<std::string>& reasons() const { return reasons_; }
  // Moves the reasons out (the call is over), so a rejection costs no copy per node.
  std::vector<std::string> take_reasons() { return std::move(reasons_); }
  // The hook threw (report_exception, ABI 1.4): a fault of the plugin, besides its reason.
  void mark_exception() { exception_ = true; }
  bool exception() const { return exception_; }
  // The reasons joined by ", " (upstream Status.Message()).
  std::string message() const;

  void set_node_names(std::vector<std::string> names) { extras().node_names = std::move(names); }
  const std::optional<std::vector<std::string>>& node_names() const {
    return extras_ ? extras_->node_names : kNoExtras.node_names;
  }

  void set_nominated_node(std::string_view node) { extras().nominated_node = std::string(node); }
  const std::optional<std::string>& nominated_node() const {
    return extras_ ? extras_->nominated_node : kNoExtras.nominated_node;
  }

  // The pool parallel_for runs bodies on: set for the hooks called from the scheduling thread
  // outside a parallel loop (PreFilter, PreScore); null elsewhere (bodies run inline).
  void set_parallelizer(Parallelizer* parallelizer) { parallelizer_ = parallelizer; }
  Parallelizer* parallelizer() const { return parallelizer_; }

  // PostFilter only: what preemption may use (dry runs, threads, random numbers), and the pods
  // it asks to evict. Other calls have no scope and the preemption functions answer "nothing".
  void set_post_filter_scope(const PostFilterScope* scope) { post_filter_scope_ = scope; }
  const PostFilterScope* post_filter_scope() const { return post_filter_scope_; }
  void add_victim(std::string_view uid) { extras().victims.emplace_back(uid); }
  std::vector<std::string> take_victims() {
    return extras_ ? std::move(extras_->victims) : std::vector<std::string>{};
  }

  // Keeps strings the plugin reads after a host function returned (process_preemption's
  // answers) until this call is over; the views stay valid as more are held.
  schedhost_str_t hold(std::string text) {
    const std::string& held = extras().held_strings.emplace_back(std::move(text));
    return {held.data(), held.size()};
  }
  const schedhost_str_t* hold(std::vector<std::string> texts) {
    std::vector<schedhost_str_t>& views = extras().held_views.emplace_back();
    for (std::string& t : texts)
      views.push_back(hold(std::move(t)));
    return views.data();
  }

  // events_to_register only: the plugin's registrations (resource, action bits), in order.
  void register_event(std::string_view resource, schedhost_action_t actions) {
    extras().events.emplace_back(std::string(resource), actions);
  }
  std::vector<std::pair<std::string, schedhost_action_t>> take_events() {
    return extras_ ? std::move(extras_->events)
                   : std::vector<std::pair<std::string, schedhost_action_t>>{};
  }

  // sign_pod only (ABI 1.6): the pod's signature fragments, key -> value as the plugin gave it.
  void add_sign_fragment(std::string_view key, std::string_view value_json) {
    extras().sign_fragments.emplace_back(std::string(key), std::string(value_json));
  }
  std::vector<std::pair<std::string, std::string>> take_sign_fragments() {
    return extras_ ? std::move(extras_->sign_fragments)
                   : std::vector<std::pair<std::string, std::string>>{};
  }

  schedhost_call_t* handle() { return reinterpret_cast<schedhost_call_t*>(this); }
  static Call& from(schedhost_call_t* h) { return *reinterpret_cast<Call*>(h); }
  static const Call& from(const schedhost_call_t* h) { return *reinterpret_cast<const Call*>(h); }

 private:
  // What only PreFilter and PostFilter report: allocated on first use, so that the calls made
  // per node (Filter, Score) construct and destroy nothing but the reasons.
  struct Extras {
    std::optional<std::vector<std::string>> node_names;
    std::optional<std::string> nominated_node;
    std::vector<std::string> victims;
    std::vector<std::pair<std::string, schedhost_action_t>> events;
    std::vector<std::pair<std::string, std::string>> sign_fragments;
    std::deque<std::string> held_strings;  // deque: growing it moves nothing
    std::deque<std::vector<schedhost_str_t>> held_views;
  };
  static const Extras kNoExtras;
  Extras& extras() {
    if (!extras_) extras_ = std::make_unique<Extras>();
    return *extras_;
  }

  const cluster::Snapshot* snapshot_ = nullptr;
  std::string_view plugin_;
  WaitingPods* waiting_pods_ = nullptr;
  const PostFilterScope* post_filter_scope_ = nullptr;
  ApiAccess* api_ = nullptr;
  PluginEvents* events_ = nullptr;
  bool may_block_ = false;
  Parallelizer* parallelizer_ = nullptr;
  std::vector<std::string> reasons_;
  bool exception_ = false;
  std::unique_ptr<Extras> extras_;
};

// The snapshot of the call a plugin passed back to a host function; none for a NULL call.
inline const cluster::Snapshot* snapshot_of(const schedhost_call_t* call) {
  return call == nullptr ? nullptr : Call::from(call).snapshot();
}

}  // namespace schedhost::framework
