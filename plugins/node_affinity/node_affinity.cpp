// NodeAffinity: upstream's default PreFilter + Filter + PreScore + Score (kube-scheduler v1.35).
//
// Args: {"addedAffinity": <core/v1 NodeAffinity>} (default none). Its
//   requiredDuringSchedulingIgnoredDuringExecution must hold on every node (ANDed with the
//   pod's own), its preferredDuringSchedulingIgnoredDuringExecution terms are added to every
//   pod's. Selectors that fail to parse refuse the args with upstream's field errors, e.g.
//   addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].
//   matchExpressions[0].key: Invalid value: "a/b/c": ...
//
// PreFilter: Skip when the pod has no required node affinity, no spec.nodeSelector and there is
//   no added required affinity. Otherwise parses the pod's required placement once (CycleState
//   "PreFilterNodeAffinity"); when every required term names nodes with a metadata.name In
//   matchField, narrows the nodes to the union over terms of the intersection of those names
//   (an empty union: UnschedulableAndUnresolvable "pod affinity terms conflict").
// Filter: UnschedulableAndUnresolvable "node(s) didn't match scheduler-enforced node affinity"
//   (added affinity) or "node(s) didn't match Pod's node affinity/selector" (nodeSelector and
//   required terms: terms ORed, a term's requirements ANDed, empty or unparsable terms never
//   match).
// PreScore parses the preferred terms once ("PreScoreNodeAffinity"; a parse problem is an
//   Error); Score is the sum of the weights of the matching terms (added + pod's); NormalizeScore
//   is upstream's DefaultNormalizeScore (highest = 100).
// EnqueueExtensions: node add and label update; queues when the node (now) matches the added
//   affinity and the pod's required placement, and, for an update, did not match it before (a
//   term that fails to parse, with none matching, queues too: upstream's Match error).
#include <schedhost/k8s/node_selector.hpp>
#include <schedhost/k8s/normalize_score.hpp>
#include <schedhost/k8s/signers.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace k8s = schedhost::k8s;

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeAffinity";
constexpr std::string_view kPreScoreStateKey = "PreScoreNodeAffinity";
constexpr const char* kErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
constexpr const char* kErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity";
constexpr const char* kErrReasonConflict = "pod affinity terms conflict";

constexpr std::string_view kRequiredPointer =
    "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution";
constexpr std::string_view kPreferredPointer =
    "/spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution";
constexpr std::string_view kNodeSelectorPointer = "/spec/nodeSelector";

// The pod's field at pointer as JSON; null when absent.
nlohmann::json pod_field(const schedhost::Pod& pod, std::string_view pointer) {
  const auto text = pod.json(pointer);
  return text ? nlohmann::json::parse(*text) : nlohmann::json();
}

struct PreFilterState {
  k8s::RequiredNodeAffinity required;
};

struct PreScoreState {
  k8s::PreferredSchedulingTerms preferred;
};

k8s::RequiredNodeAffinity required_node_affinity(const schedhost::Pod& pod) {
  return k8s::RequiredNodeAffinity::parse(pod_field(pod, kNodeSelectorPointer),
                                          pod_field(pod, kRequiredPointer));
}

// upstream RequiredNodeAffinity.Match: nullopt for its error, which is when no term matched and
// one failed to parse (a nodeSelector that does not match is a plain false).
std::optional<bool> match(const k8s::RequiredNodeAffinity& required,
                          const schedhost::NodeInfo& node) {
  if (required.matches(node)) return true;
  const bool selector_matches =
      !required.node_selector() || required.node_selector()->matches(node);
  if (selector_matches && required.affinity() && !required.affinity()->errors().empty()) {
    return std::nullopt;
  }
  return false;
}

k8s::PreferredSchedulingTerms preferred_terms(const schedhost::Pod& pod) {
  return k8s::PreferredSchedulingTerms::parse(pod_field(pod, kPreferredPointer));
}

std::string string_member(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The node names every term pins with `metadata.name In [...]`: nullopt when some term has no
// such requirement (all nodes stay eligible).
std::optional<std::vector<std::string>> pinned_node_names(const nlohmann::json& terms) {
  std::vector<std::string> names;  // sorted, unique: the union so far
  for (const nlohmann::json& term : terms) {
    std::optional<std::vector<std::string>> term_names;  // sorted, unique: the intersection
    const nlohmann::json* fields = nullptr;
    if (term.is_object()) {
      const auto it = term.find("matchFields");
      if (it != term.end() && it->is_array()) fields = &*it;
    }
    if (fields != nullptr) {
      for (const nlohmann::json& r : *fields) {
        if (!r.is_object() || string_member(r, "key") != k8s::kObjectNameField ||
            string_member(r, "operator") != "In") {
          continue;
        }
        std::vector<std::string> values;
        if (const auto v = r.find("values"); v != r.end() && v->is_array()) {
          for (const nlohmann::json& value : *v) {
            if (value.is_string()) values.push_back(value.get<std::string>());
          }
        }
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        if (!term_names) {
          term_names = std::move(values);
        } else {
          std::vector<std::string> both;
          std::set_intersection(term_names->begin(), term_names->end(), values.begin(),
                                values.end(), std::back_inserter(both));
          term_names = std::move(both);
        }
      }
    }
    if (!term_names) return std::nullopt;
    std::vector<std::string> either;
    std::set_union(names.begin(), names.end(), term_names->begin(), term_names->end(),
                   std::back_inserter(either));
    names = std::move(either);
  }
  return names;
}

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

class NodeAffinity {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_node_affinity(pod, signature);
    return {};
  }
  // Upstream's EventsToRegister (v1.35, queueing hints on).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeLabel);
  }

  // upstream isSchedulableAfterNodeChange: only a node that starts to match can help.
  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    using schedhost::QueueingHint;
    if (!event.new_node) return QueueingHint::kQueue;
    if (added_required_ && !added_required_->matches(*event.new_node)) return QueueingHint::kSkip;
    const k8s::RequiredNodeAffinity required = required_node_affinity(pod);
    const std::optional<bool> matches_now = match(required, *event.new_node);
    if (!matches_now) return QueueingHint::kQueue;
    if (!*matches_now) return QueueingHint::kSkip;
    if (!event.old_node) return QueueingHint::kQueue;  // added
    const std::optional<bool> matched_before = match(required, *event.old_node);
    return matched_before.value_or(false) ? QueueingHint::kSkip : QueueingHint::kQueue;
  }

  explicit NodeAffinity(const nlohmann::json& args) {
    if (!args.is_object()) refuse("args must be an object with addedAffinity, got " + args.dump());
    for (const auto& item : args.items()) {
      if (item.key() != "addedAffinity") {
        refuse("unknown field \"" + item.key() + "\": NodeAffinity args have only addedAffinity");
      }
    }
    const auto added = args.find("addedAffinity");
    if (added == args.end() || added->is_null()) return;
    if (!added->is_object()) {
      refuse("addedAffinity must be a NodeAffinity object, got " + added->dump());
    }
    for (const auto& item : added->items()) {
      if (item.key() != "requiredDuringSchedulingIgnoredDuringExecution" &&
          item.key() != "preferredDuringSchedulingIgnoredDuringExecution") {
        refuse("unknown field \"addedAffinity." + item.key() +
               "\": addedAffinity has requiredDuringSchedulingIgnoredDuringExecution and "
               "preferredDuringSchedulingIgnoredDuringExecution");
      }
    }
    // upstream ValidateNodeAffinityArgs: every problem of both parts, with their field paths.
    std::vector<k8s::FieldError> errors;
    const k8s::FieldPath path = k8s::FieldPath("addedAffinity");
    if (const auto r = added->find("requiredDuringSchedulingIgnoredDuringExecution");
        r != added->end() && !r->is_null()) {
      k8s::NodeSelector selector = k8s::NodeSelector::parse(
          *r, path.child("requiredDuringSchedulingIgnoredDuringExecution"));
      errors.insert(errors.end(), selector.errors().begin(), selector.errors().end());
      added_required_ = std::move(selector);
    }
    if (const auto p = added->find("preferredDuringSchedulingIgnoredDuringExecution");
        p != added->end() && !p->is_null()) {
      try {
        added_preferred_ = k8s::PreferredSchedulingTerms::parse(
            *p, path.child("preferredDuringSchedulingIgnoredDuringExecution"));
      } catch (const k8s::ParseError& e) {
        errors.insert(errors.end(), e.errors().begin(), e.errors().end());
      }
    }
    if (!errors.empty()) refuse(k8s::aggregate(errors));
  }

  schedhost::Status PreFilter(schedhost::Context&, schedhost::CycleState& state,
                              const schedhost::Pod& pod, schedhost::PreFilterResult& result) const {
    const nlohmann::json required = pod_field(pod, kRequiredPointer);
    const nlohmann::json node_selector = pod_field(pod, kNodeSelectorPointer);
    if (required.is_null() && !added_required_ && node_selector.is_null()) {
      return schedhost::Status::Skip();
    }
    state.emplace<PreFilterState>(
        kPreFilterStateKey,
        PreFilterState{k8s::RequiredNodeAffinity::parse(node_selector, required)});
    if (required.is_null() || !required.is_object()) return {};
    const auto terms = required.find("nodeSelectorTerms");
    if (terms == required.end() || !terms->is_array() || terms->empty()) return {};
    auto names = pinned_node_names(*terms);
    if (!names) return {};
    if (names->empty()) return schedhost::Status::UnschedulableAndUnresolvable(kErrReasonConflict);
    result.node_names = std::move(names);
    return {};
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState& state,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    if (added_required_ && !added_required_->matches(node)) {
      return schedhost::Status::UnschedulableAndUnresolvable(kErrReasonEnforced);
    }
    bool match = false;
    if (const PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey)) {
      match = s->required.matches(node);
    } else {  // PreFilter is disabled: parse here, per node
      match = required_node_affinity(pod).matches(node);
    }
    if (!match) return schedhost::Status::UnschedulableAndUnresolvable(kErrReasonPod);
    return {};
  }

  schedhost::Status PreScore(schedhost::Context&, schedhost::CycleState& state,
                             const schedhost::Pod& pod, const schedhost::NodeList& nodes) const {
    if (nodes.empty()) return {};
    try {
      state.emplace<PreScoreState>(kPreScoreStateKey, PreScoreState{preferred_terms(pod)});
    } catch (const k8s::ParseError& e) {
      return schedhost::Status::Error(e.what());
    }
    return {};
  }

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState& state,
                          const schedhost::Pod& pod, const schedhost::NodeInfo& node,
                          std::int64_t& score) const {
    std::int64_t count = added_preferred_.score(node);
    if (const PreScoreState* s = state.read<PreScoreState>(kPreScoreStateKey)) {
      count += s->preferred.score(node);
    } else {  // PreScore is disabled: parse here, per node
      try {
        count += preferred_terms(pod).score(node);
      } catch (const k8s::ParseError& e) {
        return schedhost::Status::Error(e.what());
      }
    }
    score = count;
    return {};
  }

  schedhost::Status NormalizeScore(schedhost::Context&, const schedhost::CycleState&,
                                   const schedhost::Pod&, schedhost::NodeScoreList& scores) const {
    k8s::default_normalize_score(scores, /*reverse=*/false);
    return {};
  }

 private:
  std::optional<k8s::NodeSelector> added_required_;
  k8s::PreferredSchedulingTerms added_preferred_;
};

}  // namespace

SCHEDHOST_LIBRARY("node-affinity", "1.0.0",
                  schedhost::plugin<NodeAffinity, schedhost::hook::PreFilter,
                                    schedhost::hook::Filter, schedhost::hook::PreScore,
                                    schedhost::hook::Score, schedhost::hook::NormalizeScore,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "NodeAffinity",
                      "Keeps pods on nodes matching their nodeSelector and required node "
                      "affinity; prefers nodes matching their preferred terms"))
