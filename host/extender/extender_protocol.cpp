#include "extender/extender_protocol.hpp"

#include "extender/json_spans.hpp"

namespace schedhost::extender {
namespace {

using nlohmann::json;

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string parse_error_text(const json::parse_error& e) {
  std::string text = e.what();
  if (const auto end = text.find("] ");
      text.rfind("[json.exception", 0) == 0 && end != std::string::npos) {
    text.erase(0, end + 2);
  }
  return text;
}

// Compact JSON; a plugin's reason that is not UTF-8 is written with U+FFFD, not refused.
std::string text(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// NodeList.items as the text of each Node object.
std::vector<std::string_view> node_items(std::string_view nodes) {
  const auto members = object_members(nodes);
  if (!members) {
    throw ProtocolError(
        "ExtenderArgs.Nodes must be a NodeList object ({\"items\": [...]}) or "
        "null, got " +
        std::string(parse_member(nodes, "ExtenderArgs.Nodes").type_name()));
  }
  std::string_view items = "null";
  for (const auto& [key, value] : *members) {
    if (key == "items") items = value;
  }
  if (items == "null") return {};
  auto elements = array_elements(items);
  if (!elements) {
    throw ProtocolError("ExtenderArgs.Nodes.items must be a list of Node objects, got " +
                        std::string(parse_member(items, "ExtenderArgs.Nodes.items").type_name()));
  }
  for (std::size_t i = 0; i < elements->size(); ++i) {
    if ((*elements)[i].front() != '{') {
      const std::string where = "ExtenderArgs.Nodes.items[" + std::to_string(i) + "]";
      throw ProtocolError(where + " must be a Node object, got " +
                          std::string(parse_member((*elements)[i], where).type_name()));
    }
  }
  return std::move(*elements);
}

std::vector<std::string> node_names(const json& names) {
  if (!names.is_array()) {
    throw ProtocolError("ExtenderArgs.NodeNames must be a list of node names or null, got " +
                        std::string(names.type_name()));
  }
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const json& name : names) {
    if (!name.is_string()) {
      throw ProtocolError("ExtenderArgs.NodeNames[" + std::to_string(out.size()) +
                          "] must be a string, got " + std::string(name.type_name()));
    }
    out.push_back(name.get<std::string>());
  }
  return out;
}

}  // namespace

json parse_member(std::string_view text, const std::string& where) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw ProtocolError(where + " is not JSON (" + parse_error_text(e) + ")");
  }
}

ExtenderArgs parse_extender_args(std::string_view body) {
  // The members as spans of the body: the nodes are not built here (see ExtenderArgs::nodes).
  const auto members = object_members(body);
  if (!members) {
    json doc;
    try {
      doc = json::parse(body);
    } catch (const json::parse_error& e) {
      throw ProtocolError("the request body is not JSON (" + parse_error_text(e) +
                          "): send ExtenderArgs, {\"Pod\": {...}, \"Nodes\": {...} or "
                          "\"NodeNames\": [...]}");
    }
    throw ProtocolError("the request body must be an ExtenderArgs object, got " +
                        std::string(doc.type_name()));
  }
  std::optional<std::string_view> pod, nodes, names;
  for (const auto& [key, value] : *members) {
    if (key == "Pod") pod = value;
    if (key == "Nodes" && value != "null") nodes = value;
    if (key == "NodeNames" && value != "null") names = value;
  }
  ExtenderArgs args;
  if (pod) args.pod = parse_member(*pod, "ExtenderArgs.Pod");
  if (!args.pod.is_object()) {
    throw ProtocolError(
        "ExtenderArgs.Pod is missing or not an object: send the pod to schedule "
        "as {\"Pod\": {...}}");
  }
  if (nodes.has_value() == names.has_value()) {
    throw ProtocolError(std::string("ExtenderArgs has ") + (nodes ? "both" : "neither") +
                        " Nodes and NodeNames: send NodeNames when the extender entry says "
                        "nodeCacheCapable: true, Nodes otherwise");
  }
  if (nodes) args.nodes = node_items(*nodes);
  if (names) args.node_names = node_names(parse_member(*names, "ExtenderArgs.NodeNames"));
  return args;
}

std::string to_json(const FilterResult& result) {
  std::string out = "{\"Nodes\":";
  if (result.nodes) {
    out += "{\"items\":[";
    for (std::size_t i = 0; i < result.nodes->size(); ++i) {
      if (i != 0) out += ',';
      out += (*result.nodes)[i];
    }
    out += "]}";
  } else {
    out += "null";
  }
  out += ",\"NodeNames\":";
  out += result.node_names ? text(*result.node_names) : "null";
  out += ",\"FailedNodes\":" + text(result.failed_nodes);
  out += ",\"FailedAndUnresolvableNodes\":" + text(result.failed_and_unresolvable_nodes);
  out += ",\"Error\":" + text(result.error) + "}";
  return out;
}

std::string to_json(const std::vector<HostPriority>& priorities) {
  json list = json::array();
  for (const HostPriority& p : priorities)
    list.push_back({{"Host", p.host}, {"Score", p.score}});
  return text(list);
}

}  // namespace schedhost::extender
