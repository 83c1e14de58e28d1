// InterPodAffinity: upstream's default PreFilter (+AddPod/RemovePod) + Filter + PreScore + Score
// + NormalizeScore (kube-scheduler v1.35, pkg/scheduler/framework/plugins/interpodaffinity).
//
// Args: {"hardPodAffinityWeight": 0..100 (default 1), "ignorePreferredTermsOfExistingPods": bool
//   (default false)}. A weight out of range is refused with upstream's field error
//   `hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]`.
//
// Terms: a term with neither namespaces nor namespaceSelector applies to its pod's namespace;
//   otherwise namespaces ∪ the Namespace objects whose labels match namespaceSelector ({} = all).
//   The incoming pod's selectors are resolved against the snapshot's namespaces up front; the
//   existing pods' selectors are matched against the incoming pod's namespace labels. A term
//   matches a pod when the namespace is in and its labelSelector (nil = nothing) matches.
// PreFilter: counts per topology pair (key=value of a node label) of (a) existing pods whose
//   required anti-affinity terms match the incoming pod, (b) existing pods matching all the
//   incoming pod's required affinity terms, (c) existing pods matching each of its required
//   anti-affinity terms (state "PreFilterInterPodAffinity"). Skip when (a) is empty and the pod
//   has no required terms; UU "parsing pod: ..." when a term does not parse.
// Filter: UU "node(s) didn't match pod affinity rules" (a topology key missing, or no matching
//   pod in the node's domain unless no pod matches anywhere and the pod matches its own terms);
//   U "node(s) didn't match pod anti-affinity rules"; U "node(s) didn't satisfy existing pods
//   anti-affinity rules".
// PreScore/Score: the sum over the node's topology pairs of the weights of preferred terms (the
//   incoming pod's matched by existing pods, the existing pods' matched by the incoming pod;
//   anti-affinity negative) and hardPodAffinityWeight per existing pod's required affinity term
//   the incoming pod matches. NormalizeScore: min-max scaling to 0..100 (all equal: 0).
// EnqueueExtensions: a scheduled pod added (queues when it matches all the pending pod's required
//   affinity terms), relabelled (starts to match them all, or stops matching all its required
//   anti-affinity terms) or deleted (matched all the anti-affinity terms); a node added with an
//   affinity term's topology key (or any node, for a pod with anti-affinity) or relabelled so that
//   a term's topology key appears (affinity), disappears (anti-affinity) or changes value. A
//   required term that does not parse queues.
//
// Kept counts (ABI 1.2): the existing pods' anti-affinity counts and score sums (by the incoming
//   pod's namespace and labels) and the counts for the incoming pod's terms (by its namespace and
//   affinity) are kept from pod to pod and brought up to date from the snapshot's journal instead
//   of recounted; the verdicts and scores are a recount's (tests/cli/kept_counts_test.cpp).
#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/kept_cache.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

namespace k8s = schedhost::k8s;
using schedhost::Status;

constexpr std::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";
constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";
constexpr const char* kErrReasonAffinity = "node(s) didn't match pod affinity rules";
constexpr const char* kErrReasonAntiAffinity = "node(s) didn't match pod anti-affinity rules";
constexpr const char* kErrReasonExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";
constexpr std::int64_t kMaxNodeScore = 100;

// Labels of a namespace without a Namespace object (upstream: a nil labels.Set).
struct NoLabels {
  std::optional<std::string_view> label(std::string_view) const { return std::nullopt; }
};

// A copy of the incoming pod's namespace labels.
class LabelSet {
 public:
  LabelSet() = default;
  template <class Range>
  explicit LabelSet(const Range& labels) {
    for (const auto& kv : labels)
      map_.emplace(std::string(kv.key), std::string(kv.value));
  }
  std::optional<std::string_view> label(std::string_view key) const {
    const auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return std::string_view(it->second);
  }

 private:
  std::map<std::string, std::string, std::less<>> map_;
};

// The labels of one namespace, read through the host on each lookup.
struct NamespaceLabels {
  const schedhost::Context* ctx;
  std::string_view ns;
  std::optional<std::string_view> label(std::string_view key) const {
    return ctx->namespace_label(ns, key);
  }
};

// upstream framework.AffinityTerm.
struct AffinityTerm {
  std::vector<std::string> namespaces;  // sorted, unique
  k8s::LabelSelector selector;
  std::string topology_key;
  k8s::LabelSelector namespace_selector;  // nothing() unless set

  bool has_namespace(std::string_view ns) const {
    return std::binary_search(namespaces.begin(), namespaces.end(), ns,
                              [](std::string_view a, std::string_view b) { return a < b; });
  }
  void add_namespace(std::string ns) {
    const auto it = std::lower_bound(namespaces.begin(), namespaces.end(), ns);
    if (it == namespaces.end() || *it != ns) namespaces.insert(it, std::move(ns));
  }
  template <class NsLabels>
  bool matches(const schedhost::Pod& pod, const NsLabels& ns_labels) const {
    if (has_namespace(pod.namespace_name()) || namespace_selector.matches(ns_labels)) {
      return selector.matches(pod);
    }
    return false;
  }
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  std::int32_t weight = 0;
};

// The four term lists of one pod (upstream PodInfo's), parsed once.
struct PodTerms {
  std::vector<AffinityTerm> required_affinity;
  std::vector<AffinityTerm> required_anti_affinity;
  std::vector<WeightedAffinityTerm> preferred_affinity;
  std::vector<WeightedAffinityTerm> preferred_anti_affinity;
  std::vector<std::string> errors;  // one per list that failed to parse, upstream-worded
  bool has_preferred = false;       // a non-empty preferred list, even one that failed to parse

  bool empty() const {
    return required_affinity.empty() && required_anti_affinity.empty() &&
           preferred_affinity.empty() && preferred_anti_affinity.empty();
  }
};

// metav1.LabelSelectorAsSelector's error: its first failing requirement.
std::string selector_error(const k8s::ParseError& e) {
  if (e.errors().empty()) return e.what();
  const k8s::FieldError& first = e.errors().front();
  if (first.type == "Unsupported value") return first.detail;  // "%q is not a valid ... operator"
  return first.to_string();
}

const nlohmann::json* member(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// upstream newAffinityTerm. Throws std::invalid_argument with upstream's message.
AffinityTerm parse_term(const nlohmann::json& term, std::string_view pod_namespace) {
  if (!term.is_object()) throw std::invalid_argument("a pod affinity term must be an object");
  AffinityTerm t;
  const nlohmann::json* label_selector = member(term, "labelSelector");
  const nlohmann::json* namespaces = member(term, "namespaces");
  const nlohmann::json* namespace_selector = member(term, "namespaceSelector");
  try {
    t.selector = k8s::LabelSelector::parse(label_selector ? *label_selector : nlohmann::json());
  } catch (const k8s::ParseError& e) {
    throw std::invalid_argument(selector_error(e));
  }
  if (namespaces != nullptr) {
    if (!namespaces->is_array()) throw std::invalid_argument("namespaces must be a list");
    for (const nlohmann::json& ns : *namespaces) {
      if (!ns.is_string()) throw std::invalid_argument("namespaces must be a list of strings");
      t.add_namespace(ns.get<std::string>());
    }
  }
  if ((namespaces == nullptr || namespaces->empty()) && namespace_selector == nullptr) {
    t.add_namespace(std::string(pod_namespace));
  }
  try {
    t.namespace_selector =
        k8s::LabelSelector::parse(namespace_selector ? *namespace_selector : nlohmann::json());
  } catch (const k8s::ParseError& e) {
    throw std::invalid_argument(selector_error(e));
  }
  if (const nlohmann::json* key = member(term, "topologyKey")) {
    if (!key->is_string()) throw std::invalid_argument("topologyKey must be a string");
    t.topology_key = key->get<std::string>();
  }
  return t;
}

// The terms of a list (upstream getAffinityTerms / getWeightedAffinityTerms); on a problem the
// whole list is dropped and the problem recorded, as upstream's PodInfo.Update.
void parse_list(const nlohmann::json* list, std::string_view pod_namespace, bool weighted,
                const char* what, std::vector<AffinityTerm>* plain,
                std::vector<WeightedAffinityTerm>* with_weight, PodTerms& terms) {
  if (list == nullptr) return;
  std::vector<std::string>& errors = terms.errors;
  if (weighted && (!list->is_array() || !list->empty())) terms.has_preferred = true;
  try {
    if (!list->is_array()) throw std::invalid_argument("must be a list of terms");
    for (const nlohmann::json& item : *list) {
      if (!weighted) {
        plain->push_back(parse_term(item, pod_namespace));
        continue;
      }
      if (!item.is_object()) throw std::invalid_argument("a weighted term must be an object");
      WeightedAffinityTerm w;
      const nlohmann::json* term = member(item, "podAffinityTerm");
      w.term = parse_term(term ? *term : nlohmann::json::object(), pod_namespace);
      if (const nlohmann::json* weight = member(item, "weight")) {
        if (!weight->is_number_integer()) throw std::invalid_argument("weight must be an integer");
        w.weight = weight->get<std::int32_t>();
      }
      with_weight->push_back(std::move(w));
    }
  } catch (const std::exception& e) {
    if (plain != nullptr) plain->clear();
    if (with_weight != nullptr) with_weight->clear();
    errors.push_back(std::string(what) + ": " + e.what());
  }
}

PodTerms parse_pod_terms(const schedhost::Pod& pod) {
  PodTerms terms;
  const auto text = pod.json("/spec/affinity");
  if (!text) return terms;
  const nlohmann::json affinity = nlohmann::json::parse(*text);
  const nlohmann::json* pod_affinity = member(affinity, "podAffinity");
  const nlohmann::json* pod_anti = member(affinity, "podAntiAffinity");
  constexpr const char* kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  constexpr const char* kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  const nlohmann::json none;
  const std::string_view ns = pod.namespace_name();
  parse_list(member(pod_affinity ? *pod_affinity : none, kRequired), ns, false,
             "requiredAffinityTerms", &terms.required_affinity, nullptr, terms);
  parse_list(member(pod_anti ? *pod_anti : none, kRequired), ns, false, "requiredAntiAffinityTerms",
             &terms.required_anti_affinity, nullptr, terms);
  parse_list(member(pod_affinity ? *pod_affinity : none, kPreferred), ns, true,
             "preferredAffinityTerms", nullptr, &terms.preferred_affinity, terms);
  parse_list(member(pod_anti ? *pod_anti : none, kPreferred), ns, true,
             "preferredAntiAffinityTerms", nullptr, &terms.preferred_anti_affinity, terms);
  return terms;
}

// utilerrors.NewAggregate(errs).Error().
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  for (const std::string& e : errors) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.size() == 1) return unique.front();
  return "[" + k8s::join(unique, ", ") + "]";
}

// upstream mergeAffinityTermNamespacesIfNotEmpty: a namespaceSelector with requirements becomes
// the names of the matching Namespace objects.
void merge_namespaces(const schedhost::Context& ctx, AffinityTerm& term) {
  if (term.namespace_selector.matches_nothing() || term.namespace_selector.matches_everything()) {
    return;  // labels.Nothing() is not Empty(); Everything() is Empty() and stays a selector
  }
  for (const std::string_view ns : ctx.namespaces()) {
    if (term.namespace_selector.matches(NamespaceLabels{&ctx, ns})) {
      term.add_namespace(std::string(ns));
    }
  }
  term.namespace_selector = k8s::LabelSelector::nothing();
}

// upstream podMatchesAllAffinityTerms (nil namespace labels: the selectors were merged).
bool matches_all(const std::vector<AffinityTerm>& terms, const schedhost::Pod& pod) {
  if (terms.empty()) return false;
  for (const AffinityTerm& t : terms) {
    if (!t.matches(pod, NoLabels{})) return false;
  }
  return true;
}

// The pod's required (anti-)affinity terms (upstream GetAffinityTerms, namespace selectors not
// resolved: the hints have no snapshot); nullopt when one does not parse. `kind` is
// "podAffinity" or "podAntiAffinity".
std::optional<std::vector<AffinityTerm>> required_terms(const schedhost::Pod& pod,
                                                        std::string_view kind) {
  std::vector<AffinityTerm> terms;
  const auto text = pod.json("/spec/affinity/" + std::string(kind) +
                             "/requiredDuringSchedulingIgnoredDuringExecution");
  if (!text) return terms;
  const nlohmann::json list = nlohmann::json::parse(*text);
  PodTerms problems;
  parse_list(list.is_null() ? nullptr : &list, pod.namespace_name(), false, "", &terms, nullptr,
             problems);
  if (!problems.errors.empty()) return std::nullopt;
  return terms;
}

// Topology value -> count. Hashed: with a hostname topology key there is one value per node, and
// Filter looks one up per node.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using ValueCounts = std::unordered_map<std::string, std::int64_t, StringHash, std::equal_to<>>;

// upstream topologyToMatchedTermCount: topology key -> value -> count; no zero entries.
class TopologyCounts {
 public:
  bool empty() const { return pairs_ == 0; }
  std::int64_t get(std::string_view key, std::string_view value) const {
    const auto k = counts_.find(key);
    if (k == counts_.end()) return 0;
    const auto v = k->second.find(value);
    return v == k->second.end() ? 0 : v->second;
  }
  // m[key=node's value] += delta when the node has the key; drops the pair when it reaches 0.
  void update(const schedhost::NodeInfo& node, const std::string& key, std::int64_t delta) {
    const auto value = node.label(key);
    if (!value) return;
    auto k = counts_.find(key);
    if (k == counts_.end()) k = counts_.emplace(key, Values()).first;
    auto [v, inserted] = k->second.try_emplace(std::string(*value), 0);  // one hash, one probe
    if (inserted) ++pairs_;
    v->second += delta;
    if (v->second == 0) {
      k->second.erase(v);
      --pairs_;
      if (k->second.empty()) counts_.erase(k);
    }
  }
  // Whether the node has a label key=value with a positive count.
  bool any_positive_on(const schedhost::NodeInfo& node) const {
    for (const auto& [key, values] : counts_) {
      const auto value = node.label(key);
      if (!value) continue;
      const auto v = values.find(*value);
      if (v != values.end() && v->second > 0) return true;
    }
    return false;
  }

 private:
  using Values = ValueCounts;
  std::map<std::string, Values, std::less<>> counts_;
  std::size_t pairs_ = 0;
};

// Counts shared by cycle states, their clones and the plugin's kept counts: whoever changes one
// copies it first unless it is the only holder.
using SharedCounts = std::shared_ptr<TopologyCounts>;
TopologyCounts& writable(SharedCounts& counts) {
  if (counts.use_count() > 1) counts = std::make_shared<TopologyCounts>(*counts);
  return *counts;
}

// PreFilter counts kept from cycle to cycle and brought up to date from the snapshot's journal
// (ABI 1.2) instead of recounted over every existing pod, which upstream does for each incoming
// pod. The signature holds everything the counts depend on.
// PreScore's sums for the existing pods' terms that match an incoming pod: topology key -> value
// -> the summed weight and how many terms added to it (a pair exists while that is positive, as
// it exists in a fresh sum exactly when some term added to it, even a zero weight).
struct ScoreSum {
  std::int64_t weight = 0;
  std::int64_t terms = 0;
};
using KeptScoreMap =
    std::map<std::string, std::unordered_map<std::string, ScoreSum, StringHash, std::equal_to<>>,
             std::less<>>;

struct KeptCounts {
  std::uint64_t revision = 0;             // the snapshot revision they are up to date with
  std::shared_ptr<const PodTerms> terms;  // the incoming pod's (namespaces merged), if kept
  SharedCounts counts[2];
  KeptScoreMap scores;  // PreScore's kept sums (existing_scores_cache_ only)
};

struct PreFilterState {
  SharedCounts existing_anti_affinity;
  SharedCounts affinity;
  SharedCounts anti_affinity;
  std::shared_ptr<const PodTerms> terms;  // the incoming pod's, namespaces merged
  LabelSet namespace_labels;              // the incoming pod's namespace labels
  bool matches_own_affinity = false;      // podMatchesAllAffinityTerms(required affinity, pod)

  // upstream preFilterState.updateWithPod.
  void update_with_pod(const schedhost::Pod& pod, const PodTerms& other_terms,
                       const schedhost::Pod& other, const schedhost::NodeInfo& node,
                       std::int64_t delta) {
    for (const AffinityTerm& t : other_terms.required_anti_affinity) {
      if (t.matches(pod, namespace_labels))
        writable(existing_anti_affinity).update(node, t.topology_key, delta);
    }
    if (matches_all(terms->required_affinity, other)) {
      for (const AffinityTerm& t : terms->required_affinity)
        writable(affinity).update(node, t.topology_key, delta);
    }
    for (const AffinityTerm& t : terms->required_anti_affinity) {
      if (t.matches(other, NoLabels{})) writable(anti_affinity).update(node, t.topology_key, delta);
    }
  }
};

using ScoreMap = std::map<std::string, ValueCounts, std::less<>>;

struct PreScoreState {
  ScoreMap topology_score;
};

// upstream scoreMap.processTerm.
template <class NsLabels>
void process_term(ScoreMap& m, const AffinityTerm& term, std::int32_t weight,
                  const schedhost::Pod& pod, const NsLabels& ns_labels,
                  const schedhost::NodeInfo& node, std::int32_t multiplier) {
  if (!term.matches(pod, ns_labels)) return;
  const auto value = node.label(term.topology_key);
  if (!value) return;
  auto k = m.find(term.topology_key);
  if (k == m.end()) k = m.emplace(term.topology_key, ScoreMap::mapped_type()).first;
  auto v = k->second.find(*value);
  if (v == k->second.end()) v = k->second.emplace(std::string(*value), 0).first;
  v->second += static_cast<std::int64_t>(weight * multiplier);
}

template <class NsLabels>
void process_terms(ScoreMap& m, const std::vector<WeightedAffinityTerm>& terms,
                   const schedhost::Pod& pod, const NsLabels& ns_labels,
                   const schedhost::NodeInfo& node, std::int32_t multiplier) {
  for (const WeightedAffinityTerm& t : terms)
    process_term(m, t.term, t.weight, pod, ns_labels, node, multiplier);
}

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

class InterPodAffinity {
 public:
  // Opportunistic batching: a pod with terms of its own depends on where other pods are, so it
  // is not signed. Otherwise the other pods' terms see its labels and namespace (upstream signs
  // only the labels, and nothing with ignorePreferredTermsOfExistingPods; but an existing pod's
  // required anti-affinity matches on both, whatever that option says).
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    if (pod.json("/spec/affinity/podAffinity") || pod.json("/spec/affinity/podAntiAffinity")) {
      return schedhost::Status::Unschedulable("pods with InterPodAffinity are not signable");
    }
    nlohmann::json labels = nlohmann::json::object();
    for (const schedhost::KeyValue kv : pod.labels())
      labels[std::string(kv.key)] = kv.value;
    signature.add("v1.Pod.Labels", std::move(labels));
    signature.add("v1.Pod.Namespace", pod.namespace_name());
    return {};
  }
  // Upstream's EventsToRegister (v1.35, queueing hints on).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kPod, schedhost::action::kAdd |
                                              schedhost::action::kUpdatePodLabel |
                                              schedhost::action::kDelete);
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeLabel);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    // An unscheduled pod (added, updated or deleted) is on no node's domain.
    const bool pod_event = event.resource == schedhost::resource::kPod;
    if (pod_event && ((event.new_pod && event.new_pod->node_name().empty()) ||
                      (event.old_pod && event.old_pod->node_name().empty()))) {
      return schedhost::QueueingHint::kSkip;
    }
    const auto affinity = required_terms(pod, "podAffinity");
    const auto anti_affinity = required_terms(pod, "podAntiAffinity");
    if (!affinity || !anti_affinity) return schedhost::QueueingHint::kQueue;
    if (pod_event) return after_pod_change(event, *affinity, *anti_affinity);
    return after_node_change(event, *affinity, *anti_affinity);
  }

  explicit InterPodAffinity(const nlohmann::json& args) {
    if (!args.is_object()) {
      refuse(
          "args must be an object with hardPodAffinityWeight and "
          "ignorePreferredTermsOfExistingPods, got " +
          args.dump());
    }
    for (const auto& item : args.items()) {
      const std::string& key = item.key();
      if (key == "hardPodAffinityWeight") {
        if (item.value().is_null()) continue;
        if (!item.value().is_number_integer() ||
            item.value().get<std::int64_t>() < std::numeric_limits<std::int32_t>::min() ||
            item.value().get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
          refuse("hardPodAffinityWeight must be an integer, got " + item.value().dump());
        }
        hard_pod_affinity_weight_ = item.value().get<std::int32_t>();
      } else if (key == "ignorePreferredTermsOfExistingPods") {
        if (item.value().is_null()) continue;
        if (!item.value().is_boolean()) {
          refuse("ignorePreferredTermsOfExistingPods must be true or false, got " +
                 item.value().dump());
        }
        ignore_preferred_terms_of_existing_pods_ = item.value().get<bool>();
      } else {
        refuse("unknown field \"" + key +
               "\": InterPodAffinity args have hardPodAffinityWeight and "
               "ignorePreferredTermsOfExistingPods");
      }
    }
    // upstream ValidateInterPodAffinityArgs (path nil in New).
    if (hard_pod_affinity_weight_ < 0 || hard_pod_affinity_weight_ > 100) {
      refuse(k8s::FieldError::invalid(k8s::FieldPath("hardPodAffinityWeight"),
                                      std::to_string(hard_pod_affinity_weight_),
                                      "not in valid range [0, 100]")
                 .to_string());
    }
  }

  Status PreFilter(schedhost::Context& ctx, schedhost::CycleState& state, const schedhost::Pod& pod,
                   schedhost::PreFilterResult&) {
    const schedhost::Context::SnapshotVersion version = ctx.snapshot_version();
    std::string incoming_signature(pod.namespace_name());
    incoming_signature.append("\x1f").append(pod.json("/spec/affinity").value_or(""));
    std::shared_ptr<KeptCounts> incoming = incoming_cache_.find(incoming_signature, version.id);
    std::shared_ptr<const PodTerms> terms;
    if (incoming != nullptr) {
      terms = incoming->terms;
    } else {
      auto parsed = std::make_shared<PodTerms>(parse_pod_terms(pod));
      if (!parsed->errors.empty()) {
        return Status::UnschedulableAndUnresolvable("parsing pod: " + aggregate(parsed->errors));
      }
      for (AffinityTerm& t : parsed->required_affinity)
        merge_namespaces(ctx, t);
      for (AffinityTerm& t : parsed->required_anti_affinity)
        merge_namespaces(ctx, t);
      terms = std::move(parsed);
    }

    auto s = std::make_unique<PreFilterState>();
    s->namespace_labels = LabelSet(ctx.namespace_labels(pod.namespace_name()));
    s->matches_own_affinity = matches_all(terms->required_affinity, pod);
    const bool has_required =
        !terms->required_affinity.empty() || !terms->required_anti_affinity.empty();
    s->terms = terms;

    const Epoch epoch(*this);
    s->existing_anti_affinity =
        existing_anti_affinity_counts(ctx, pod, s->namespace_labels, version);
    if (has_required) {
      if (incoming == nullptr) {
        incoming = count_incoming(ctx, terms, version.revision);
        incoming_cache_.keep(std::move(incoming_signature), version.id, incoming);
      } else {
        catch_up_incoming(ctx, *incoming, version.revision);
      }
      s->affinity = incoming->counts[0];
      s->anti_affinity = incoming->counts[1];
    } else {
      s->affinity = std::make_shared<TopologyCounts>();
      s->anti_affinity = s->affinity;
    }
    if (s->existing_anti_affinity->empty() && !has_required) return Status::Skip();
    state.write(kPreFilterStateKey, std::move(s));
    return {};
  }

  Status AddPod(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod& pod,
                const schedhost::Pod& to_add, const schedhost::NodeInfo& node) const {
    return update(state, pod, to_add, node, 1);
  }

  Status RemovePod(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod& pod,
                   const schedhost::Pod& to_remove, const schedhost::NodeInfo& node) const {
    return update(state, pod, to_remove, node, -1);
  }

  Status Filter(schedhost::Context&, const schedhost::CycleState& state, const schedhost::Pod&,
                const schedhost::NodeInfo& node) const {
    const PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey);
    if (s == nullptr) return Status::Error(read_error(kPreFilterStateKey));
    if (!satisfy_pod_affinity(*s, node)) {
      return Status::UnschedulableAndUnresolvable(kErrReasonAffinity);
    }
    if (!s->anti_affinity->empty()) {
      for (const AffinityTerm& t : s->terms->required_anti_affinity) {
        const auto value = node.label(t.topology_key);
        if (value && s->anti_affinity->get(t.topology_key, *value) > 0) {
          return Status::Unschedulable(kErrReasonAntiAffinity);
        }
      }
    }
    if (s->existing_anti_affinity->any_positive_on(node)) {
      return Status::Unschedulable(kErrReasonExistingAntiAffinity);
    }
    return {};
  }

  Status PreScore(schedhost::Context& ctx, schedhost::CycleState& state, const schedhost::Pod& pod,
                  const schedhost::NodeList& nodes) {
    if (nodes.empty()) return Status::Skip();
    PodTerms terms = parse_pod_terms(pod);
    const bool has_constraints = terms.has_preferred;
    if (ignore_preferred_terms_of_existing_pods_ && !has_constraints) return Status::Skip();
    if (!terms.errors.empty()) {
      return Status::Error("failed to parse pod: " + aggregate(terms.errors));
    }
    for (WeightedAffinityTerm& t : terms.preferred_affinity)
      merge_namespaces(ctx, t.term);
    for (WeightedAffinityTerm& t : terms.preferred_anti_affinity)
      merge_namespaces(ctx, t.term);
    const LabelSet ns_labels(ctx.namespace_labels(pod.namespace_name()));

    auto s = std::make_unique<PreScoreState>();
    ScoreMap& m = s->topology_score;
    const Epoch epoch(*this);
    // The incoming pod's preferred terms against every existing pod.
    for (const schedhost::NodeInfo node : ctx.nodes_with_pods(SCHEDHOST_NODE_PODS_ALL)) {
      if (!has_constraints) break;
      if (node.labels().empty()) continue;  // upstream processExistingPod
      for (const schedhost::Pod existing : node.pods()) {
        process_terms(m, terms.preferred_affinity, existing, NoLabels{}, node, 1);
        process_terms(m, terms.preferred_anti_affinity, existing, NoLabels{}, node, -1);
      }
    }
    // The existing pods' terms against the incoming pod (upstream HavePodsWithAffinityList).
    const std::shared_ptr<const KeptCounts> existing = existing_scores(ctx, pod, ns_labels);
    for (const auto& [key, values] : existing->scores) {
      auto& out = m[key];
      for (const auto& [value, sum] : values)
        out[value] += sum.weight;
    }
    if (m.empty()) return Status::Skip();
    state.write(kPreScoreStateKey, std::move(s));
    return {};
  }

  Status Score(schedhost::Context&, const schedhost::CycleState& state, const schedhost::Pod&,
               const schedhost::NodeInfo& node, std::int64_t& score) const {
    const PreScoreState* s = state.read<PreScoreState>(kPreScoreStateKey);
    if (s == nullptr) return Status::Error(read_score_error());
    score = 0;
    for (const auto& [key, values] : s->topology_score) {
      const auto value = node.label(key);
      if (!value) continue;
      const auto v = values.find(*value);
      if (v != values.end()) score += v->second;
    }
    return {};
  }

  Status NormalizeScore(schedhost::Context&, const schedhost::CycleState& state,
                        const schedhost::Pod&, schedhost::NodeScoreList& scores) const {
    const PreScoreState* s = state.read<PreScoreState>(kPreScoreStateKey);
    if (s == nullptr) return Status::Error(read_score_error());
    if (s->topology_score.empty()) return {};
    std::int64_t min_count = std::numeric_limits<std::int64_t>::max();
    std::int64_t max_count = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < scores.size(); ++i) {
      max_count = std::max(max_count, scores.score(i));
      min_count = std::min(min_count, scores.score(i));
    }
    const std::int64_t diff = max_count - min_count;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      double f = 0;
      if (diff > 0) {
        f = static_cast<double>(kMaxNodeScore) *
            (static_cast<double>(scores.score(i) - min_count) / static_cast<double>(diff));
      }
      scores.score(i) = static_cast<std::int64_t>(f);
    }
    return {};
  }

 private:
  // Marks the parsed-terms cache entries used by one PreFilter or PreScore; afterwards drops the
  // entries neither this nor the previous pass used (pods gone or changed).
  class Epoch {
   public:
    explicit Epoch(InterPodAffinity& p) : p_(p) {
      const std::lock_guard<std::mutex> lock(p_.cache_mutex_);
      ++p_.epoch_;
    }
    ~Epoch() {
      const std::lock_guard<std::mutex> lock(p_.cache_mutex_);
      std::erase_if(p_.cache_, [e = p_.epoch_](const auto& kv) { return kv.second.epoch + 1 < e; });
    }
    Epoch(const Epoch&) = delete;
    Epoch& operator=(const Epoch&) = delete;

   private:
    InterPodAffinity& p_;
  };

  struct CacheEntry {
    std::string uid;
    std::uint64_t generation = 0;
    std::uint64_t epoch = 0;
    std::shared_ptr<const PodTerms> terms;
  };

  // An existing pod's terms, parsed once per pod version (problems leave a list empty). Looked up
  // by the pod's handle, which hashes for free; the uid and generation confirm a hit, so a
  // handle reused by another pod (or another version) is parsed afresh.
  std::shared_ptr<const PodTerms> cached_terms(const schedhost::Pod& pod) {
    const std::string_view uid = pod.uid();
    const std::uint64_t generation = pod.generation();
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    CacheEntry& entry = cache_[pod.handle()];
    if (entry.terms == nullptr || entry.generation != generation || entry.uid != uid) {
      entry = CacheEntry{std::string(uid), generation, epoch_,
                         std::make_shared<PodTerms>(parse_pod_terms(pod))};
    }
    entry.epoch = epoch_;
    return entry.terms;
  }

  // The incoming pod as the existing pods' terms see it: its namespace (whose labels are fixed
  // for a snapshot) and its labels. What those terms add up to depends on nothing else.
  static std::string identity_signature(const schedhost::Pod& pod) {
    std::string signature(pod.namespace_name());
    for (const auto& kv : pod.labels())
      signature.append("\x1f").append(kv.key).append("=").append(kv.value);
    return signature;
  }

  // upstream getExistingAntiAffinityCounts over HavePodsWithRequiredAntiAffinityList: the
  // existing pods' required anti-affinity terms that match the incoming pod, kept by
  // identity_signature.
  SharedCounts existing_anti_affinity_counts(const schedhost::Context& ctx,
                                             const schedhost::Pod& pod, const LabelSet& ns_labels,
                                             const schedhost::Context::SnapshotVersion& version) {
    std::string signature = identity_signature(pod);
    std::shared_ptr<KeptCounts> kept = existing_cache_.find(signature, version.id);
    if (kept != nullptr) {
      const auto nodes = ctx.nodes();
      ctx.for_each_change(
          kept->revision, version.revision,
          [&](const schedhost::Pod& other, std::size_t node, std::int32_t delta) {
            if (node >= nodes.size()) return;
            const std::shared_ptr<const PodTerms> terms = cached_terms(other);
            for (const AffinityTerm& t : terms->required_anti_affinity) {
              if (t.matches(pod, ns_labels)) {
                writable(kept->counts[0]).update(nodes[node], t.topology_key, delta);
              }
            }
          });
      kept->revision = version.revision;
      return kept->counts[0];
    }
    kept = std::make_shared<KeptCounts>();
    kept->revision = version.revision;
    kept->counts[0] = std::make_shared<TopologyCounts>();
    for (const schedhost::NodeInfo node :
         ctx.nodes_with_pods(SCHEDHOST_NODE_PODS_WITH_REQUIRED_ANTI_AFFINITY)) {
      for (const schedhost::Pod existing :
           node.pods(SCHEDHOST_NODE_PODS_WITH_REQUIRED_ANTI_AFFINITY)) {
        const std::shared_ptr<const PodTerms> other = cached_terms(existing);
        for (const AffinityTerm& t : other->required_anti_affinity) {
          if (t.matches(pod, ns_labels)) kept->counts[0]->update(node, t.topology_key, 1);
        }
      }
    }
    existing_cache_.keep(std::move(signature), version.id, kept);
    return kept->counts[0];
  }

  // upstream processExistingPod's second half for one existing pod: its required affinity terms
  // (hardPodAffinityWeight) and preferred terms that match the incoming pod, added (sign 1) or
  // taken back (sign -1).
  void add_existing_pod_terms(KeptScoreMap& m, const PodTerms& other, const schedhost::Pod& pod,
                              const LabelSet& ns_labels, const schedhost::NodeInfo& node,
                              std::int64_t sign) const {
    if (node.labels().empty()) return;  // upstream processExistingPod
    auto add = [&](const AffinityTerm& t, std::int64_t weight) {
      if (!t.matches(pod, ns_labels)) return;
      const auto value = node.label(t.topology_key);
      if (!value) return;
      auto& values = m[t.topology_key];
      auto v = values.find(*value);
      if (v == values.end()) v = values.emplace(std::string(*value), ScoreSum()).first;
      v->second.weight += sign * weight;
      v->second.terms += sign;
      if (v->second.terms == 0) {
        values.erase(v);
        if (values.empty()) m.erase(t.topology_key);
      }
    };
    if (hard_pod_affinity_weight_ > 0) {
      for (const AffinityTerm& t : other.required_affinity)
        add(t, hard_pod_affinity_weight_);
    }
    for (const WeightedAffinityTerm& t : other.preferred_affinity)
      add(t.term, t.weight);
    for (const WeightedAffinityTerm& t : other.preferred_anti_affinity)
      add(t.term, -static_cast<std::int64_t>(t.weight));
  }

  // PreScore's sums for the existing pods' terms that match the incoming pod, kept by
  // identity_signature and caught up from the journal.
  std::shared_ptr<const KeptCounts> existing_scores(const schedhost::Context& ctx,
                                                    const schedhost::Pod& pod,
                                                    const LabelSet& ns_labels) {
    const schedhost::Context::SnapshotVersion version = ctx.snapshot_version();
    std::string signature = identity_signature(pod);
    std::shared_ptr<KeptCounts> kept = existing_scores_cache_.find(signature, version.id);
    if (kept != nullptr) {
      const auto nodes = ctx.nodes();
      ctx.for_each_change(kept->revision, version.revision,
                          [&](const schedhost::Pod& other, std::size_t node, std::int32_t delta) {
                            if (node >= nodes.size()) return;
                            add_existing_pod_terms(kept->scores, *cached_terms(other), pod,
                                                   ns_labels, nodes[node], delta);
                          });
      kept->revision = version.revision;
    } else {
      kept = std::make_shared<KeptCounts>();
      kept->revision = version.revision;
      for (const schedhost::NodeInfo node :
           ctx.nodes_with_pods(SCHEDHOST_NODE_PODS_WITH_AFFINITY)) {
        for (const schedhost::Pod existing : node.pods(SCHEDHOST_NODE_PODS_WITH_AFFINITY))
          add_existing_pod_terms(kept->scores, *cached_terms(existing), pod, ns_labels, node, 1);
      }
      existing_scores_cache_.keep(std::move(signature), version.id, kept);
    }
    return kept;
  }

  // upstream getIncomingAffinityAntiAffinityCounts over every pod (nodes without pods add
  // nothing): counts[0] the pods matching every required affinity term, counts[1] those
  // matching each required anti-affinity term. Matches are counted per node on the host's
  // threads, then added in node order. Kept for later pods with the same terms.
  static std::shared_ptr<KeptCounts> count_incoming(const schedhost::Context& ctx,
                                                    const std::shared_ptr<const PodTerms>& terms,
                                                    std::uint64_t revision) {
    auto kept = std::make_shared<KeptCounts>();
    kept->revision = revision;
    kept->terms = terms;
    kept->counts[0] = std::make_shared<TopologyCounts>();
    kept->counts[1] = std::make_shared<TopologyCounts>();
    const auto nodes = ctx.nodes_with_pods(SCHEDHOST_NODE_PODS_ALL);
    // Per node: [0] pods matching every affinity term, [1 + j] pods matching anti-affinity
    // term j.
    const std::size_t width = 1 + terms->required_anti_affinity.size();
    std::vector<std::int64_t> matches(nodes.size() * width, 0);
    ctx.parallel_for(nodes.size(), [&](std::size_t i) {
      std::int64_t* row = &matches[i * width];
      for (const schedhost::Pod existing : nodes[i].pods()) {
        if (matches_all(terms->required_affinity, existing)) ++row[0];
        for (std::size_t j = 0; j + 1 < width; ++j) {
          if (terms->required_anti_affinity[j].matches(existing, NoLabels{})) ++row[1 + j];
        }
      }
    });
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::int64_t* row = &matches[i * width];
      if (row[0] > 0) {
        for (const AffinityTerm& t : terms->required_affinity)
          kept->counts[0]->update(nodes[i], t.topology_key, row[0]);
      }
      for (std::size_t j = 0; j + 1 < width; ++j) {
        if (row[1 + j] > 0) {
          kept->counts[1]->update(nodes[i], terms->required_anti_affinity[j].topology_key,
                                  row[1 + j]);
        }
      }
    }
    return kept;
  }

  // Replays the snapshot's changes since the kept incoming counts were made.
  static void catch_up_incoming(const schedhost::Context& ctx, KeptCounts& kept,
                                std::uint64_t revision) {
    const PodTerms& terms = *kept.terms;
    const auto nodes = ctx.nodes();
    ctx.for_each_change(kept.revision, revision,
                        [&](const schedhost::Pod& other, std::size_t node, std::int32_t delta) {
                          if (node >= nodes.size()) return;
                          if (matches_all(terms.required_affinity, other)) {
                            for (const AffinityTerm& t : terms.required_affinity)
                              writable(kept.counts[0]).update(nodes[node], t.topology_key, delta);
                          }
                          for (const AffinityTerm& t : terms.required_anti_affinity) {
                            if (t.matches(other, NoLabels{})) {
                              writable(kept.counts[1]).update(nodes[node], t.topology_key, delta);
                            }
                          }
                        });
    kept.revision = revision;
  }

  static std::string read_error(std::string_view key) {
    return "error reading \"" + std::string(key) + "\" from cycleState: not found";
  }
  static std::string read_score_error() {
    return "failed to read \"" + std::string(kPreScoreStateKey) + "\" from cycleState: not found";
  }

  // upstream isSchedulableAfterPodChange, for a scheduled pod.
  static schedhost::QueueingHint after_pod_change(const schedhost::ClusterEvent& event,
                                                  const std::vector<AffinityTerm>& affinity,
                                                  const std::vector<AffinityTerm>& anti_affinity) {
    using schedhost::QueueingHint;
    const auto& before = event.old_pod;
    const auto& after = event.new_pod;
    if (before && after) {  // relabelled
      if (!matches_all(affinity, *before) && matches_all(affinity, *after)) {
        return QueueingHint::kQueue;
      }
      if (matches_all(anti_affinity, *before) && !matches_all(anti_affinity, *after)) {
        return QueueingHint::kQueue;
      }
      return QueueingHint::kSkip;
    }
    if (after) return matches_all(affinity, *after) ? QueueingHint::kQueue : QueueingHint::kSkip;
    if (!before) return QueueingHint::kQueue;
    return matches_all(anti_affinity, *before) ? QueueingHint::kQueue : QueueingHint::kSkip;
  }

  // upstream isSchedulableAfterNodeChange.
  static schedhost::QueueingHint after_node_change(const schedhost::ClusterEvent& event,
                                                   const std::vector<AffinityTerm>& affinity,
                                                   const std::vector<AffinityTerm>& anti_affinity) {
    using schedhost::QueueingHint;
    if (!event.new_node) return QueueingHint::kQueue;
    const schedhost::NodeInfo& after = *event.new_node;
    const schedhost::NodeInfo* before = event.old_node ? &*event.old_node : nullptr;
    for (const AffinityTerm& t : affinity) {
      const auto now = after.label(t.topology_key);
      if (before == nullptr) {
        if (now) return QueueingHint::kQueue;  // added with the key
        continue;
      }
      const auto was = before->label(t.topology_key);
      if (now && (!was || *was != *now)) return QueueingHint::kQueue;  // key added or moved
    }
    for (const AffinityTerm& t : anti_affinity) {
      if (before == nullptr) return QueueingHint::kQueue;  // any added node may be free of them
      const auto was = before->label(t.topology_key);
      const auto now = after.label(t.topology_key);
      if (was && (!now || *was != *now)) return QueueingHint::kQueue;  // key removed or moved
    }
    return QueueingHint::kSkip;
  }

  static bool satisfy_pod_affinity(const PreFilterState& s, const schedhost::NodeInfo& node) {
    bool pods_exist = true;
    for (const AffinityTerm& t : s.terms->required_affinity) {
      const auto value = node.label(t.topology_key);
      if (!value) return false;  // every topology key must be on the node
      if (s.affinity->get(t.topology_key, *value) <= 0) pods_exist = false;
    }
    if (pods_exist) return true;
    // The first pod of a group whose affinity matches itself: allowed when no pod matches.
    return s.affinity->empty() && s.matches_own_affinity;
  }

  static Status update(schedhost::CycleState& state, const schedhost::Pod& pod,
                       const schedhost::Pod& other, const schedhost::NodeInfo& node,
                       std::int64_t delta) {
    PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey);
    if (s == nullptr) return Status::Error(read_error(kPreFilterStateKey));
    const PodTerms other_terms = parse_pod_terms(other);
    s->update_with_pod(pod, other_terms, other, node, delta);
    return {};
  }

  std::int32_t hard_pod_affinity_weight_ = 1;
  bool ignore_preferred_terms_of_existing_pods_ = false;

  schedhost::KeptCache<KeptCounts> existing_cache_;  // by the incoming pod's namespace and labels
  schedhost::KeptCache<KeptCounts> incoming_cache_;  // by its namespace and affinity
  schedhost::KeptCache<KeptCounts> existing_scores_cache_;  // PreScore's, by namespace and labels

  std::mutex cache_mutex_;
  std::uint64_t epoch_ = 0;
  std::unordered_map<const schedhost_pod_t*, CacheEntry> cache_;
};

}  // namespace

SCHEDHOST_LIBRARY("inter-pod-affinity", "1.0.0",
                  schedhost::plugin<InterPodAffinity, schedhost::hook::PreFilter,
                                    schedhost::hook::PreFilterExtensions, schedhost::hook::Filter,
                                    schedhost::hook::PreScore, schedhost::hook::Score,
                                    schedhost::hook::NormalizeScore,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "InterPodAffinity",
                      "Upstream InterPodAffinity: pod (anti-)affinity filter and scoring"))
