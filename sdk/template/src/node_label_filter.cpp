// NodeLabelFilter: keeps pods on nodes that carry a required label, and prefers nodes by a
// numeric label.
//
// Filter: a node without the label args.requiredLabel is UnschedulableAndUnresolvable, with the
//   reason "node(s) didn't have label <requiredLabel>" (no preemption can add a label).
// Score: the integer value of the node's label args.scoreLabel, clamped to 0..100; 0 when the
//   node has no such label or its value is not an integer. Without scoreLabel every node scores 0.
// Events (ABI 1.3): a pod Filter rejected can only fit after a node is added or relabelled, and
//   only on a node that has the label: `schedhost serve` retries it then, not on every change.
//
// Args (pluginConfig[].args):
//   requiredLabel  string, required, non-empty
//   scoreLabel     string, optional
// Anything else refuses the args: the host prints `plugin "NodeLabelFilter": <why>` and exits 2.
//
// Filter and Score run concurrently on one instance, so the instance is immutable after
// construction.
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

constexpr std::int64_t kMaxScore = 100;

std::string string_arg(const nlohmann::json& args, const char* key, bool required) {
  const auto it = args.find(key);
  if (it == args.end()) {
    if (required) throw std::invalid_argument(std::string(key) + " is required");
    return {};
  }
  if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
    throw std::invalid_argument(std::string(key) + " must be a non-empty string, got " +
                                it->dump());
  }
  return it->get<std::string>();
}

class NodeLabelFilter {
 public:
  explicit NodeLabelFilter(const nlohmann::json& args) {
    if (!args.is_object()) throw std::invalid_argument("args must be an object");
    for (const auto& item : args.items()) {
      if (item.key() != "requiredLabel" && item.key() != "scoreLabel") {
        throw std::invalid_argument("unknown arg \"" + item.key() +
                                    "\": the args are requiredLabel and scoreLabel");
      }
    }
    required_label_ = string_arg(args, "requiredLabel", true);
    score_label_ = string_arg(args, "scoreLabel", false);
    missing_reason_ = "node(s) didn't have label " + required_label_;
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&, const schedhost::Pod&,
                           const schedhost::NodeInfo& node) const {
    if (!node.label(required_label_)) {
      return schedhost::Status::UnschedulableAndUnresolvable(missing_reason_);
    }
    return {};
  }

  // EnqueueExtensions: the events that may make a pod Filter rejected fit. A missing label is
  // only fixed by a new node or a change of a node's labels. Called once, after construction.
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeLabel);
  }

  // The queueing hint for those events: try the pod again only when the node has the label now.
  // Runs between scheduling cycles on the scheduling thread, with no snapshot: keep it pure and
  // fast. (A hint that throws answers Queue.)
  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod&,
                                             const schedhost::ClusterEvent& event) const {
    if (event.new_node && event.new_node->label(required_label_)) {
      return schedhost::QueueingHint::kQueue;
    }
    return schedhost::QueueingHint::kSkip;
  }

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState&, const schedhost::Pod&,
                          const schedhost::NodeInfo& node, std::int64_t& score) const {
    score = 0;
    if (score_label_.empty()) return {};
    const auto value = node.label(score_label_);
    if (!value) return {};
    std::int64_t parsed = 0;
    const char* end = value->data() + value->size();
    const auto [ptr, ec] = std::from_chars(value->data(), end, parsed);
    if (ec == std::errc() && ptr == end) score = std::clamp<std::int64_t>(parsed, 0, kMaxScore);
    return {};
  }

 private:
  std::string required_label_;
  std::string score_label_;
  std::string missing_reason_;
};

}  // namespace

SCHEDHOST_LIBRARY("node-label-filter", "0.1.0",
                  schedhost::plugin<NodeLabelFilter, schedhost::hook::Filter,
                                    schedhost::hook::Score, schedhost::hook::EnqueueExtensions>(
                      "NodeLabelFilter",
                      "Keeps pods on nodes with a required label; prefers a numeric label"))
