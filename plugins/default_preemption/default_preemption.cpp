// DefaultPreemption: upstream's default PostFilter (kube-scheduler v1.35.4,
// pkg/scheduler/framework/plugins/defaultpreemption and framework/preemption), without async
// preemption (the host evicts the victims).
//
// Args: {"minCandidateNodesPercentage": 0..100 (default 10), "minCandidateNodesAbsolute": >= 0
//   (default 100)}, refused with upstream's field errors (both 0 is refused too).
//
// A node's Filter status is the one the host passed; a node it passed none for (left out by a
// PreFilterResult) counts as UnschedulableAndUnresolvable, as upstream's NodeToStatus.Get says.
// When no node fits the pod:
//  1. Eligibility: preemptionPolicy Never -> "not eligible due to preemptionPolicy=Never."; a
//     nominated node (unless its status is UnschedulableAndUnresolvable) holding a pod of lower
//     priority that the scheduler is already preempting (deletionTimestamp set, and its first
//     DisruptionTarget condition True with reason PreemptionByScheduler) -> "not eligible due to
//     a terminating pod on the nominated node.". A pod terminating for any other reason does not
//     hold the preemptor back (v1.28 let any terminating lower-priority pod do so).
//  2. Candidates: every node whose status is Unschedulable (the others get "Preemption is not
//     helpful for scheduling"). Starting at a random offset (the run's seeded generator), dry
//     runs on copies of the nodes, in parallel batches accepted in order, until
//     max(nodes * percentage / 100, absolute) candidates (capped at the node count) are found, at
//     least one without PodDisruptionBudget violations.
//  3. Victims on one node: remove every pod of lower priority (RemovePod extensions run on the
//     copied cycle state); none -> UU "No preemption victims found for incoming pod"; if the pod
//     still does not fit, the node fails with the Filter status. Otherwise put pods back, most
//     important first (priority, then earlier start), PDB-violating ones before the others,
//     keeping each one the pod still fits with: the rest are the victims, most important first.
//  4. The scheduler's extenders with a preemptVerb see every candidate with its victims and PDB
//     violations (process_preemption, ABI 1.5); each may drop candidates or change their victims.
//     None left -> Unschedulable "no candidate node for preemption"; an extender's error -> Error.
//  5. The node: fewest PDB violations, then the lowest highest-victim priority, the smallest sum
//     of victim priorities, the fewest victims, the latest start among the highest-priority
//     victims, then the first candidate found.
// Success nominates the node and names the victims; the host evicts them and retries the pod.
// Failure: Unschedulable "preemption: 0/N nodes are available: <reasons>." over all N nodes; a
// dry run's Error only when no candidate was found.
#include <schedhost/k8s/fit_error.hpp>
#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using schedhost::Code;
using schedhost::Context;
using schedhost::Status;
namespace k8s = schedhost::k8s;

constexpr const char* kNotHelpful = "Preemption is not helpful for scheduling";
constexpr const char* kNoVictims = "No preemption victims found for incoming pod";
constexpr const char* kNoCandidateLeft = "no candidate node for preemption";
constexpr const char* kNotEligibleNever = "not eligible due to preemptionPolicy=Never.";
constexpr const char* kNotEligibleTerminating =
    "not eligible due to a terminating pod on the nominated node.";
// A pod without status.startTime started "now" for upstream: later than any real start.
constexpr std::int64_t kNoStartTime = std::numeric_limits<std::int64_t>::max();

// A PodDisruptionBudget as preemption reads it.
struct Budget {
  std::string namespace_name;
  k8s::LabelSelector selector;  // nothing() when nil, empty or invalid: matches no pod
  std::int64_t disruptions_allowed = 0;
  std::vector<std::string> disrupted_pods;  // status.disruptedPods: already counted

  bool counts(const schedhost::Pod& pod) const {
    if (pod.namespace_name() != namespace_name) return false;
    if (selector.matches_nothing() || selector.matches_everything()) return false;
    if (!selector.matches(pod)) return false;
    return std::find(disrupted_pods.begin(), disrupted_pods.end(), pod.name()) ==
           disrupted_pods.end();
  }
};

std::optional<nlohmann::json> json_at(const Context& ctx, std::size_t i, std::string_view ptr) {
  std::optional<std::string_view> text = ctx.pod_disruption_budget_json(i, ptr);
  if (!text) return std::nullopt;
  return nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
}

std::vector<Budget> budgets(const Context& ctx) {
  std::vector<Budget> out;
  for (std::size_t i = 0; i < ctx.pod_disruption_budget_count(); ++i) {
    Budget b;
    if (auto ns = json_at(ctx, i, "/metadata/namespace"); ns && ns->is_string()) {
      b.namespace_name = ns->get<std::string>();
    }
    if (auto selector = json_at(ctx, i, "/spec/selector")) {
      std::vector<k8s::FieldError> errors;
      b.selector = k8s::LabelSelector::parse(*selector, k8s::FieldPath(), errors);
    }
    if (auto allowed = json_at(ctx, i, "/status/disruptionsAllowed");
        allowed && allowed->is_number_integer()) {
      b.disruptions_allowed = allowed->get<std::int64_t>();
    }
    if (auto disrupted = json_at(ctx, i, "/status/disruptedPods");
        disrupted && disrupted->is_object()) {
      for (const auto& item : disrupted->items())
        b.disrupted_pods.push_back(item.key());
    }
    out.push_back(std::move(b));
  }
  return out;
}

// What preemption keeps of a pod on a candidate node.
struct PodSummary {
  std::string uid;
  std::int32_t priority = 0;
  std::int64_t start_ms = kNoStartTime;
  std::vector<std::size_t> budgets;  // indexes of the PDBs counting this pod
};

// What preemption reads of a pod (its budgets are counted by the caller that needs them).
PodSummary summarize(const schedhost::Pod& p) {
  return {std::string(p.uid()),
          p.priority(),
          p.start_time_ms() == 0 ? kNoStartTime : p.start_time_ms(),
          {}};
}

// upstream util.MoreImportantPod: higher priority, then the earlier start.
bool more_important(const PodSummary& a, const PodSummary& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return a.start_ms < b.start_ms;
}

// upstream podTerminatingByPreemption: being deleted, and its first DisruptionTarget condition
// is True with reason PreemptionByScheduler (the condition a scheduler's preemption writes).
bool terminating_by_preemption(const schedhost::Pod& p) {
  if (!p.terminating()) return false;
  const std::optional<std::string_view> text = p.json("/status/conditions");
  if (!text) return false;
  const nlohmann::json conditions = nlohmann::json::parse(*text, nullptr, false);
  if (!conditions.is_array()) return false;
  for (const nlohmann::json& c : conditions) {
    if (!c.is_object() || c.value("type", nlohmann::json()) != "DisruptionTarget") continue;
    return c.value("status", nlohmann::json()) == "True" &&
           c.value("reason", nlohmann::json()) == "PreemptionByScheduler";
  }
  return false;
}

// The Filter statuses PostFilter was given, read as upstream's NodeToStatus: a node without one
// is UnschedulableAndUnresolvable.
class FilterCodes {
 public:
  explicit FilterCodes(const schedhost::NodeStatusList& statuses) {
    for (const schedhost::NodeStatus s : statuses)
      codes_[s.node_name] = s.code;
  }
  Code of(std::string_view node) const {
    auto it = codes_.find(node);
    return it == codes_.end() ? Code::UnschedulableAndUnresolvable : it->second;
  }

 private:
  std::map<std::string_view, Code> codes_;
};

// The outcome of the dry run on one node.
struct NodeVerdict {
  std::string node;
  Status status;                    // Success: a candidate
  std::vector<PodSummary> victims;  // most important first
  int pdb_violations = 0;
};

class DefaultPreemption {
 public:
  explicit DefaultPreemption(const nlohmann::json& args) {
    if (!args.is_object()) {
      throw std::invalid_argument(
          "args must be an object with minCandidateNodesPercentage and "
          "minCandidateNodesAbsolute, got " +
          args.dump());
    }
    for (const auto& item : args.items()) {
      const std::string& key = item.key();
      if (item.value().is_null()) continue;
      if (key == "minCandidateNodesPercentage") {
        percentage_ = int32_arg(key, item.value());
      } else if (key == "minCandidateNodesAbsolute") {
        absolute_ = int32_arg(key, item.value());
      } else {
        throw std::invalid_argument("unknown field \"" + key +
                                    "\": DefaultPreemption args have "
                                    "minCandidateNodesPercentage and minCandidateNodesAbsolute");
      }
    }
    // upstream ValidateDefaultPreemptionArgs (path nil in New).
    const k8s::FieldPath percentage_path("minCandidateNodesPercentage");
    const k8s::FieldPath absolute_path("minCandidateNodesAbsolute");
    std::vector<k8s::FieldError> errors;
    if (percentage_ < 0 || percentage_ > 100) {
      errors.push_back(k8s::FieldError::invalid(percentage_path, std::to_string(percentage_),
                                                "not in valid range [0, 100]"));
    }
    if (absolute_ < 0) {
      errors.push_back(k8s::FieldError::invalid(absolute_path, std::to_string(absolute_),
                                                "not in valid range [0, inf)"));
    }
    if (percentage_ == 0 && absolute_ == 0) {
      errors.push_back(k8s::FieldError::invalid(
          percentage_path, "0", "cannot be zero at the same time as minCandidateNodesAbsolute"));
      errors.push_back(k8s::FieldError::invalid(
          absolute_path, "0", "cannot be zero at the same time as minCandidateNodesPercentage"));
    }
    if (!errors.empty()) throw std::invalid_argument(k8s::aggregate(errors));
  }

  Status PostFilter(Context& ctx, schedhost::CycleState&, const schedhost::Pod& pod,
                    const schedhost::NodeStatusList& statuses,
                    schedhost::PostFilterResult& result) const {
    Status status = preempt(ctx, pod, statuses, result);
    if (status.reasons().empty()) return status;
    // upstream prefixes the whole message once.
    std::string message;
    for (const std::string& r : status.reasons())
      message += (message.empty() ? "" : ", ") + r;
    return {status.code(), {"preemption: " + message}};
  }

 private:
  static std::int32_t int32_arg(const std::string& key, const nlohmann::json& value) {
    if (!value.is_number_integer() ||
        value.get<std::int64_t>() < std::numeric_limits<std::int32_t>::min() ||
        value.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
      throw std::invalid_argument(key + " must be an integer, got " + value.dump());
    }
    return value.get<std::int32_t>();
  }

  // upstream calculateNumCandidates.
  std::size_t num_candidates(std::size_t nodes) const {
    auto n = static_cast<std::int64_t>(nodes) * percentage_ / 100;
    n = std::max<std::int64_t>(n, absolute_);
    return static_cast<std::size_t>(std::min<std::int64_t>(n, static_cast<std::int64_t>(nodes)));
  }

  Status preempt(Context& ctx, const schedhost::Pod& pod, const schedhost::NodeStatusList& statuses,
                 schedhost::PostFilterResult& result) const {
    const FilterCodes filter_codes(statuses);
    if (Status s = eligible(ctx, pod, filter_codes); !s.ok()) return s;

    // Where preemption might help (upstream NodesForStatusCode(Unschedulable)), in snapshot
    // order; the others are "not helpful".
    if (ctx.nodes().empty()) return Status::Error("no nodes available");
    std::vector<std::string> potential;
    std::vector<NodeVerdict> failed;  // every node that is not a candidate, with why
    for (const schedhost::NodeInfo node : ctx.nodes()) {
      if (filter_codes.of(node.name()) == Code::Unschedulable) {
        potential.emplace_back(node.name());
      } else {
        failed.push_back(
            {std::string(node.name()), Status::UnschedulableAndUnresolvable(kNotHelpful), {}, 0});
      }
    }

    std::vector<NodeVerdict> candidates;  // without PDB violations first, then with
    std::vector<std::string> errors;
    if (!potential.empty()) {
      find_candidates(ctx, pod, potential, failed, candidates, errors);
    }
    if (candidates.empty()) {
      if (!errors.empty()) return Status::Error(errors.front());
      k8s::ReasonHistogram histogram;
      for (const NodeVerdict& v : failed)
        histogram.add(v.status.reasons());
      result.nominated_node_name = "";  // as upstream: no candidate clears the pod's nomination
      return Status::Unschedulable(k8s::no_nodes_available(failed.size(), histogram));
    }
    // upstream callExtenders: the extenders with a preempt verb may drop or change candidates.
    if (Status s = offer_to_extenders(ctx, candidates); !s.ok()) return s;
    if (candidates.empty()) return Status::Unschedulable(kNoCandidateLeft);
    const NodeVerdict& best = pick_one(candidates);
    result.nominated_node_name = best.node;
    for (const PodSummary& victim : best.victims)
      result.victims.push_back(victim.uid);
    return {};
  }

  // The candidates as the extenders leave them (all of them when none has a preempt verb). A
  // victim the extender added is summarized from the node, where the host found it.
  static Status offer_to_extenders(const Context& ctx, std::vector<NodeVerdict>& candidates) {
    std::vector<schedhost::PreemptionCandidate> offered;
    for (const NodeVerdict& c : candidates) {
      schedhost::PreemptionCandidate o{c.node, {}, c.pdb_violations};
      for (const PodSummary& v : c.victims)
        o.victims.push_back(v.uid);
      offered.push_back(std::move(o));
    }
    if (Status s = ctx.process_preemption(offered); !s.ok()) return s;
    std::map<std::string_view, const NodeVerdict*> by_node;
    for (const NodeVerdict& c : candidates)
      by_node.emplace(c.node, &c);
    std::vector<NodeVerdict> kept;
    for (const schedhost::PreemptionCandidate& o : offered) {
      auto it = by_node.find(o.node);
      if (it == by_node.end() || o.victims.empty()) continue;
      NodeVerdict v{o.node, {}, {}, static_cast<int>(o.pdb_violations)};
      for (const std::string& uid : o.victims) {
        const auto& before = it->second->victims;
        auto same = std::find_if(before.begin(), before.end(),
                                 [&uid](const PodSummary& p) { return p.uid == uid; });
        if (same != before.end()) {
          v.victims.push_back(*same);
        } else if (std::optional<PodSummary> added = summary_on(ctx, o.node, uid)) {
          v.victims.push_back(std::move(*added));
        }
      }
      if (!v.victims.empty()) kept.push_back(std::move(v));
    }
    candidates = std::move(kept);
    return {};
  }

  static std::optional<PodSummary> summary_on(const Context& ctx, std::string_view node,
                                              std::string_view uid) {
    std::optional<schedhost::NodeInfo> info = ctx.node(node);
    if (!info) return std::nullopt;
    for (const schedhost::Pod p : info->pods()) {
      if (p.uid() == uid) return summarize(p);
    }
    return std::nullopt;
  }

  // upstream PodEligibleToPreemptOthers: a pod whose earlier preemption is still under way on
  // its nominated node waits for it instead of preempting again.
  static Status eligible(const Context& ctx, const schedhost::Pod& pod,
                         const FilterCodes& filter_codes) {
    if (pod.preemption_policy() == "Never") return Status::Unschedulable(kNotEligibleNever);
    const std::string_view nominated = pod.nominated_node_name();
    if (nominated.empty()) return {};
    // A nominated node ruled out for good (or never filtered): preempt elsewhere.
    if (filter_codes.of(nominated) == Code::UnschedulableAndUnresolvable) return {};
    if (std::optional<schedhost::NodeInfo> node = ctx.node(nominated)) {
      for (const schedhost::Pod p : node->pods()) {
        if (p.priority() < pod.priority() && terminating_by_preemption(p)) {
          return Status::Unschedulable(kNotEligibleTerminating);
        }
      }
    }
    return {};
  }

  // upstream DryRunPreemption, made reproducible: batches of dry runs in parallel, their
  // verdicts taken in rotation order until enough candidates are found.
  void find_candidates(Context& ctx, const schedhost::Pod& pod,
                       const std::vector<std::string>& potential, std::vector<NodeVerdict>& failed,
                       std::vector<NodeVerdict>& candidates,
                       std::vector<std::string>& errors) const {
    const std::vector<Budget> pdbs = budgets(ctx);
    const std::size_t n = potential.size();
    const std::size_t offset = static_cast<std::size_t>(ctx.random() % n);
    const std::size_t wanted = num_candidates(n);
    std::vector<NodeVerdict> clean;
    std::vector<NodeVerdict> violating;
    const std::size_t batch = std::max<std::size_t>(wanted, 1);
    std::vector<NodeVerdict> verdicts;
    for (std::size_t done = 0; done < n;) {
      const std::size_t size = std::min(batch, n - done);
      verdicts.assign(size, NodeVerdict{});
      ctx.parallel_for(size, [&](std::size_t i) {
        verdicts[i] = select_victims(ctx, pod, potential[(offset + done + i) % n], pdbs);
      });
      bool enough = false;
      for (std::size_t i = 0; i < size && !enough; ++i) {
        NodeVerdict& v = verdicts[i];
        if (v.status.ok()) {
          (v.pdb_violations == 0 ? clean : violating).push_back(std::move(v));
          enough = !clean.empty() && clean.size() + violating.size() >= wanted;
        } else {
          if (v.status.code() == Code::Error && !v.status.reasons().empty()) {
            errors.push_back(v.status.reasons().front());
          }
          failed.push_back(std::move(v));
        }
      }
      done += size;
      if (enough) break;
    }
    candidates = std::move(clean);
    std::move(violating.begin(), violating.end(), std::back_inserter(candidates));
  }

  // upstream SelectVictimsOnNode, on a dry run of one node.
  static NodeVerdict select_victims(const Context& ctx, const schedhost::Pod& pod,
                                    const std::string& node, const std::vector<Budget>& pdbs) {
    NodeVerdict out{node, {}, {}, 0};
    std::optional<schedhost::DryRun> run = ctx.dry_run(node);
    if (!run) {
      out.status = Status::Error("cannot start a dry run on node \"" + node + "\"");
      return out;
    }
    std::vector<PodSummary> lower;
    for (const schedhost::Pod p : run->node().pods()) {
      if (p.priority() >= pod.priority()) continue;
      PodSummary s = summarize(p);
      if (!p.labels().empty()) {
        for (std::size_t i = 0; i < pdbs.size(); ++i) {
          if (pdbs[i].counts(p)) s.budgets.push_back(i);
        }
      }
      lower.push_back(std::move(s));
    }
    for (const PodSummary& p : lower) {
      if (Status s = run->remove_pod(p.uid); !s.ok()) {
        out.status = std::move(s);
        return out;
      }
    }
    if (lower.empty()) {
      out.status = Status::UnschedulableAndUnresolvable(kNoVictims);
      return out;
    }
    if (Status s = run->filter(); !s.ok()) {
      out.status = std::move(s);
      return out;
    }

    // Reprieve as many as possible: PDB-violating pods first, each group most important first.
    std::stable_sort(lower.begin(), lower.end(), more_important);
    std::vector<std::int64_t> allowed;
    for (const Budget& b : pdbs)
      allowed.push_back(b.disruptions_allowed);
    std::vector<const PodSummary*> violating;
    std::vector<const PodSummary*> non_violating;
    for (const PodSummary& p : lower) {
      bool violates = false;
      for (std::size_t i : p.budgets)
        violates = --allowed[i] < 0 || violates;
      (violates ? violating : non_violating).push_back(&p);
    }
    auto reprieve = [&](const PodSummary& p, bool& fits) -> Status {
      if (Status s = run->add_pod(p.uid); !s.ok()) return s;
      fits = run->filter().ok();
      if (fits) return {};
      if (Status s = run->remove_pod(p.uid); !s.ok()) return s;
      out.victims.push_back(p);
      return {};
    };
    for (const PodSummary* p : violating) {
      bool fits = false;
      if (Status s = reprieve(*p, fits); !s.ok()) {
        out.status = std::move(s);
        return out;
      }
      if (!fits) ++out.pdb_violations;
    }
    for (const PodSummary* p : non_violating) {
      bool fits = false;
      if (Status s = reprieve(*p, fits); !s.ok()) {
        out.status = std::move(s);
        return out;
      }
    }
    if (out.victims.empty()) {
      out.status = Status::Error("expected at least one victim pod on node \"" + node + "\"");
    }
    // Victims were collected in two groups: keep the whole list most important first.
    std::stable_sort(out.victims.begin(), out.victims.end(), more_important);
    return out;
  }

  // upstream pickOneNodeForPreemption, each criterion narrowing the candidates in turn.
  static const NodeVerdict& pick_one(const std::vector<NodeVerdict>& candidates) {
    std::vector<const NodeVerdict*> left;
    for (const NodeVerdict& c : candidates)
      left.push_back(&c);
    auto narrow = [&left](auto score) {
      std::int64_t best = std::numeric_limits<std::int64_t>::min();
      std::vector<const NodeVerdict*> kept;
      for (const NodeVerdict* c : left) {
        const std::int64_t s = score(*c);
        if (s > best) {
          best = s;
          kept.clear();
        }
        if (s == best) kept.push_back(c);
      }
      left = std::move(kept);
    };
    narrow([](const NodeVerdict& c) { return -static_cast<std::int64_t>(c.pdb_violations); });
    if (left.size() > 1) {
      narrow([](const NodeVerdict& c) {
        return -static_cast<std::int64_t>(c.victims.front().priority);
      });
    }
    if (left.size() > 1) {
      narrow([](const NodeVerdict& c) {
        // Shifted by 2^31 so that every priority counts as >= 0.
        std::int64_t sum = 0;
        for (const PodSummary& v : c.victims)
          sum += static_cast<std::int64_t>(v.priority) + (std::int64_t{1} << 31);
        return -sum;
      });
    }
    if (left.size() > 1) {
      narrow([](const NodeVerdict& c) { return -static_cast<std::int64_t>(c.victims.size()); });
    }
    if (left.size() > 1) {
      narrow([](const NodeVerdict& c) {
        // The earliest start among the highest-priority victims; the latest such node wins.
        std::int64_t earliest = kNoStartTime;
        const std::int32_t top = c.victims.front().priority;
        for (const PodSummary& v : c.victims) {
          if (v.priority == top) earliest = std::min(earliest, v.start_ms);
        }
        return earliest;
      });
    }
    return *left.front();
  }

  std::int32_t percentage_ = 10;
  std::int32_t absolute_ = 100;
};

}  // namespace

SCHEDHOST_LIBRARY("default-preemption", "1.0.0",
                  schedhost::plugin<DefaultPreemption, schedhost::hook::PostFilter>(
                      "DefaultPreemption",
                      "Evicts lower-priority pods to make room when no node fits (PostFilter)"))
