// The wire shapes of kube-scheduler's extender protocol (k8s.io/kube-scheduler/extender/v1):
// ExtenderArgs in, ExtenderFilterResult or HostPriorityList out. The Go structs carry no json
// tags, so their keys are the PascalCase field names; the Pod and the Nodes inside are ordinary
// API objects (camelCase).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedhost::extender {

// Upstream's MaxExtenderPriority: a prioritize answer scores 0..10.
inline constexpr std::int64_t kMaxExtenderPriority = 10;

// A request the protocol cannot accept (bad JSON, a missing Pod, both or neither of Nodes and
// NodeNames): answered 400 with what() as its one line.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ExtenderArgs. Exactly one of nodes and node_names is set: nodes when the scheduler's entry says
// nodeCacheCapable: false, node_names when true.
struct ExtenderArgs {
  nlohmann::json pod;
  // NodeList.items: each Node object's text as sent, a view into the body (not parsed yet: most
  // are the same from one request to the next).
  std::optional<std::vector<std::string_view>> nodes;
  std::optional<std::vector<std::string>> node_names;
};

// The JSON value of a member of a request, where names it ("ExtenderArgs.Pod"). Throws
// ProtocolError "<where> is not JSON (<why>)".
nlohmann::json parse_member(std::string_view text, const std::string& where);

// Parses a request body; the args' node views point into body, which must outlive them. Throws
// ProtocolError naming the field and the fix.
ExtenderArgs parse_extender_args(std::string_view body);

// ExtenderFilterResult. Passing nodes go back in the shape they came in: node_names for a
// NodeNames request, nodes (the objects as sent) for a Nodes request; both unset with an error.
struct FilterResult {
  // Each passing Node object's text, as the request sent it (views into its body).
  std::optional<std::vector<std::string_view>> nodes;
  std::optional<std::vector<std::string>> node_names;
  std::map<std::string, std::string> failed_nodes;                   // Unschedulable
  std::map<std::string, std::string> failed_and_unresolvable_nodes;  // UnschedulableAndUnresolvable
  std::string error;  // a plugin's Error, or a request this extender cannot serve
};

// The ExtenderFilterResult JSON text.
std::string to_json(const FilterResult& result);

// One HostPriority: a node's score, 0..kMaxExtenderPriority.
struct HostPriority {
  std::string host;
  std::int64_t score = 0;
};

// The HostPriorityList JSON text.
std::string to_json(const std::vector<HostPriority>& priorities);

}  // namespace schedhost::extender
