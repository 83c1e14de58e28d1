#include "extender/extender_protocol.hpp"

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

std::vector<json> node_items(json& nodes) {
  if (!nodes.is_object()) {
    throw ProtocolError(
        "ExtenderArgs.Nodes must be a NodeList object ({\"items\": [...]}) or "
        "null, got " +
        std::string(nodes.type_name()));
  }
  const auto items = nodes.find("items");
  if (items == nodes.end() || items->is_null()) return {};
  if (!items->is_array()) {
    throw ProtocolError("ExtenderArgs.Nodes.items must be a list of Node objects, got " +
                        std::string(items->type_name()));
  }
  std::vector<json> out;
  out.reserve(items->size());
  for (json& node : *items) {
    if (!node.is_object()) {
      throw ProtocolError("ExtenderArgs.Nodes.items[" + std::to_string(out.size()) +
                          "] must be a Node object, got " + std::string(node.type_name()));
    }
    out.push_back(std::move(node));
  }
  return out;
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

ExtenderArgs parse_extender_args(std::string_view body) {
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error& e) {
    throw ProtocolError("the request body is not JSON (" + parse_error_text(e) +
                        "): send ExtenderArgs, {\"Pod\": {...}, \"Nodes\": {...} or "
                        "\"NodeNames\": [...]}");
  }
  if (!doc.is_object()) {
    throw ProtocolError("the request body must be an ExtenderArgs object, got " +
                        std::string(doc.type_name()));
  }
  ExtenderArgs args;
  const auto pod = doc.find("Pod");
  if (pod == doc.end() || !pod->is_object()) {
    throw ProtocolError(
        "ExtenderArgs.Pod is missing or not an object: send the pod to schedule "
        "as {\"Pod\": {...}}");
  }
  args.pod = std::move(*pod);
  const auto nodes = doc.find("Nodes");
  const auto names = doc.find("NodeNames");
  const bool has_nodes = nodes != doc.end() && !nodes->is_null();
  const bool has_names = names != doc.end() && !names->is_null();
  if (has_nodes == has_names) {
    throw ProtocolError(std::string("ExtenderArgs has ") + (has_nodes ? "both" : "neither") +
                        " Nodes and NodeNames: send NodeNames when the extender entry says "
                        "nodeCacheCapable: true, Nodes otherwise");
  }
  if (has_nodes) args.nodes = node_items(*nodes);
  if (has_names) args.node_names = node_names(*names);
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
