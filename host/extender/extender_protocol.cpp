#include "extender/extender_protocol.hpp"

#include "cluster/json_spans.hpp"

namespace schedhost::extender {
namespace {

using cluster::array_elements;
using cluster::ContainerEnds;
using cluster::object_members;
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

// Printable ASCII other than '"' and '\\': the same bytes inside JSON quotes as outside. Node
// names and most reasons are nothing else, so they are copied as they are; anything else goes
// through nlohmann (escapes, UTF-8 checks).
bool plain(std::string_view s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

void append_string(std::string& out, std::string_view s) {
  if (plain(s)) {
    out += '"';
    out += s;
    out += '"';
  } else {
    out += text(json(std::string(s)));
  }
}

void append_map(std::string& out, const std::map<std::string, std::string>& map) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : map) {
    if (!first) out += ',';
    first = false;
    append_string(out, key);
    out += ':';
    append_string(out, value);
  }
  out += '}';
}

// NodeList.items as the text of each Node object.
std::vector<std::string_view> node_items(std::string_view nodes, ContainerEnds& ends) {
  const auto members = object_members(nodes, &ends);
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
  auto elements = array_elements(items, &ends);
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

std::vector<std::string> node_names(const json& names);

// NodeNames without building a DOM: a 5000-name list is most of a request, and each name is a
// plain string. Anything unusual (escapes, other types, bad JSON) is read by nlohmann.
std::vector<std::string> node_names(std::string_view text) {
  std::optional<std::vector<std::string_view>> elements = array_elements(text);
  if (!elements) return node_names(parse_member(text, "ExtenderArgs.NodeNames"));
  std::vector<std::string> out;
  out.reserve(elements->size());
  for (const std::string_view e : *elements) {
    const std::string_view inner = e.size() >= 2 && e.front() == '"' && e.back() == '"'
                                       ? e.substr(1, e.size() - 2)
                                       : std::string_view();
    if (inner.data() == nullptr || !plain(inner)) {
      return node_names(parse_member(text, "ExtenderArgs.NodeNames"));
    }
    out.emplace_back(inner);
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

json parse_member(std::string_view text, const std::string& where) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw ProtocolError(where + " is not JSON (" + parse_error_text(e) + ")");
  }
}

ExtenderArgs parse_extender_args(std::string_view body) {
  // The members as spans of the body: the nodes are not built here (see ExtenderArgs::nodes).
  ContainerEnds ends;  // one scan of the body, however deep the nodes are split
  const auto members = object_members(body, &ends);
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
  if (nodes) args.nodes = node_items(*nodes, ends);
  if (names) args.node_names = node_names(*names);
  return args;
}

std::string to_json(const FilterResult& result) {
  std::size_t size = 128 + result.error.size();
  if (result.nodes) {
    for (const std::string_view node : *result.nodes)
      size += node.size() + 1;
  }
  if (result.node_names) {
    for (const std::string& name : *result.node_names)
      size += name.size() + 3;
  }
  for (const auto* map : {&result.failed_nodes, &result.failed_and_unresolvable_nodes}) {
    for (const auto& [node, reason] : *map)
      size += node.size() + reason.size() + 6;
  }
  std::string out;
  out.reserve(size);
  out += "{\"Nodes\":";
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
  if (result.node_names) {
    out += '[';
    for (std::size_t i = 0; i < result.node_names->size(); ++i) {
      if (i != 0) out += ',';
      append_string(out, (*result.node_names)[i]);
    }
    out += ']';
  } else {
    out += "null";
  }
  out += ",\"FailedNodes\":";
  append_map(out, result.failed_nodes);
  out += ",\"FailedAndUnresolvableNodes\":";
  append_map(out, result.failed_and_unresolvable_nodes);
  out += ",\"Error\":";
  append_string(out, result.error);
  out += '}';
  return out;
}

std::string to_json(const std::vector<HostPriority>& priorities) {
  std::string out;
  out.reserve(priorities.size() * 40 + 2);
  out += '[';
  for (std::size_t i = 0; i < priorities.size(); ++i) {
    if (i != 0) out += ',';
    out += "{\"Host\":";
    append_string(out, priorities[i].host);
    out += ",\"Score\":";
    out += std::to_string(priorities[i].score);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace schedhost::extender
