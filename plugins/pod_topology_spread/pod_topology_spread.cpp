// PodTopologySpread: upstream's default PreFilter (+AddPod/RemovePod) + Filter + PreScore + Score
// + NormalizeScore (kube-scheduler 1.35, with MinDomains and NodeInclusionPolicy on, both GA in
// 1.35, and MatchLabelKeys as its feature gate says). As 1.35 (and unlike 1.28, which
// kept one state per distinct topology key), every count is kept per constraint, so two constraints
// on the same topologyKey (say two DoNotSchedule constraints on zone with different selectors) are
// counted and checked each on its own. PreFilter's errors carry 1.35's "get constraints from pod: "
// prefix.
//
// EnqueueExtensions (v1.35, queueing hints on), judged by the pod's DoNotSchedule constraints (a
//   selector that does not parse queues): a pod of the same namespace added, relabelled or
//   deleted while scheduled queues when its labels (start to, stop to) match a constraint's
//   selector; the pending pod's own new tolerations queue when a constraint honours taints. A
//   node added or deleted queues when it has every constraint's topology key; a relabelled or
//   retainted node when it gains or loses one of them, or has them all and a key's value or its
//   taints changed.
//
// Args (PodTopologySpreadArgs): {"defaultingType": "System"|"List" (default System),
//   "defaultConstraints": [core/v1 TopologySpreadConstraint without labelSelector]}. Validated as
//   upstream's ValidatePodTopologySpreadArgs, e.g.
//   defaultingType: Invalid value: "System": when .defaultConstraints are not empty
//   defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)
//   (any other field is refused; the host removes upstream's "apiVersion" and "kind" first.)
//
// Constraints: the pod's spec.topologySpreadConstraints whose whenUnsatisfiable is DoNotSchedule
//   (filtering) or ScheduleAnyway (scoring); labelSelector null matches nothing, {} everything;
//   the pod's values for matchLabelKeys are ANDed into the selector (upstream's scheduler-side
//   merge, which v1.35 still does; with the API server's merge, gate
//   MatchLabelKeysInPodTopologySpreadSelectorMerge, the pairs are in labelSelector already and
//   ANDing them again changes nothing); minDomains defaults to 1, nodeAffinityPolicy to Honor,
//   nodeTaintsPolicy to Ignore. A pod without constraints of its own gets the default
//   constraints (System: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway; List:
//   defaultConstraints), each with the selector k8s::default_selector
//   (schedhost/k8s/default_selector.hpp, upstream's helper.DefaultSelector) deduces from the
//   snapshot's Services, ReplicationControllers, ReplicaSets and StatefulSets (ABI 1.8; the
//   cluster file loads them, and a snapshot without them gives an empty selector) in place of
//   any selector (so a default constraint's matchLabelKeys never apply); as upstream's
//   buildDefaultConstraints, an empty selector (a pod nothing selects) means no default
//   constraints. The selector is deduced in PreFilter and
//   PreScore, which see the snapshot; a queueing hint does not, so a pod spread by
//   DoNotSchedule defaults (only List can have them) is queued by every event it registered.
//
// Feature gate MatchLabelKeysInPodTopologySpread (v1.35: beta, on; read once at creation, as
//   upstream's New reads feature.Features): off, matchLabelKeys are ignored, the selector being
//   labelSelector alone. (v1.35's MatchLabelKeysInPodTopologySpreadSelectorMerge, beta and on, is
//   the API server's: the scheduler does not read it.)
//
// Counting: pods in the incoming pod's namespace, not terminating, matching the selector (an
//   empty selector counts nothing, as upstream's countPodsMatchSelector), on nodes that carry
//   every constraint's topology key and pass the constraint's node inclusion policies (Honor:
//   the pod's nodeSelector / required node affinity; taints Honor: no untolerated NoSchedule /
//   NoExecute taint).
//
// PreFilter: Skip without DoNotSchedule constraints; otherwise counts, per constraint, the
//   matching pods per domain (value of the constraint's key) over all nodes of the snapshot the
//   constraint counts (CycleState "PreFilterPodTopologySpread": upstream's TpValueToMatchNum[i]
//   and CriticalPaths[i], the two domains with the fewest matching pods, for constraint i).
//   AddPod/RemovePod update a copy, constraint by constraint.
// Filter: a node without a constraint's key is UnschedulableAndUnresolvable "node(s) didn't match
//   pod topology spread constraints (missing required label)"; for constraint i, count_i(node's
//   domain) + (selector matches the pod ? 1 : 0) - global minimum_i > maxSkew is Unschedulable
//   "node(s) didn't match pod topology spread constraints". The global minimum is the
//   constraint's critical path, or 0 when the constraint has fewer domains than minDomains
//   (len(TpValueToMatchNum[i]), so also when it has none).
// PreScore: Skip without nodes or without ScheduleAnyway constraints. Nodes lacking a key are
//   ignored (score 0) unless the constraints are the system defaults. Counts per constraint and
//   domain for the domains of the filtered nodes (pods on all eligible nodes: upstream's
//   TopologyValueToPodCounts[i]), hostname counted per node in Score; weight ln(#domains + 2)
//   per constraint (hostname: #filtered non-ignored nodes) (CycleState
//   "PreScorePodTopologySpread").
// Score: round(sum, over the constraints i whose key the node has, of count_i(node's domain) *
//   weight_i + maxSkew_i - 1).
// NormalizeScore: ignored nodes 0; max == 0: 100; else 100 * (max + min - score) / max.
//
// Kept counts (ABI 1.2): PreFilter's and PreScore's per-constraint, per-domain counts are kept
//   from pod to pod by counting_signature (all they depend on) and brought up to date from the
//   snapshot's journal; the states share them (copied before AddPod/RemovePod change them).
//   The verdicts and scores are a recount's (tests/cli/kept_counts_test.cpp).
#include <schedhost/k8s/default_selector.hpp>
#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/node_selector.hpp>
#include <schedhost/k8s/normalize_score.hpp>
#include <schedhost/k8s/toleration.hpp>
#include <schedhost/k8s/topology.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/kept_cache.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace k8s = schedhost::k8s;
using schedhost::Status;

constexpr std::string_view kPreFilterStateKey = "PreFilterPodTopologySpread";
constexpr std::string_view kPreScoreStateKey = "PreScorePodTopologySpread";
constexpr const char* kErrReasonConstraintsNotMatch =
    "node(s) didn't match pod topology spread constraints";
constexpr const char* kErrReasonNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required label)";

constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";
constexpr std::string_view kSystemDefaulting = "System";
constexpr std::string_view kListDefaulting = "List";
constexpr std::string_view kPolicyHonor = "Honor";
constexpr std::string_view kPolicyIgnore = "Ignore";

constexpr std::string_view kConstraintsPointer = "/spec/topologySpreadConstraints";
constexpr std::string_view kRequiredAffinityPointer =
    "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution";
constexpr std::string_view kNodeSelectorPointer = "/spec/nodeSelector";

// A core/v1 TopologySpreadConstraint as written (pod spec or args), before its selector is built.
struct RawConstraint {
  std::int64_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;
  nlohmann::json label_selector;  // null when absent
  std::optional<std::int64_t> min_domains;
  std::optional<std::string> node_affinity_policy;
  std::optional<std::string> node_taints_policy;
  std::vector<std::string> match_label_keys;
};

// One constraint as the plugin uses it (upstream topologySpreadConstraint).
struct Constraint {
  std::int64_t max_skew = 0;
  std::string topology_key;
  k8s::LabelSelector selector;
  std::int64_t min_domains = 1;
  bool honor_node_affinity = true;
  bool honor_node_taints = false;
  bool hostname = false;  // topology_key == kubernetes.io/hostname
};

// What both states share, immutable once built.
struct Constraints {
  std::vector<Constraint> list;
  // The distinct topology keys, in first-use order: a node that lacks one counts for no
  // constraint.
  std::vector<std::string> keys;
  k8s::RequiredNodeAffinity required;
  bool pod_has_own = false;  // from the pod's spec rather than the defaults
};

// ---- small JSON readers (the pod was validated by the API server; args are checked) ----------

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

const nlohmann::json* member(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string string_or_refuse(const nlohmann::json& j, const std::string& path) {
  if (!j.is_string()) refuse(path + ": must be a string, got " + j.dump());
  return j.get<std::string>();
}

std::int64_t integer_or_refuse(const nlohmann::json& j, const std::string& path) {
  if (!j.is_number_integer()) refuse(path + ": must be an integer, got " + j.dump());
  return j.get<std::int64_t>();
}

// A TopologySpreadConstraint object. strict: args (type problems refuse them, with their path);
// otherwise a pod's (ill-typed fields read as absent).
RawConstraint read_constraint(const nlohmann::json& j, const std::string& path, bool strict) {
  RawConstraint c;
  if (!j.is_object()) {
    if (strict) refuse(path + ": must be a TopologySpreadConstraint object, got " + j.dump());
    return c;
  }
  static const std::set<std::string, std::less<>> kFields = {
      "maxSkew",    "topologyKey",        "whenUnsatisfiable", "labelSelector",
      "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy",  "matchLabelKeys"};
  for (const auto& item : j.items()) {
    if (strict && kFields.count(item.key()) == 0) {
      refuse("unknown field \"" + path + "." + item.key() + "\"");
    }
  }
  auto str = [&](const char* name) -> std::optional<std::string> {
    const nlohmann::json* v = member(j, name);
    if (v == nullptr) return std::nullopt;
    if (strict) return string_or_refuse(*v, path + "." + name);
    return v->is_string() ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
  };
  auto integer = [&](const char* name) -> std::optional<std::int64_t> {
    const nlohmann::json* v = member(j, name);
    if (v == nullptr) return std::nullopt;
    if (strict) return integer_or_refuse(*v, path + "." + name);
    return v->is_number_integer() ? std::optional<std::int64_t>(v->get<std::int64_t>())
                                  : std::nullopt;
  };
  c.max_skew = integer("maxSkew").value_or(0);
  c.topology_key = str("topologyKey").value_or("");
  c.when_unsatisfiable = str("whenUnsatisfiable").value_or("");
  if (const nlohmann::json* s = member(j, "labelSelector")) c.label_selector = *s;
  c.min_domains = integer("minDomains");
  c.node_affinity_policy = str("nodeAffinityPolicy");
  c.node_taints_policy = str("nodeTaintsPolicy");
  if (const nlohmann::json* keys = member(j, "matchLabelKeys")) {
    if (!keys->is_array()) {
      if (strict) refuse(path + ".matchLabelKeys: must be a list of strings, got " + keys->dump());
    } else {
      for (std::size_t i = 0; i < keys->size(); ++i) {
        const nlohmann::json& k = (*keys)[i];
        if (strict) {
          c.match_label_keys.push_back(
              string_or_refuse(k, path + ".matchLabelKeys[" + std::to_string(i) + "]"));
        } else if (k.is_string()) {
          c.match_label_keys.push_back(k.get<std::string>());
        }
      }
    }
  }
  return c;
}

// One of upstream's systemDefaultConstraints: ScheduleAnyway, no selector.
RawConstraint system_default(std::int64_t max_skew, std::string_view key) {
  RawConstraint c;
  c.max_skew = max_skew;
  c.topology_key = std::string(key);
  c.when_unsatisfiable = std::string(kScheduleAnyway);
  return c;
}

// upstream mergeLabelSetWithSelector: the set's equalities ANDed with the selector's
// requirements; a selector that matches nothing stays so.
k8s::LabelSelector merge_label_set(const std::map<std::string, std::string>& set,
                                   const k8s::LabelSelector& selector) {
  if (selector.matches_nothing()) return selector;
  k8s::LabelSelector merged = k8s::LabelSelector::from_set(set);
  for (const k8s::Requirement& r : selector.requirements())
    merged.add(r);
  return merged;
}

// upstream countPodsMatchSelector: an empty selector counts nothing.
template <class Pods>
int count_pods(const Pods& pods, const k8s::LabelSelector& selector, std::string_view ns) {
  if (selector.matches_everything()) return 0;
  return k8s::count_matching_pods(pods, selector, ns);
}

// upstream matchNodeInclusionPolicies.
bool include_node(const Constraint& c, const schedhost::Pod& pod, const schedhost::NodeInfo& node,
                  const k8s::RequiredNodeAffinity& required) {
  if (c.honor_node_affinity && !required.matches(node)) return false;
  if (c.honor_node_taints && k8s::find_untolerated_taint(node.taints(), pod.tolerations())) {
    return false;
  }
  return true;
}

template <class Node>
bool has_all_keys(const Node& node, const Constraints& cs) {
  return k8s::has_all_topology_keys(node, cs.keys);
}

// upstream criticalPaths: the two domains with the fewest matching pods, [0] the minimum.
struct CriticalPaths {
  struct Path {
    std::string value;
    std::int64_t num = std::numeric_limits<std::int32_t>::max();
  };
  std::array<Path, 2> paths;

  void update(std::string_view value, std::int64_t num) {
    int i = -1;
    if (value == paths[0].value) {
      i = 0;
    } else if (value == paths[1].value) {
      i = 1;
    }
    if (i >= 0) {
      paths[i].num = num;
      if (paths[0].num > paths[1].num) std::swap(paths[0], paths[1]);
    } else if (num < paths[0].num) {
      paths[1] = paths[0];
      paths[0] = {std::string(value), num};
    } else if (num < paths[1].num) {
      paths[1] = {std::string(value), num};
    }
  }
};

// One constraint's Filter state (upstream TpValueToMatchNum[i] and CriticalPaths[i]): the
// matching pods per domain, and the two domains with the fewest. Its number of domains is the
// number of values counted, len(TpValueToMatchNum[i]).
struct ConstraintCounts {
  std::map<std::string, std::int64_t, std::less<>> match_num;
  CriticalPaths critical_paths;
};

using PerConstraint = std::vector<ConstraintCounts>;  // by constraint, in Constraints::list order

// Sets each constraint's critical paths from its counts, in value order (the order a fresh count
// visits them).
void summarize(PerConstraint& per_constraint) {
  for (ConstraintCounts& counts : per_constraint) {
    counts.critical_paths = CriticalPaths();
    for (const auto& [value, num] : counts.match_num)
      counts.critical_paths.update(value, num);
  }
}

struct PreFilterState {
  std::shared_ptr<const Constraints> constraints;  // shared by clones
  // Shared with the plugin's cross-cycle counts and with clones: copied before any change.
  std::shared_ptr<PerConstraint> counts;
  std::vector<char> self_match;  // by constraint: its selector matches the incoming pod

  PerConstraint& writable_counts() {
    if (counts.use_count() > 1) counts = std::make_shared<PerConstraint>(*counts);
    return *counts;
  }
};

// What both kinds of kept counts start with: what they count, and where they stand.
struct KeptSpread {
  std::shared_ptr<const Constraints> constraints;
  std::string ns;              // the incoming pod's: only pods of this namespace count
  std::uint64_t revision = 0;  // the snapshot revision they are up to date with
  std::size_t node_count = 0;
};

template <class Kept>
std::shared_ptr<Kept> start_kept(const schedhost::Pod& pod,
                                 const std::shared_ptr<const Constraints>& cs,
                                 std::uint64_t revision, std::size_t node_count) {
  auto kept = std::make_shared<Kept>();
  kept->constraints = cs;
  kept->ns = std::string(pod.namespace_name());
  kept->revision = revision;
  kept->node_count = node_count;
  return kept;
}

// PreFilter's counts for one set of constraints, kept from cycle to cycle and brought up to date
// from the snapshot's journal (ABI 1.2) instead of recounted: upstream recounts every pod on
// every node for each incoming pod, which is most of a spreading workload's time. Everything
// that decides the counts (namespace, constraints, the node inclusion inputs) is in the
// signature, so two pods with the same signature share the counts.
struct SpreadCounts : KeptSpread {
  // Per node and constraint (node * constraints + constraint): whether the node counts for it
  // (it has every key and passes the constraint's inclusion policies), and its value of the
  // constraint's key.
  std::vector<char> counted;
  std::vector<std::string> values;
  std::shared_ptr<PerConstraint> per_constraint;  // copied before a change while a state holds it
};

// PreScore's counts for one set of soft constraints, kept like SpreadCounts: per constraint, the
// matching pods per domain over every node the constraint counts (hostname constraints are
// counted per node in Score instead).
struct SpreadTotals : KeptSpread {
  // Per node and constraint (node * constraints + constraint): whether the node counts for it,
  // and its value of the constraint's key.
  std::vector<char> counted;
  std::vector<std::string> values;
  std::vector<std::map<std::string, std::int64_t, std::less<>>> per_constraint;
};

struct PreScoreState {
  std::shared_ptr<const Constraints> constraints;
  std::set<std::string, std::less<>> ignored_nodes;
  std::vector<std::map<std::string, std::int64_t, std::less<>>> pod_counts;  // by constraint
  std::vector<double> weights;                                               // by constraint
};

nlohmann::json pod_field(const schedhost::Pod& pod, std::string_view pointer) {
  const auto text = pod.json(pointer);
  return text ? nlohmann::json::parse(*text) : nlohmann::json();
}

Status state_missing(std::string_view prefix, std::string_view key) {
  return Status::Error(std::string(prefix) + k8s::go_quote(key) + " from cycleState: not found");
}

// upstream involvedInTopologySpreading: the pending pod itself, or a scheduled pod of its
// namespace (the only ones its constraints count).
bool involved_in_spreading(const schedhost::Pod& other, const schedhost::Pod& pod) {
  return other.uid() == pod.uid() ||
         (!other.node_name().empty() && other.namespace_name() == pod.namespace_name());
}

// upstream podLabelsMatchSpreadConstraints: some constraint's selector matches the pod.
bool matches_some_selector(const Constraints& cs, const schedhost::Pod& pod) {
  return std::any_of(cs.list.begin(), cs.list.end(),
                     [&](const Constraint& c) { return c.selector.matches(pod); });
}

// equality.Semantic.DeepEqual of two label maps (nil and empty are equal).
template <class A, class B>
bool same_labels(const A& a, const B& b) {
  if (a.labels().size() != b.labels().size()) return false;
  for (const schedhost::KeyValue kv : a.labels()) {
    if (b.label(kv.key) != kv.value) return false;
  }
  return true;
}

// DeepEqual of the pods' spec.tolerations, field by field.
bool same_tolerations(const schedhost::Pod& a, const schedhost::Pod& b) {
  const auto x = a.tolerations();
  const auto y = b.tolerations();
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const schedhost::Toleration s = x[i], t = y[i];
    if (s.key != t.key || s.op != t.op || s.value != t.value || s.effect != t.effect ||
        s.toleration_seconds != t.toleration_seconds) {
      return false;
    }
  }
  return true;
}

// DeepEqual of the nodes' spec.taints (key, value, effect: the SDK has no timeAdded).
bool same_taints(const schedhost::NodeInfo& a, const schedhost::NodeInfo& b) {
  const auto x = a.taints();
  const auto y = b.taints();
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const schedhost::Taint s = x[i], t = y[i];
    if (s.key != t.key || s.value != t.value || s.effect != t.effect) return false;
  }
  return true;
}

// upstream checkTopologyKeyLabelsChanged (a missing label reads as "").
bool topology_values_changed(const schedhost::NodeInfo& a, const schedhost::NodeInfo& b,
                             const Constraints& cs) {
  for (const Constraint& c : cs.list) {
    if (a.label(c.topology_key).value_or("") != b.label(c.topology_key).value_or("")) return true;
  }
  return false;
}

// upstream isSchedulableAfterPodChange, for a pod involved in the spreading.
schedhost::QueueingHint after_pod_change(const schedhost::Pod& pod,
                                         const schedhost::ClusterEvent& event,
                                         const Constraints& cs) {
  using schedhost::QueueingHint;
  const auto& before = event.old_pod;
  const auto& after = event.new_pod;
  if (before && after) {
    const bool honors_taints = std::any_of(cs.list.begin(), cs.list.end(),
                                           [](const Constraint& c) { return c.honor_node_taints; });
    if (after->uid() == pod.uid() && honors_taints && !same_tolerations(*before, *after)) {
      return QueueingHint::kQueue;  // a new toleration may let it count (and use) tainted nodes
    }
    if (same_labels(*before, *after)) return QueueingHint::kSkip;
    for (const Constraint& c : cs.list) {
      if (c.selector.matches(*before) != c.selector.matches(*after)) return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  if (after) return matches_some_selector(cs, *after) ? QueueingHint::kQueue : QueueingHint::kSkip;
  if (!before) return QueueingHint::kQueue;
  return matches_some_selector(cs, *before) ? QueueingHint::kQueue : QueueingHint::kSkip;
}

// upstream isSchedulableAfterNodeChange.
schedhost::QueueingHint after_node_change(const schedhost::ClusterEvent& event,
                                          const Constraints& cs) {
  using schedhost::QueueingHint;
  const auto& before = event.old_node;
  const auto& after = event.new_node;
  const bool before_matches = before && has_all_keys(*before, cs);
  const bool after_matches = after && has_all_keys(*after, cs);
  if (before && after) {
    if (before_matches != after_matches) return QueueingHint::kQueue;
    if (after_matches &&
        (topology_values_changed(*before, *after, cs) || !same_taints(*before, *after))) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  if (after) return after_matches ? QueueingHint::kQueue : QueueingHint::kSkip;
  return before_matches ? QueueingHint::kQueue : QueueingHint::kSkip;
}

class PodTopologySpread {
 public:
  // Spreading depends on where other pods are: a pod with constraints, its own or the
  // defaults, is not signed (so the default profile, with the system defaults, never batches).
  // As upstream, any default constraint refuses every pod without constraints of its own,
  // whatever selects it, so SignPod needs no snapshot (it has none).
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature&) const {
    if (has_own_constraints(pod)) {
      return schedhost::Status::Unschedulable("pods with topology constraints are not signable");
    }
    if (!default_constraints_.empty()) {
      return schedhost::Status::Unschedulable(
          "pods with default topology constraints are not signable");
    }
    return {};
  }
  // Upstream's EventsToRegister (v1.35, queueing hints on).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    namespace action = schedhost::action;
    events.add(schedhost::resource::kPod, action::kAdd | action::kUpdatePodLabel |
                                              action::kUpdatePodToleration | action::kDelete);
    events.add(schedhost::resource::kNode, action::kAdd | action::kDelete |
                                               action::kUpdateNodeLabel | action::kUpdateNodeTaint);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    const bool pod_event = event.resource == schedhost::resource::kPod;
    if (pod_event && ((event.new_pod && !involved_in_spreading(*event.new_pod, pod)) ||
                      (event.old_pod && !involved_in_spreading(*event.old_pod, pod)))) {
      return schedhost::QueueingHint::kSkip;
    }
    // The default constraints' selector comes from the snapshot's objects, which a queueing hint
    // does not see: with DoNotSchedule defaults (List defaulting) any event may matter.
    if (uses_defaults(pod, kDoNotSchedule)) return schedhost::QueueingHint::kQueue;
    std::shared_ptr<const Constraints> constraints;
    try {
      constraints = constraints_for(pod, kDoNotSchedule, std::nullopt, "", "");
    } catch (const std::exception&) {
      return schedhost::QueueingHint::kQueue;  // upstream: getConstraints' error
    }
    if (pod_event) return after_pod_change(pod, event, *constraints);
    return after_node_change(event, *constraints);
  }

  PodTopologySpread(const nlohmann::json& args, const schedhost::Host& host)
      : match_label_keys_(host.feature_enabled("MatchLabelKeysInPodTopologySpread", true)) {
    if (!args.is_object()) {
      refuse("args must be an object (PodTopologySpreadArgs), got " + args.dump());
    }
    for (const auto& item : args.items()) {
      if (item.key() != "defaultingType" && item.key() != "defaultConstraints") {
        refuse("unknown field \"" + item.key() +
               "\": PodTopologySpread args have defaultingType and defaultConstraints");
      }
    }
    std::string defaulting(kSystemDefaulting);
    if (const nlohmann::json* t = member(args, "defaultingType")) {
      defaulting = string_or_refuse(*t, "defaultingType");
    }
    std::vector<RawConstraint> defaults;
    if (const nlohmann::json* list = member(args, "defaultConstraints")) {
      if (!list->is_array()) {
        refuse("defaultConstraints: must be a list of TopologySpreadConstraint, got " +
               list->dump());
      }
      for (std::size_t i = 0; i < list->size(); ++i) {
        defaults.push_back(
            read_constraint((*list)[i], "defaultConstraints[" + std::to_string(i) + "]", true));
      }
    }
    validate(defaulting, defaults);
    if (defaulting == kSystemDefaulting) {
      system_defaulted_ = true;
      default_constraints_ = {system_default(3, k8s::kLabelHostname),
                              system_default(5, k8s::kLabelTopologyZone)};
    } else {
      default_constraints_ = std::move(defaults);
    }
  }

  Status PreFilter(schedhost::Context& ctx, schedhost::CycleState& state, const schedhost::Pod& pod,
                   schedhost::PreFilterResult&) const {
    const schedhost::Context::SnapshotVersion version = ctx.snapshot_version();
    const std::optional<k8s::LabelSelector> defaults = defaults_selector(ctx, pod, kDoNotSchedule);
    std::string signature = counting_signature(pod, defaults);
    std::shared_ptr<SpreadCounts> counts = counts_cache_.find(signature, version.id);
    std::shared_ptr<const Constraints> cs;
    if (counts != nullptr) {
      cs = counts->constraints;
    } else {
      try {
        cs = constraints_for(pod, kDoNotSchedule, defaults,
                             "obtaining pod's hard topology spread constraints",
                             "setting default hard topology spread constraints");
      } catch (const std::exception& e) {
        return Status::Error(std::string("get constraints from pod: ") + e.what());
      }
    }
    if (cs->list.empty()) return Status::Skip();
    if (counts == nullptr) {
      counts = count_all(ctx, pod, cs, version.revision);
      counts_cache_.keep(std::move(signature), version.id, counts);
    } else {
      catch_up(ctx, *counts, version.revision);
    }

    PreFilterState s;
    s.constraints = cs;
    s.counts = counts->per_constraint;
    for (const Constraint& c : cs->list)
      s.self_match.push_back(c.selector.matches(pod) ? 1 : 0);
    state.emplace<PreFilterState>(kPreFilterStateKey, std::move(s));
    return {};
  }

  Status AddPod(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod& pod,
                const schedhost::Pod& to_add, const schedhost::NodeInfo& node) const {
    return update_with_pod(state, pod, to_add, node, 1);
  }

  Status RemovePod(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod& pod,
                   const schedhost::Pod& to_remove, const schedhost::NodeInfo& node) const {
    return update_with_pod(state, pod, to_remove, node, -1);
  }

  Status Filter(schedhost::Context&, const schedhost::CycleState& state, const schedhost::Pod&,
                const schedhost::NodeInfo& node) const {
    const PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey);
    if (s == nullptr) return state_missing("reading ", kPreFilterStateKey);
    const auto& list = s->constraints->list;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Constraint& c = list[i];
      const auto value = node.label(c.topology_key);
      if (!value) return Status::UnschedulableAndUnresolvable(kErrReasonNodeLabelNotMatch);
      const ConstraintCounts& counts = (*s->counts)[i];
      // upstream minMatchNum: the critical path, or 0 with fewer domains than minDomains.
      std::int64_t min_match = counts.critical_paths.paths[0].num;
      if (static_cast<std::int64_t>(counts.match_num.size()) < c.min_domains) min_match = 0;
      const auto it = counts.match_num.find(*value);
      const std::int64_t match = it == counts.match_num.end() ? 0 : it->second;
      if (match + (s->self_match[i] != 0 ? 1 : 0) - min_match > c.max_skew) {
        return Status::Unschedulable(kErrReasonConstraintsNotMatch);
      }
    }
    return {};
  }

  Status PreScore(schedhost::Context& ctx, schedhost::CycleState& state, const schedhost::Pod& pod,
                  const schedhost::NodeList& nodes) const {
    if (nodes.empty() || ctx.nodes().empty()) return Status::Skip();
    const schedhost::Context::SnapshotVersion version = ctx.snapshot_version();
    const std::optional<k8s::LabelSelector> defaults = defaults_selector(ctx, pod, kScheduleAnyway);
    std::string signature = counting_signature(pod, defaults);
    std::shared_ptr<SpreadTotals> totals = totals_cache_.find(signature, version.id);
    std::shared_ptr<const Constraints> cs;
    if (totals != nullptr) {
      cs = totals->constraints;
    } else {
      try {
        cs = constraints_for(pod, kScheduleAnyway, defaults,
                             "calculating preScoreState: obtaining pod's soft topology spread "
                             "constraints",
                             "calculating preScoreState: setting default soft topology spread "
                             "constraints");
      } catch (const std::exception& e) {
        return Status::Error(e.what());
      }
    }
    if (cs->list.empty()) return Status::Skip();

    // Nodes lacking a key are ignored unless the constraints are the system defaults (so that
    // nodes without a zone still get hostname spreading).
    const bool require_all = cs->pod_has_own || !system_defaulted_;
    PreScoreState s;
    s.constraints = cs;
    s.pod_counts.resize(cs->list.size());
    std::vector<std::int64_t> topology_size(cs->list.size(), 0);
    for (const schedhost::NodeInfo node : nodes) {
      if (require_all && !has_all_keys(node, *cs)) {
        s.ignored_nodes.emplace(node.name());
        continue;
      }
      for (std::size_t i = 0; i < cs->list.size(); ++i) {
        const Constraint& c = cs->list[i];
        if (c.hostname) continue;  // counted per node in Score
        const std::string_view value = node.label(c.topology_key).value_or(std::string_view());
        auto& counts = s.pod_counts[i];
        if (counts.find(value) == counts.end()) {
          counts.emplace(std::string(value), 0);
          ++topology_size[i];
        }
      }
    }
    s.weights.resize(cs->list.size());
    for (std::size_t i = 0; i < cs->list.size(); ++i) {
      std::int64_t size = topology_size[i];
      if (cs->list[i].hostname) {
        size = static_cast<std::int64_t>(nodes.size()) -
               static_cast<std::int64_t>(s.ignored_nodes.size());
      }
      s.weights[i] = std::log(static_cast<double>(size + 2));
    }

    // The matching pods per domain of the candidate nodes, from the totals over every counted
    // node (kept across pods, caught up from the snapshot's journal).
    if (totals == nullptr) {
      totals = count_totals(ctx, pod, cs, require_all, version.revision);
      totals_cache_.keep(std::move(signature), version.id, totals);
    } else {
      catch_up(ctx, *totals, version.revision);
    }
    for (std::size_t j = 0; j < cs->list.size(); ++j) {
      const Constraint& c = cs->list[j];
      if (c.hostname) continue;  // counted per node in Score
      const auto& domain_totals = totals->per_constraint[j];
      for (auto& [value, count] : s.pod_counts[j]) {
        const auto it = domain_totals.find(value);
        if (it != domain_totals.end()) count += it->second;
      }
    }
    state.emplace<PreScoreState>(kPreScoreStateKey, std::move(s));
    return {};
  }

  Status Score(schedhost::Context&, const schedhost::CycleState& state, const schedhost::Pod& pod,
               const schedhost::NodeInfo& node, std::int64_t& score) const {
    const PreScoreState* s = state.read<PreScoreState>(kPreScoreStateKey);
    if (s == nullptr) return state_missing("error reading ", kPreScoreStateKey);
    score = 0;
    if (s->ignored_nodes.count(node.name()) != 0) return {};
    double sum = 0;
    const auto& list = s->constraints->list;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Constraint& c = list[i];
      const auto value = node.label(c.topology_key);
      if (!value) continue;
      std::int64_t count = 0;
      if (c.hostname) {
        count = count_pods(node.pods(), c.selector, pod.namespace_name());
      } else {
        const auto& counts = s->pod_counts[i];
        const auto it = counts.find(*value);
        if (it != counts.end()) count = it->second;
      }
      sum += static_cast<double>(count) * s->weights[i] + static_cast<double>(c.max_skew - 1);
    }
    score = static_cast<std::int64_t>(std::round(sum));
    return {};
  }

  Status NormalizeScore(schedhost::Context&, const schedhost::CycleState& state,
                        const schedhost::Pod&, schedhost::NodeScoreList& scores) const {
    const PreScoreState* s = state.read<PreScoreState>(kPreScoreStateKey);
    if (s == nullptr) return state_missing("error reading ", kPreScoreStateKey);
    std::int64_t min_score = std::numeric_limits<std::int64_t>::max();
    std::int64_t max_score = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (s->ignored_nodes.count(scores.node_name(i)) != 0) continue;
      min_score = std::min(min_score, scores.score(i));
      max_score = std::max(max_score, scores.score(i));
    }
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (s->ignored_nodes.count(scores.node_name(i)) != 0) {
        scores.score(i) = 0;
      } else if (max_score == 0) {
        scores.score(i) = k8s::kMaxNodeScore;
      } else {
        scores.score(i) =
            k8s::kMaxNodeScore * (max_score + min_score - scores.score(i)) / max_score;
      }
    }
    return {};
  }

 private:
  // upstream ValidatePodTopologySpreadArgs (root path).
  static void validate(const std::string& defaulting, const std::vector<RawConstraint>& defaults) {
    std::vector<k8s::FieldError> errors;
    const k8s::FieldPath type_path("defaultingType");
    if (defaulting != kSystemDefaulting && defaulting != kListDefaulting) {
      errors.push_back(k8s::FieldError::not_supported(type_path, defaulting,
                                                      {kSystemDefaulting, kListDefaulting}));
    } else if (defaulting == kSystemDefaulting && !defaults.empty()) {
      errors.push_back(k8s::FieldError::invalid(type_path, k8s::go_quote(defaulting),
                                                "when .defaultConstraints are not empty"));
    }
    const k8s::FieldPath list_path("defaultConstraints");
    for (std::size_t i = 0; i < defaults.size(); ++i) {
      const RawConstraint& c = defaults[i];
      const k8s::FieldPath p = list_path.index(i);
      if (c.max_skew <= 0) {
        errors.push_back(k8s::FieldError::invalid(p.child("maxSkew"), std::to_string(c.max_skew),
                                                  "not in valid range (0, inf)"));
      }
      const k8s::FieldPath key_path = p.child("topologyKey");
      if (c.topology_key.empty()) {
        errors.push_back({key_path.str(), "Required value", "", "can not be empty"});
      } else {
        for (const std::string& msg : k8s::is_qualified_name(c.topology_key)) {
          errors.push_back(k8s::FieldError::invalid(key_path, k8s::go_quote(c.topology_key), msg));
        }
      }
      const k8s::FieldPath when_path = p.child("whenUnsatisfiable");
      if (c.when_unsatisfiable.empty()) {
        errors.push_back({when_path.str(), "Required value", "", "can not be empty"});
      } else if (c.when_unsatisfiable != kDoNotSchedule &&
                 c.when_unsatisfiable != kScheduleAnyway) {
        errors.push_back(k8s::FieldError::not_supported(when_path, c.when_unsatisfiable,
                                                        {kDoNotSchedule, kScheduleAnyway}));
      }
      if (!c.label_selector.is_null()) {
        errors.push_back({p.child("labelSelector").str(), "Forbidden", "",
                          "constraint must not define a selector, as they deduced for each pod"});
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (defaults[j].topology_key == c.topology_key &&
            defaults[j].when_unsatisfiable == c.when_unsatisfiable) {
          errors.push_back({p.str(), "Duplicate value",
                            k8s::go_quote("{" + c.topology_key + ", " + c.when_unsatisfiable + "}"),
                            ""});
          break;
        }
      }
    }
    if (!errors.empty()) refuse(k8s::aggregate(errors));
  }

  // upstream filterTopologySpreadConstraints: the constraints with this action, their selectors
  // built (the pod's values for matchLabelKeys merged in while MatchLabelKeysInPodTopologySpread
  // is on). selector_override replaces every selector (defaults).
  std::vector<Constraint> filter_constraints(
      const std::vector<RawConstraint>& raw, std::string_view action, const schedhost::Pod& pod,
      const std::optional<k8s::LabelSelector>& selector_override) const {
    std::vector<Constraint> out;
    for (const RawConstraint& r : raw) {
      if (r.when_unsatisfiable != action) continue;
      Constraint c;
      c.max_skew = r.max_skew;
      c.topology_key = r.topology_key;
      if (selector_override) {
        c.selector = *selector_override;
      } else {
        c.selector = k8s::LabelSelector::parse(r.label_selector);  // throws ParseError
        if (match_label_keys_) {
          std::map<std::string, std::string> match_labels;
          for (const std::string& key : r.match_label_keys) {
            if (const auto v = pod.label(key)) match_labels.emplace(key, std::string(*v));
          }
          if (!match_labels.empty()) c.selector = merge_label_set(match_labels, c.selector);
        }
      }
      c.min_domains = r.min_domains.value_or(1);
      c.honor_node_affinity =
          r.node_affinity_policy.value_or(std::string(kPolicyHonor)) != kPolicyIgnore;
      c.honor_node_taints =
          r.node_taints_policy.value_or(std::string(kPolicyIgnore)) == kPolicyHonor;
      out.push_back(std::move(c));
    }
    return out;
  }

  // Whether the pod's spec.topologySpreadConstraints is set (upstream: len(...) > 0).
  static bool has_own_constraints(const schedhost::Pod& pod) {
    const auto own = pod.json(kConstraintsPointer);
    return own && *own != "[]" && *own != "null";
  }

  // Whether the pod is spread by default constraints for `action`: it has none of its own and
  // some default constraint has that action (upstream then asks helper.DefaultSelector).
  bool uses_defaults(const schedhost::Pod& pod, std::string_view action) const {
    if (has_own_constraints(pod)) return false;
    return std::any_of(default_constraints_.begin(), default_constraints_.end(),
                       [&](const RawConstraint& c) { return c.when_unsatisfiable == action; });
  }

  // The default constraints' selector for `action` (k8s::default_selector over the snapshot's
  // Services, ReplicationControllers, ReplicaSets and StatefulSets), or nullopt when the pod is
  // not spread by default constraints for it.
  std::optional<k8s::LabelSelector> defaults_selector(const schedhost::Context& ctx,
                                                      const schedhost::Pod& pod,
                                                      std::string_view action) const {
    if (!uses_defaults(pod, action)) return std::nullopt;
    return k8s::default_selector(ctx, pod);
  }

  // The pod's constraints for `action` (its own, or the defaults with `default_selector`, as
  // upstream's buildDefaultConstraints: an empty selector gives none), ready for counting;
  // throws std::runtime_error with upstream's wording when a selector does not parse.
  std::shared_ptr<const Constraints> constraints_for(
      const schedhost::Pod& pod, std::string_view action,
      const std::optional<k8s::LabelSelector>& default_selector, const char* own_error,
      const char* default_error) const {
    auto cs = std::make_shared<Constraints>();
    cs->pod_has_own = has_own_constraints(pod);
    if (cs->pod_has_own) {
      const nlohmann::json own = pod_field(pod, kConstraintsPointer);
      std::vector<RawConstraint> raw;
      if (own.is_array()) {
        for (const nlohmann::json& j : own)
          raw.push_back(read_constraint(j, "", false));
      }
      try {
        cs->list = filter_constraints(raw, action, pod, std::nullopt);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string(own_error) + ": " + e.what());
      }
    } else {
      try {
        cs->list =
            filter_constraints(default_constraints_, action, pod, k8s::LabelSelector::nothing());
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string(default_error) + ": " + e.what());
      }
      if (!cs->list.empty()) {
        if (!default_selector || default_selector->matches_everything()) {
          cs->list.clear();
        } else {
          for (Constraint& c : cs->list)
            c.selector = *default_selector;
        }
      }
    }
    if (cs->list.empty()) return cs;
    for (Constraint& c : cs->list) {
      c.hostname = c.topology_key == k8s::kLabelHostname;
      if (std::find(cs->keys.begin(), cs->keys.end(), c.topology_key) == cs->keys.end()) {
        cs->keys.push_back(c.topology_key);
      }
    }
    const auto node_selector = pod.json(kNodeSelectorPointer);
    const auto required = pod.json(kRequiredAffinityPointer);
    cs->required = k8s::RequiredNodeAffinity::parse_texts(node_selector, required);
    return cs;
  }

  // upstream updateWithPod, on this cycle's copy of the PreFilter state.
  static Status update_with_pod(schedhost::CycleState& state, const schedhost::Pod& pod,
                                const schedhost::Pod& other, const schedhost::NodeInfo& node,
                                std::int64_t delta) {
    PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey);
    if (s == nullptr) return state_missing("reading ", kPreFilterStateKey);
    if (other.namespace_name() != pod.namespace_name()) return {};
    const Constraints& cs = *s->constraints;
    if (!has_all_keys(node, cs)) return {};
    for (std::size_t i = 0; i < cs.list.size(); ++i) {
      const Constraint& c = cs.list[i];
      if (!c.selector.matches(other)) continue;
      if (!include_node(c, pod, node, cs.required)) continue;
      const std::string_view value = *node.label(c.topology_key);
      ConstraintCounts& counts = s->writable_counts()[i];
      auto it = counts.match_num.find(value);
      if (it == counts.match_num.end()) it = counts.match_num.emplace(std::string(value), 0).first;
      it->second += delta;
      counts.critical_paths.update(value, it->second);
    }
    return {};
  }

  // Everything PreFilter's (or PreScore's) constraints and counts depend on, as one string: the
  // namespace, the constraints as written, the labels matchLabelKeys may read, the node
  // inclusion inputs (nodeSelector, required node affinity, tolerations when a constraint honors
  // taints), and for default constraints the selector deduced from the objects selecting the pod
  // (those objects may change while the snapshot id does not).
  static std::string counting_signature(const schedhost::Pod& pod,
                                        const std::optional<k8s::LabelSelector>& defaults) {
    constexpr char kSep = '\x1f';
    const std::string_view constraints = pod.json(kConstraintsPointer).value_or("");
    std::string out;
    out.append(pod.namespace_name()).push_back(kSep);
    out.append(constraints).push_back(kSep);
    if (constraints.find("matchLabelKeys") != std::string_view::npos) {
      for (const auto& kv : pod.labels())
        out.append(kv.key).append("=").append(kv.value).push_back(kSep);
    }
    out.append(pod.json(kNodeSelectorPointer).value_or("")).push_back(kSep);
    out.append(pod.json(kRequiredAffinityPointer).value_or("")).push_back(kSep);
    if (constraints.find("nodeTaintsPolicy") != std::string_view::npos) {
      out.append(pod.json("/spec/tolerations").value_or(""));
    }
    if (defaults) {
      out.push_back(kSep);
      for (const k8s::Requirement& r : defaults->requirements()) {
        out.append(r.key()).push_back(kSep);
        out.append(std::to_string(static_cast<int>(r.op()))).push_back(kSep);
        for (const std::string& v : r.values())
          out.append(v).push_back(kSep);
        out.push_back('\x1e');
      }
    }
    return out;
  }

  // upstream calPreFilterState's count over every node.
  static std::shared_ptr<SpreadCounts> count_all(const schedhost::Context& ctx,
                                                 const schedhost::Pod& pod,
                                                 const std::shared_ptr<const Constraints>& cs,
                                                 std::uint64_t revision) {
    const auto nodes = ctx.nodes();
    auto counts = start_kept<SpreadCounts>(pod, cs, revision, nodes.size());
    const std::size_t nc = cs->list.size();
    counts->counted.assign(nodes.size() * nc, 0);
    counts->values.resize(nodes.size() * nc);
    // Per node and constraint: the matching pods (-1: not counted). Counted on the host's threads
    // (upstream's parallel loop), then summed per constraint and domain in node order.
    std::vector<std::int64_t> node_counts(nodes.size() * nc, -1);
    ctx.parallel_for(nodes.size(), [&](std::size_t i) {
      const schedhost::NodeInfo node = nodes[i];
      if (!has_all_keys(node, *cs)) return;  // a node without every key counts nowhere
      for (std::size_t j = 0; j < nc; ++j) {
        const Constraint& c = cs->list[j];
        if (!include_node(c, pod, node, cs->required)) continue;
        const std::size_t slot = i * nc + j;
        node_counts[slot] = count_pods(node.pods(), c.selector, counts->ns);
        counts->counted[slot] = 1;
        counts->values[slot] = std::string(*node.label(c.topology_key));
      }
    });
    counts->per_constraint = std::make_shared<PerConstraint>(nc);
    for (std::size_t slot = 0; slot < node_counts.size(); ++slot) {
      if (node_counts[slot] < 0) continue;
      auto& match_num = (*counts->per_constraint)[slot % nc].match_num;
      auto it = match_num.find(counts->values[slot]);
      if (it == match_num.end()) it = match_num.emplace(counts->values[slot], 0).first;
      it->second += node_counts[slot];
    }
    summarize(*counts->per_constraint);
    return counts;
  }

  // upstream initPreScoreState's count over every node, per constraint and domain.
  static std::shared_ptr<SpreadTotals> count_totals(const schedhost::Context& ctx,
                                                    const schedhost::Pod& pod,
                                                    const std::shared_ptr<const Constraints>& cs,
                                                    bool require_all, std::uint64_t revision) {
    const auto all = ctx.nodes();
    auto totals = start_kept<SpreadTotals>(pod, cs, revision, all.size());
    const std::size_t nc = cs->list.size();
    totals->counted.assign(all.size() * nc, 0);
    totals->values.resize(all.size() * nc);
    // Per node and constraint: the matching pods (-1: not counted), on the host's threads; then
    // added up per domain in node order.
    std::vector<std::int64_t> node_counts(all.size() * nc, -1);
    ctx.parallel_for(all.size(), [&](std::size_t i) {
      const schedhost::NodeInfo node = all[i];
      if (require_all && !has_all_keys(node, *cs)) return;
      for (std::size_t j = 0; j < nc; ++j) {
        const Constraint& c = cs->list[j];
        if (c.hostname) continue;
        if (!include_node(c, pod, node, cs->required)) continue;
        const std::size_t slot = i * nc + j;
        node_counts[slot] = count_pods(node.pods(), c.selector, totals->ns);
        totals->counted[slot] = 1;
        totals->values[slot] = std::string(node.label(c.topology_key).value_or(""));
      }
    });
    totals->per_constraint.resize(nc);
    for (std::size_t slot = 0; slot < node_counts.size(); ++slot) {
      if (node_counts[slot] < 0) continue;
      totals->per_constraint[slot % nc][totals->values[slot]] += node_counts[slot];
    }
    return totals;
  }

  // PreScore's catch_up: the changes since the totals were made, added to their domains.
  static void catch_up(const schedhost::Context& ctx, SpreadTotals& totals,
                       std::uint64_t revision) {
    if (totals.revision >= revision) return;
    const Constraints& cs = *totals.constraints;
    const std::size_t nc = cs.list.size();
    ctx.for_each_change(totals.revision, revision,
                        [&](const schedhost::Pod& pod, std::size_t node, std::int32_t delta) {
                          if (node >= totals.node_count) return;
                          for (std::size_t j = 0; j < nc; ++j) {
                            const std::size_t slot = node * nc + j;
                            if (totals.counted[slot] == 0) continue;
                            const k8s::LabelSelector& selector = cs.list[j].selector;
                            if (selector.matches_everything()) continue;  // counts nothing
                            if (!k8s::pod_counts(pod, selector, totals.ns)) continue;
                            totals.per_constraint[j][totals.values[slot]] += delta;
                          }
                        });
    totals.revision = revision;
  }

  // Replays the snapshot's changes since the counts were made: a pod placed on or removed from
  // a node moves its domain's count as a recount would.
  static void catch_up(const schedhost::Context& ctx, SpreadCounts& counts,
                       std::uint64_t revision) {
    if (counts.revision >= revision) return;
    const Constraints& cs = *counts.constraints;
    const std::size_t nc = cs.list.size();
    PerConstraint* per_constraint = nullptr;  // made writable on the first change that counts
    ctx.for_each_change(
        counts.revision, revision,
        [&](const schedhost::Pod& pod, std::size_t node, std::int32_t delta) {
          if (node >= counts.node_count) return;
          for (std::size_t j = 0; j < nc; ++j) {
            const std::size_t slot = node * nc + j;
            if (counts.counted[slot] == 0) continue;
            const k8s::LabelSelector& selector = cs.list[j].selector;
            if (selector.matches_everything()) continue;  // counts nothing
            if (!k8s::pod_counts(pod, selector, counts.ns)) continue;
            if (per_constraint == nullptr) {
              if (counts.per_constraint.use_count() > 1) {
                counts.per_constraint = std::make_shared<PerConstraint>(*counts.per_constraint);
              }
              per_constraint = counts.per_constraint.get();
            }
            (*per_constraint)[j].match_num.find(counts.values[slot])->second += delta;
          }
        });
    if (per_constraint != nullptr) summarize(*per_constraint);
    counts.revision = revision;
  }

  bool system_defaulted_ = false;
  // Feature gate MatchLabelKeysInPodTopologySpread (v1.35: beta, on by default): off, the
  // constraints' matchLabelKeys are ignored.
  bool match_label_keys_ = true;
  std::vector<RawConstraint> default_constraints_;

  // Counts kept across pods, by counting_signature (PreFilter and PreScore are [cycle] hooks:
  // one pod at a time per instance, so a kept value is updated by one thread at a time).
  mutable schedhost::KeptCache<SpreadCounts> counts_cache_;
  mutable schedhost::KeptCache<SpreadTotals> totals_cache_;
};

}  // namespace

SCHEDHOST_LIBRARY("pod-topology-spread", "1.0.0",
                  schedhost::plugin<PodTopologySpread, schedhost::hook::PreFilter,
                                    schedhost::hook::PreFilterExtensions, schedhost::hook::Filter,
                                    schedhost::hook::PreScore, schedhost::hook::Score,
                                    schedhost::hook::NormalizeScore,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "PodTopologySpread",
                      "Spreads pods across topology domains (zones, nodes, ...) as their "
                      "topologySpreadConstraints ask"))
