// schedhost/detail/hooks.hpp - how a plugin class becomes a schedhost_plugin_vtable_t.
//
// The methods a plugin class may have, one per extension point (all optional):
//
//   Status PreEnqueue(Context&, const Pod&);
//   bool   Less(const QueuedPod& a, const QueuedPod& b);                     // QueueSort
//   Status PreFilter(Context&, CycleState&, const Pod&, PreFilterResult&);
//   Status AddPod(Context&, CycleState&, const Pod&, const Pod& to_add, const NodeInfo&);
//   Status RemovePod(Context&, CycleState&, const Pod&, const Pod& to_remove, const NodeInfo&);
//   Status Filter(Context&, const CycleState&, const Pod&, const NodeInfo&);         [concurrent]
//   Status PostFilter(Context&, CycleState&, const Pod&, const NodeStatusList&, PostFilterResult&);
//   Status PreScore(Context&, CycleState&, const Pod&, const NodeList&);
//   Status Score(Context&, const CycleState&, const Pod&, const NodeInfo&, int64_t& score);
//                                                                                    [concurrent]
//   Status NormalizeScore(Context&, const CycleState&, const Pod&, NodeScoreList&);
//   Status Reserve(Context&, CycleState&, const Pod&, std::string_view node);
//   void   Unreserve(Context&, CycleState&, const Pod&, std::string_view node);
//   Status Permit(Context&, CycleState&, const Pod&, std::string_view node,
//                 std::chrono::milliseconds& timeout);
//   Status PreBind(Context&, CycleState&, const Pod&, std::string_view node);
//   Status PreBindPreFlight(Context&, CycleState&, const Pod&, std::string_view node);
//                                                       // optional, with PreBind (ABI 1.6)
//   Status Bind(Context&, CycleState&, const Pod&, std::string_view node);
//   void   PostBind(Context&, CycleState&, const Pod&, std::string_view node);
//   void   EventsToRegister(EventRegistry&);                                 // EnqueueExtensions
//   QueueingHint IsSchedulableAfter(const Pod&, const ClusterEvent&);  // optional, with it
//   Status SignPod(Context&, const Pod&, PodSignature&);  // opportunistic batching (ABI 1.6)
#pragma once

#include <schedhost/abi.h>
#include <schedhost/cluster_event.hpp>
#include <schedhost/context.hpp>
#include <schedhost/cycle_state.hpp>
#include <schedhost/host.hpp>
#include <schedhost/objects.hpp>
#include <schedhost/pod_signature.hpp>
#include <schedhost/status.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef __VERSION__
#define SCHEDHOST_SDK_BUILD_INFO "built by " __VERSION__
#else
#define SCHEDHOST_SDK_BUILD_INFO ""
#endif

namespace schedhost {

// A pod in the scheduling queue, for QueueSort.
struct QueuedPod {
  Pod pod;
  std::int64_t enqueued_ms;
  std::int32_t attempts;
};

// PreFilter's optional narrowing of the nodes to evaluate; nullopt means all nodes.
struct PreFilterResult {
  std::optional<std::vector<std::string>> node_names;
};

// PostFilter's optional nomination, and the pods (by uid) to evict from that node for it.
struct PostFilterResult {
  std::optional<std::string> nominated_node_name;
  std::vector<std::string> victims;
};

struct NodeStatus {
  std::string_view node_name;
  Code code;
  std::string_view plugin;
  std::string_view message;
};

namespace detail {
struct NodeStatusAt {
  const schedhost_node_status_t* data;
  NodeStatus operator()(std::size_t i) const {
    return {to_view(data[i].node_name), static_cast<Code>(data[i].code), to_view(data[i].plugin),
            to_view(data[i].message)};
  }
};
struct NodeAt {
  const schedhost_host_api_t* api;
  const schedhost_node_t* const* nodes;
  NodeInfo operator()(std::size_t i) const { return NodeInfo(api, nodes[i]); }
};
}  // namespace detail

// The nodes that failed Filter and why, for PostFilter.
using NodeStatusList = IndexRange<NodeStatus, detail::NodeStatusAt>;
// The feasible nodes, for PreScore.
using NodeList = IndexRange<NodeInfo, detail::NodeAt>;

// The scores of one plugin over the feasible nodes, rewritten in place by NormalizeScore.
class NodeScoreList {
 public:
  NodeScoreList(schedhost_node_score_t* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t size() const { return size_; }
  std::string_view node_name(std::size_t i) const { return to_view(data_[i].node_name); }
  std::int64_t& score(std::size_t i) { return data_[i].score; }
  std::int64_t score(std::size_t i) const { return data_[i].score; }

 private:
  schedhost_node_score_t* data_;
  std::size_t size_;
};

namespace detail {

// What create() allocates: the plugin and the host table its views need.
template <class T>
struct Instance {
  template <class... Args>
  explicit Instance(const schedhost_host_api_t* api_table, Args&&... args)
      : api(api_table), plugin(std::forward<Args>(args)...) {}
  const schedhost_host_api_t* api;
  T plugin;
};

template <class T>
Instance<T>& instance(void* self) {
  return *static_cast<Instance<T>*>(self);
}

// Reports a status to the host and returns its code.
inline schedhost_code_t report(const schedhost_host_api_t* api, schedhost_call_t* call,
                               const Status& status) {
  for (const std::string& reason : status.reasons())
    api->add_reason(call, to_str(reason));
  return static_cast<schedhost_code_t>(status.code());
}

// An exception caught at the ABI boundary: report_exception (ABI 1.4) lets the host count it as
// the plugin's fault; an older host gets it as a reason.
inline void report_exception(const schedhost_host_api_t* api, schedhost_call_t* call,
                             const char* what) noexcept {
  if (auto fn = host_fn(api, &schedhost_host_api_t::report_exception)) {
    fn(call, to_str(what));
  } else {
    api->add_reason(call, to_str(what));
  }
}

// The exception barrier: nothing thrown by plugin code ever crosses the C ABI.
template <class Body>
schedhost_code_t guard(const schedhost_host_api_t* api, schedhost_call_t* call,
                       Body&& body) noexcept {
  try {
    return report(api, call, body());
  } catch (const std::exception& e) {
    report_exception(api, call, e.what());
  } catch (...) {
    report_exception(api, call, "unknown exception");
  }
  return SCHEDHOST_ERROR;
}

// Hook detection: has_X<T> when T has a method X callable with X's arguments and returning R;
// names_X<T> when T has any non-overloaded member named X (used to catch wrong signatures).
#define SCHEDHOST_DETAIL_HOOK_TRAIT(Hook, Result, ...)                                          \
  template <class T, class = void>                                                              \
  struct has_##Hook : std::false_type {};                                                       \
  template <class T>                                                                            \
  struct has_##Hook<T, std::void_t<decltype(std::declval<T&>().Hook(__VA_ARGS__))>>             \
      : std::is_convertible<decltype(std::declval<T&>().Hook(__VA_ARGS__)), Result> {};         \
  template <class T, class = void>                                                              \
  struct names_##Hook : std::false_type {};                                                     \
  template <class T>                                                                            \
  struct names_##Hook<T, std::void_t<decltype(&T::Hook)>> : std::true_type {};                  \
  template <class T>                                                                            \
  constexpr bool check_##Hook() {                                                               \
    static_assert(                                                                              \
        has_##Hook<T>::value || !names_##Hook<T>::value,                                        \
        #Hook " has the wrong signature for a schedhost hook: see schedhost/detail/hooks.hpp"); \
    return has_##Hook<T>::value;                                                                \
  }

template <class T>
T& lvalue();  // declval for lvalue arguments in the traits below

SCHEDHOST_DETAIL_HOOK_TRAIT(PreEnqueue, Status, lvalue<Context>(), lvalue<const Pod>())
SCHEDHOST_DETAIL_HOOK_TRAIT(Less, bool, lvalue<const QueuedPod>(), lvalue<const QueuedPod>())
SCHEDHOST_DETAIL_HOOK_TRAIT(PreFilter, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), lvalue<PreFilterResult>())
SCHEDHOST_DETAIL_HOOK_TRAIT(AddPod, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), lvalue<const Pod>(), lvalue<const NodeInfo>())
SCHEDHOST_DETAIL_HOOK_TRAIT(RemovePod, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), lvalue<const Pod>(), lvalue<const NodeInfo>())
SCHEDHOST_DETAIL_HOOK_TRAIT(Filter, Status, lvalue<Context>(), lvalue<const CycleState>(),
                            lvalue<const Pod>(), lvalue<const NodeInfo>())
SCHEDHOST_DETAIL_HOOK_TRAIT(PostFilter, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), lvalue<const NodeStatusList>(),
                            lvalue<PostFilterResult>())
SCHEDHOST_DETAIL_HOOK_TRAIT(PreScore, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), lvalue<const NodeList>())
SCHEDHOST_DETAIL_HOOK_TRAIT(Score, Status, lvalue<Context>(), lvalue<const CycleState>(),
                            lvalue<const Pod>(), lvalue<const NodeInfo>(), lvalue<std::int64_t>())
SCHEDHOST_DETAIL_HOOK_TRAIT(NormalizeScore, Status, lvalue<Context>(), lvalue<const CycleState>(),
                            lvalue<const Pod>(), lvalue<NodeScoreList>())
SCHEDHOST_DETAIL_HOOK_TRAIT(Reserve, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), std::string_view())
SCHEDHOST_DETAIL_HOOK_TRAIT(Unreserve, void, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), std::string_view())
SCHEDHOST_DETAIL_HOOK_TRAIT(Permit, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), std::string_view(),
                            lvalue<std::chrono::milliseconds>())
SCHEDHOST_DETAIL_HOOK_TRAIT(PreBind, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), std::string_view())
SCHEDHOST_DETAIL_HOOK_TRAIT(PreBindPreFlight, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), std::string_view())
SCHEDHOST_DETAIL_HOOK_TRAIT(Bind, Status, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), std::string_view())
SCHEDHOST_DETAIL_HOOK_TRAIT(PostBind, void, lvalue<Context>(), lvalue<CycleState>(),
                            lvalue<const Pod>(), std::string_view())
SCHEDHOST_DETAIL_HOOK_TRAIT(EventsToRegister, void, lvalue<EventRegistry>())
SCHEDHOST_DETAIL_HOOK_TRAIT(IsSchedulableAfter, QueueingHint, lvalue<const Pod>(),
                            lvalue<const ClusterEvent>())
SCHEDHOST_DETAIL_HOOK_TRAIT(SignPod, Status, lvalue<Context>(), lvalue<const Pod>(),
                            lvalue<PodSignature>())
#undef SCHEDHOST_DETAIL_HOOK_TRAIT

}  // namespace detail

// Tags naming the extension points, for the hook list a plugin is declared with:
//   schedhost::plugin<GpuFilter, schedhost::hook::Filter, schedhost::hook::Score>("GpuFilter",
//   "...")
// Named as `schedhost plugins` lists them. QueueSort is the method Less; PreFilterExtensions is the
// pair AddPod and RemovePod; EnqueueExtensions is EventsToRegister, with IsSchedulableAfter when
// the plugin has a queueing hint; PreBind includes the optional PreBindPreFlight; SignPod is
// upstream's SignPlugin (opportunistic batching).
namespace hook {
struct PreEnqueue {};
struct QueueSort {};
struct PreFilter {};
struct PreFilterExtensions {};
struct Filter {};
struct PostFilter {};
struct PreScore {};
struct Score {};
struct NormalizeScore {};
struct Reserve {};
struct Unreserve {};
struct Permit {};
struct PreBind {};
struct Bind {};
struct PostBind {};
struct EnqueueExtensions {};
struct SignPod {};
}  // namespace hook

namespace detail {

template <class Tag, class... Declared>
inline constexpr bool is_declared = (std::is_same_v<Tag, Declared> || ...);

// One check per extension point, both ways: a declared hook must have its method with the exact
// signature (a misspelt `filter` or `Filters` fails here), and a method that is a hook must be
// declared (so the list is the whole truth about what the plugin does).
#define SCHEDHOST_DETAIL_DECLARED_HOOK(Tag, Implemented, Signature) \
  SCHEDHOST_DETAIL_DECLARED_HOOK_2(Tag, Implemented, Implemented, Signature)
#define SCHEDHOST_DETAIL_DECLARED_HOOK_2(Tag, Implemented, Started, Signature)                     \
  template <class T, class... Declared>                                                            \
  constexpr bool check_declared_##Tag() {                                                          \
    static_assert(!is_declared<hook::Tag, Declared...> || (Implemented),                           \
                  "the plugin is declared with hook::" #Tag                                        \
                  " but its class has no method " Signature " (misspelt, or another signature?)"); \
    static_assert(is_declared<hook::Tag, Declared...> || !(Started),                               \
                  "the plugin class implements " #Tag " but hook::" #Tag                           \
                  " is not in the hooks it is declared with: add it to schedhost::plugin<...>");   \
    return true;                                                                                   \
  }

SCHEDHOST_DETAIL_DECLARED_HOOK(PreEnqueue, has_PreEnqueue<T>::value,
                               "Status PreEnqueue(Context&, const Pod&)")
SCHEDHOST_DETAIL_DECLARED_HOOK(QueueSort, has_Less<T>::value,
                               "bool Less(const QueuedPod&, const QueuedPod&)")
SCHEDHOST_DETAIL_DECLARED_HOOK(PreFilter, has_PreFilter<T>::value,
                               "Status PreFilter(Context&, CycleState&, const Pod&, "
                               "PreFilterResult&)")
SCHEDHOST_DETAIL_DECLARED_HOOK_2(PreFilterExtensions,
                                 (has_AddPod<T>::value && has_RemovePod<T>::value),
                                 (has_AddPod<T>::value || has_RemovePod<T>::value),
                                 "Status AddPod(Context&, CycleState&, const Pod&, const Pod&, "
                                 "const NodeInfo&) and RemovePod with the same arguments")
SCHEDHOST_DETAIL_DECLARED_HOOK(Filter, has_Filter<T>::value,
                               "Status Filter(Context&, const CycleState&, const Pod&, "
                               "const NodeInfo&)")
SCHEDHOST_DETAIL_DECLARED_HOOK(PostFilter, has_PostFilter<T>::value,
                               "Status PostFilter(Context&, CycleState&, const Pod&, "
                               "const NodeStatusList&, PostFilterResult&)")
SCHEDHOST_DETAIL_DECLARED_HOOK(
    PreScore, has_PreScore<T>::value,
    "Status PreScore(Context&, CycleState&, const Pod&, const NodeList&)")
SCHEDHOST_DETAIL_DECLARED_HOOK(Score, has_Score<T>::value,
                               "Status Score(Context&, const CycleState&, const Pod&, "
                               "const NodeInfo&, int64_t&)")
SCHEDHOST_DETAIL_DECLARED_HOOK(NormalizeScore, has_NormalizeScore<T>::value,
                               "Status NormalizeScore(Context&, const CycleState&, const Pod&, "
                               "NodeScoreList&)")
SCHEDHOST_DETAIL_DECLARED_HOOK(
    Reserve, has_Reserve<T>::value,
    "Status Reserve(Context&, CycleState&, const Pod&, std::string_view)")
SCHEDHOST_DETAIL_DECLARED_HOOK(
    Unreserve, has_Unreserve<T>::value,
    "void Unreserve(Context&, CycleState&, const Pod&, std::string_view)")
SCHEDHOST_DETAIL_DECLARED_HOOK(Permit, has_Permit<T>::value,
                               "Status Permit(Context&, CycleState&, const Pod&, std::string_view, "
                               "std::chrono::milliseconds&)")
SCHEDHOST_DETAIL_DECLARED_HOOK_2(
    PreBind, has_PreBind<T>::value, (has_PreBind<T>::value || has_PreBindPreFlight<T>::value),
    "Status PreBind(Context&, CycleState&, const Pod&, std::string_view) (and, optionally, "
    "Status PreBindPreFlight with the same arguments)")
SCHEDHOST_DETAIL_DECLARED_HOOK(Bind, has_Bind<T>::value,
                               "Status Bind(Context&, CycleState&, const Pod&, std::string_view)")
SCHEDHOST_DETAIL_DECLARED_HOOK(PostBind, has_PostBind<T>::value,
                               "void PostBind(Context&, CycleState&, const Pod&, std::string_view)")
SCHEDHOST_DETAIL_DECLARED_HOOK_2(
    EnqueueExtensions, has_EventsToRegister<T>::value,
    (has_EventsToRegister<T>::value || has_IsSchedulableAfter<T>::value),
    "void EventsToRegister(EventRegistry&) (and, optionally, "
    "QueueingHint IsSchedulableAfter(const Pod&, const ClusterEvent&))")
SCHEDHOST_DETAIL_DECLARED_HOOK(SignPod, has_SignPod<T>::value,
                               "Status SignPod(Context&, const Pod&, PodSignature&)")
#undef SCHEDHOST_DETAIL_DECLARED_HOOK
#undef SCHEDHOST_DETAIL_DECLARED_HOOK_2

template <class Tag>
inline constexpr bool is_hook_tag =
    is_declared<Tag, hook::PreEnqueue, hook::QueueSort, hook::PreFilter, hook::PreFilterExtensions,
                hook::Filter, hook::PostFilter, hook::PreScore, hook::Score, hook::NormalizeScore,
                hook::Reserve, hook::Unreserve, hook::Permit, hook::PreBind, hook::Bind,
                hook::PostBind, hook::EnqueueExtensions, hook::SignPod>;

// Checks T against the hooks it is declared with (at compile time; true when it passes).
template <class T, class... Declared>
constexpr bool check_declared_hooks() {
  static_assert((is_hook_tag<Declared> && ...),
                "schedhost::plugin<T, ...>: after the class come schedhost::hook:: tags only");
  return check_declared_PreEnqueue<T, Declared...>() &&
         check_declared_QueueSort<T, Declared...>() && check_declared_PreFilter<T, Declared...>() &&
         check_declared_PreFilterExtensions<T, Declared...>() &&
         check_declared_Filter<T, Declared...>() && check_declared_PostFilter<T, Declared...>() &&
         check_declared_PreScore<T, Declared...>() && check_declared_Score<T, Declared...>() &&
         check_declared_NormalizeScore<T, Declared...>() &&
         check_declared_Reserve<T, Declared...>() && check_declared_Unreserve<T, Declared...>() &&
         check_declared_Permit<T, Declared...>() && check_declared_PreBind<T, Declared...>() &&
         check_declared_Bind<T, Declared...>() && check_declared_PostBind<T, Declared...>() &&
         check_declared_EnqueueExtensions<T, Declared...>() &&
         check_declared_SignPod<T, Declared...>();
}

// The C functions the host calls; each unwraps handles into views and calls T's method.
template <class T>
struct Thunks {
  using Self = Instance<T>;

  static schedhost_code_t create(const schedhost_host_api_t* api, const schedhost_host_t* host,
                                 schedhost_str_t args_json, schedhost_call_t* call,
                                 void** out_self) noexcept {
    *out_self = nullptr;
    // guard() catches a failed allocation below like any other exception.
    return guard(api, call, [&] {
      const nlohmann::json args =
          args_json.len == 0 ? nlohmann::json::object() : nlohmann::json::parse(to_view(args_json));
      if constexpr (std::is_constructible_v<T, const nlohmann::json&, const Host&>) {
        *out_self =
            new Self(api, args, Host(api, host));  // NOLINT(bugprone-unhandled-exception-at-new)
      } else if constexpr (std::is_constructible_v<T, const nlohmann::json&>) {
        *out_self = new Self(api, args);  // NOLINT(bugprone-unhandled-exception-at-new)
      } else {
        static_assert(std::is_default_constructible_v<T>,
                      "a plugin needs T(const nlohmann::json&, const Host&), "
                      "T(const nlohmann::json&) or T()");
        if (!args.empty()) return Status::Error("this plugin takes no args");
        *out_self = new Self(api);  // NOLINT(bugprone-unhandled-exception-at-new)
      }
      return Status();
    });
  }

  static void destroy(void* self) noexcept { delete static_cast<Self*>(self); }

  static schedhost_code_t pre_enqueue(void* self, schedhost_call_t* call,
                                      const schedhost_pod_t* pod) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      return s.plugin.PreEnqueue(ctx, Pod(s.api, pod));
    });
  }

  static bool queue_sort_less(void* self, const schedhost_queued_pod_t* a,
                              const schedhost_queued_pod_t* b) noexcept {
    Self& s = instance<T>(self);
    try {
      return s.plugin.Less(QueuedPod{Pod(s.api, a->pod), a->enqueued_ms, a->attempts},
                           QueuedPod{Pod(s.api, b->pod), b->enqueued_ms, b->attempts});
    } catch (...) {
      return false;  // a throwing comparator keeps the queue's current order
    }
  }

  static schedhost_code_t pre_filter(void* self, schedhost_call_t* call,
                                     schedhost_cycle_state_t* state,
                                     const schedhost_pod_t* pod) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      CycleState cs(s.api, state);
      PreFilterResult result;
      Status status = s.plugin.PreFilter(ctx, cs, Pod(s.api, pod), result);
      if (result.node_names) {
        std::vector<schedhost_str_t> names;
        names.reserve(result.node_names->size());
        for (const std::string& n : *result.node_names)
          names.push_back(to_str(n));
        s.api->set_node_names(call, names.data(), names.size());
      }
      return status;
    });
  }

  template <bool kAdd>
  static schedhost_code_t add_or_remove_pod(void* self, schedhost_call_t* call,
                                            schedhost_cycle_state_t* state,
                                            const schedhost_pod_t* pod,
                                            const schedhost_pod_t* other,
                                            const schedhost_node_t* node) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      CycleState cs(s.api, state);
      if constexpr (kAdd) {
        return s.plugin.AddPod(ctx, cs, Pod(s.api, pod), Pod(s.api, other), NodeInfo(s.api, node));
      } else {
        return s.plugin.RemovePod(ctx, cs, Pod(s.api, pod), Pod(s.api, other),
                                  NodeInfo(s.api, node));
      }
    });
  }

  static schedhost_code_t filter(void* self, schedhost_call_t* call,
                                 const schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                                 const schedhost_node_t* node) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      const CycleState cs(s.api, const_cast<schedhost_cycle_state_t*>(state));
      return s.plugin.Filter(ctx, cs, Pod(s.api, pod), NodeInfo(s.api, node));
    });
  }

  static schedhost_code_t post_filter(void* self, schedhost_call_t* call,
                                      schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                                      const schedhost_node_status_t* statuses,
                                      size_t count) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      CycleState cs(s.api, state);
      PostFilterResult result;
      Status status = s.plugin.PostFilter(
          ctx, cs, Pod(s.api, pod), NodeStatusList(count, detail::NodeStatusAt{statuses}), result);
      if (result.nominated_node_name) {
        s.api->set_nominated_node(call, to_str(*result.nominated_node_name));
      }
      if (auto add_victim = host_fn(s.api, &schedhost_host_api_t::add_victim)) {
        for (const std::string& uid : result.victims)
          add_victim(call, to_str(uid));
      }
      return status;
    });
  }

  static schedhost_code_t pre_score(void* self, schedhost_call_t* call,
                                    schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                                    const schedhost_node_t* const* nodes, size_t count) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      CycleState cs(s.api, state);
      return s.plugin.PreScore(ctx, cs, Pod(s.api, pod),
                               NodeList(count, detail::NodeAt{s.api, nodes}));
    });
  }

  static schedhost_code_t score(void* self, schedhost_call_t* call,
                                const schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                                const schedhost_node_t* node, int64_t* out_score) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      const CycleState cs(s.api, const_cast<schedhost_cycle_state_t*>(state));
      std::int64_t value = 0;
      Status status = s.plugin.Score(ctx, cs, Pod(s.api, pod), NodeInfo(s.api, node), value);
      *out_score = value;
      return status;
    });
  }

  static schedhost_code_t normalize_score(void* self, schedhost_call_t* call,
                                          const schedhost_cycle_state_t* state,
                                          const schedhost_pod_t* pod,
                                          schedhost_node_score_t* scores, size_t count) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      const CycleState cs(s.api, const_cast<schedhost_cycle_state_t*>(state));
      NodeScoreList list(scores, count);
      return s.plugin.NormalizeScore(ctx, cs, Pod(s.api, pod), list);
    });
  }

  // Reserve, Unreserve, PreBindPreFlight, PreBind, Bind and PostBind share one shape: (ctx,
  // state, pod, node).
  enum class NodeHook { Reserve, Unreserve, PreBindPreFlight, PreBind, Bind, PostBind };

  template <NodeHook kHook>
  static Status call_node_hook(T& plugin, Context& ctx, CycleState& cs, const Pod& pod,
                               std::string_view node) {
    if constexpr (kHook == NodeHook::Reserve) return plugin.Reserve(ctx, cs, pod, node);
    if constexpr (kHook == NodeHook::PreBindPreFlight) {
      return plugin.PreBindPreFlight(ctx, cs, pod, node);
    }
    if constexpr (kHook == NodeHook::PreBind) return plugin.PreBind(ctx, cs, pod, node);
    if constexpr (kHook == NodeHook::Bind) return plugin.Bind(ctx, cs, pod, node);
    if constexpr (kHook == NodeHook::Unreserve) plugin.Unreserve(ctx, cs, pod, node);
    if constexpr (kHook == NodeHook::PostBind) plugin.PostBind(ctx, cs, pod, node);
    return Status();
  }

  template <NodeHook kHook>
  static schedhost_code_t node_hook(void* self, schedhost_call_t* call,
                                    schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                                    schedhost_str_t node) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      CycleState cs(s.api, state);
      return call_node_hook<kHook>(s.plugin, ctx, cs, Pod(s.api, pod), to_view(node));
    });
  }

  // Unreserve and PostBind return nothing; a throw is still caught, and its message is given to
  // the host as a reason, which logs it.
  template <NodeHook kHook>
  static void void_node_hook(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                             const schedhost_pod_t* pod, schedhost_str_t node) noexcept {
    (void)node_hook<kHook>(self, call, state, pod, node);
  }

  static schedhost_code_t permit(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                                 const schedhost_pod_t* pod, schedhost_str_t node,
                                 uint32_t* out_timeout_ms) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      CycleState cs(s.api, state);
      std::chrono::milliseconds timeout{0};
      Status status = s.plugin.Permit(ctx, cs, Pod(s.api, pod), to_view(node), timeout);
      const auto ms = timeout.count();
      *out_timeout_ms = ms <= 0 ? 0u : ms > 0xFFFFFFFF ? 0xFFFFFFFFu : static_cast<uint32_t>(ms);
      return status;
    });
  }

  static schedhost_code_t events_to_register(void* self, schedhost_call_t* call) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      EventRegistry registry(s.api, call);
      s.plugin.EventsToRegister(registry);
      return Status();
    });
  }

  static schedhost_code_t sign_pod(void* self, schedhost_call_t* call,
                                   const schedhost_pod_t* pod) noexcept {
    Self& s = instance<T>(self);
    return guard(s.api, call, [&] {
      Context ctx(s.api, call);
      PodSignature signature(s.api, call);
      return s.plugin.SignPod(ctx, Pod(s.api, pod), signature);
    });
  }

  // A hint that throws answers Queue: when in doubt, the pod is tried again.
  static schedhost_queueing_hint_t queueing_hint(void* self, schedhost_call_t* call,
                                                 const schedhost_pod_t* pod,
                                                 const schedhost_cluster_event_t* event) noexcept {
    Self& s = instance<T>(self);
    try {
      return static_cast<schedhost_queueing_hint_t>(
          s.plugin.IsSchedulableAfter(Pod(s.api, pod), to_event(s.api, *event)));
    } catch (const std::exception& e) {
      report_exception(s.api, call, e.what());
    } catch (...) {
      report_exception(s.api, call, "unknown exception");
    }
    return SCHEDHOST_QUEUE;
  }
};

// The vtable of T: a hook pointer for each method T has, NULL for the others.
template <class T>
constexpr schedhost_plugin_vtable_t make_vtable() {
  using Th = Thunks<T>;
  schedhost_plugin_vtable_t v{};
  v.struct_size = sizeof(schedhost_plugin_vtable_t);
  v.create = &Th::create;
  v.destroy = &Th::destroy;
  if constexpr (check_PreEnqueue<T>()) v.pre_enqueue = &Th::pre_enqueue;
  if constexpr (check_Less<T>()) v.queue_sort_less = &Th::queue_sort_less;
  if constexpr (check_PreFilter<T>()) v.pre_filter = &Th::pre_filter;
  if constexpr (check_AddPod<T>()) v.add_pod = &Th::template add_or_remove_pod<true>;
  if constexpr (check_RemovePod<T>()) v.remove_pod = &Th::template add_or_remove_pod<false>;
  if constexpr (check_Filter<T>()) v.filter = &Th::filter;
  if constexpr (check_PostFilter<T>()) v.post_filter = &Th::post_filter;
  if constexpr (check_PreScore<T>()) v.pre_score = &Th::pre_score;
  if constexpr (check_Score<T>()) v.score = &Th::score;
  if constexpr (check_NormalizeScore<T>()) v.normalize_score = &Th::normalize_score;
  if constexpr (check_Reserve<T>()) v.reserve = &Th::template node_hook<Th::NodeHook::Reserve>;
  if constexpr (check_Unreserve<T>())
    v.unreserve = &Th::template void_node_hook<Th::NodeHook::Unreserve>;
  if constexpr (check_Permit<T>()) v.permit = &Th::permit;
  if constexpr (check_PreBind<T>()) v.pre_bind = &Th::template node_hook<Th::NodeHook::PreBind>;
  if constexpr (check_PreBindPreFlight<T>()) {
    static_assert(has_PreBind<T>::value,
                  "PreBindPreFlight is PreBind's first look: add Status PreBind(Context&, "
                  "CycleState&, const Pod&, std::string_view)");
    v.pre_bind_pre_flight = &Th::template node_hook<Th::NodeHook::PreBindPreFlight>;
  }
  if constexpr (check_Bind<T>()) v.bind = &Th::template node_hook<Th::NodeHook::Bind>;
  if constexpr (check_PostBind<T>())
    v.post_bind = &Th::template void_node_hook<Th::NodeHook::PostBind>;
  if constexpr (check_EventsToRegister<T>()) v.events_to_register = &Th::events_to_register;
  if constexpr (check_IsSchedulableAfter<T>()) {
    static_assert(has_EventsToRegister<T>::value,
                  "IsSchedulableAfter is the queueing hint of EventsToRegister's events: add "
                  "void EventsToRegister(EventRegistry&)");
    v.queueing_hint = &Th::queueing_hint;
  }
  if constexpr (check_SignPod<T>()) v.sign_pod = &Th::sign_pod;
  return v;
}

template <class T>
inline constexpr schedhost_plugin_vtable_t kVtable = make_vtable<T>();

}  // namespace detail
}  // namespace schedhost
