#include "scheduler/http_extender.hpp"

#include <curl/curl.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "common/input_error.hpp"
#include "kube/api_client.hpp"

namespace schedhost::scheduler {
namespace {

using nlohmann::json;

std::string read_pem_file(const std::string& path, const std::string& field) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError("extender tlsConfig." + field + " \"" + path +
                     "\" cannot be read: give a readable PEM file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What upstream's makeTransport gives the extender's HTTP client, as kube::ApiClient takes it.
kube::ClientConfig client_config(const config::ExtenderConfig& e, const std::string& origin) {
  kube::ClientConfig c;
  c.server = origin;
  c.qps = 0;  // no client-side rate limit: upstream's extender client has none
  c.timeout = e.http_timeout;
  c.source = "extender " + e.url_prefix;
  if (e.tls) {
    c.insecure_skip_tls_verify = e.tls->insecure;
    c.tls_server_name = e.tls->server_name;
    c.ca_pem = !e.tls->ca_pem.empty()    ? e.tls->ca_pem
               : !e.tls->ca_file.empty() ? read_pem_file(e.tls->ca_file, "caFile")
                                         : "";
    c.client_cert_pem = !e.tls->cert_pem.empty()    ? e.tls->cert_pem
                        : !e.tls->cert_file.empty() ? read_pem_file(e.tls->cert_file, "certFile")
                                                    : "";
    c.client_key_pem = !e.tls->key_pem.empty()    ? e.tls->key_pem
                       : !e.tls->key_file.empty() ? read_pem_file(e.tls->key_file, "keyFile")
                                                  : "";
  }
  // enableHTTPS without a CA: upstream does not verify the server.
  if (e.enable_https && c.ca_pem.empty()) c.insecure_skip_tls_verify = true;
  return c;
}

// Go's encoding/json matches keys case-insensitively (an exact match first).
const json* member(const json& object, std::string_view name) {
  if (auto it = object.find(name); it != object.end()) return &*it;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key.size() == name.size() &&
        std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return &*it;
    }
  }
  return nullptr;
}

// Go's name for a JSON value's kind in "cannot unmarshal" messages.
std::string go_kind(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  if (v.is_number_float()) return "number " + v.dump();
  return "number";
}

[[noreturn]] void cannot_unmarshal(const json& v, const std::string& into) {
  throw ExtenderError("json: cannot unmarshal " + go_kind(v) + " into " + into);
}

std::string read_string(const json& object, std::string_view name, const std::string& field) {
  const json* v = member(object, name);
  if (v == nullptr || v->is_null()) return "";
  if (!v->is_string()) cannot_unmarshal(*v, "Go struct field " + field + " of type string");
  return v->get<std::string>();
}

std::int64_t read_int64(const json& object, std::string_view name, const std::string& field) {
  const json* v = member(object, name);
  if (v == nullptr || v->is_null()) return 0;
  if (!v->is_number_integer()) cannot_unmarshal(*v, "Go struct field " + field + " of type int64");
  return v->get<std::int64_t>();
}

// A FailedNodesMap: node -> reason.
std::map<std::string, std::string> read_failed(const json& object, std::string_view name) {
  std::map<std::string, std::string> failed;
  const json* v = member(object, name);
  if (v == nullptr || v->is_null()) return failed;
  const std::string field = "Go struct field ExtenderFilterResult." + std::string(name);
  if (!v->is_object()) cannot_unmarshal(*v, field + " of type v1.FailedNodesMap");
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it->is_string()) cannot_unmarshal(*it, field + " of type string");
    failed[it.key()] = it->get<std::string>();
  }
  return failed;
}

// Go's json.Decoder on a body that is not JSON: its message for the common cases.
[[noreturn]] void undecodable(const std::string& body) {
  const std::size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw ExtenderError("EOF");
  const char c = body[first];
  if (std::string_view("{[\"-0123456789tfn").find(c) == std::string_view::npos) {
    throw ExtenderError(std::string("invalid character '") + c +
                        "' looking for beginning of value");
  }
  try {
    const json parsed = json::parse(body);
  } catch (const json::parse_error& e) {
    if (e.byte >= body.size() || e.byte == 0) throw ExtenderError("unexpected EOF");
    throw ExtenderError(std::string("invalid character '") + body[e.byte - 1] +
                        "' in the extender's JSON answer at byte " + std::to_string(e.byte));
  }
  throw ExtenderError("unexpected EOF");
}

// host:port of an origin, with the scheme's port when it has none (as Go's dial error names it).
std::string dial_address(const std::string& origin) {
  const std::size_t scheme_end = origin.find("://");
  const std::string scheme =
      scheme_end == std::string::npos ? "http" : origin.substr(0, scheme_end);
  const std::string authority =
      scheme_end == std::string::npos ? origin : origin.substr(scheme_end + 3);
  const bool has_port =
      authority.find(':', authority.rfind(']') == std::string::npos ? 0 : authority.rfind(']')) !=
      std::string::npos;
  return has_port ? authority : authority + (scheme == "https" ? ":443" : ":80");
}

}  // namespace

HttpExtender::HttpExtender(const config::ExtenderConfig& config) : config_(config) {
  // urlPrefix "http://host:port/some/prefix/": the origin to connect to, and the path to which
  // "/<verb>" is appended (upstream trims the prefix's trailing slashes).
  url_ = config_.url_prefix;
  while (!url_.empty() && url_.back() == '/')
    url_.pop_back();
  const std::size_t scheme_end = url_.find("://");
  const std::size_t path_start =
      url_.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  origin_ = url_.substr(0, path_start);
  path_ = path_start == std::string::npos ? "" : url_.substr(path_start);
  for (const config::ExtenderManagedResource& r : config_.managed_resources)
    managed_.insert(r.name);
  client_ = std::make_unique<kube::ApiClient>(client_config(config_, origin_), "/extender");
}

HttpExtender::~HttpExtender() = default;

bool HttpExtender::interested(const cluster::Pod& pod) const {
  if (managed_.empty()) return true;
  const json& spec = pod.json().value("spec", json::object());
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = spec.value(list, json::array());
    for (const json& c : containers) {
      const json& resources = c.value("resources", json::object());
      for (const char* kind : {"requests", "limits"}) {
        const json& names = resources.value(kind, json::object());
        if (!names.is_object()) continue;
        for (auto it = names.begin(); it != names.end(); ++it) {
          if (managed_.count(it.key()) != 0) return true;
        }
      }
    }
  }
  return false;
}

json HttpExtender::args_for(const cluster::Pod& pod,
                            const std::vector<const cluster::Node*>& nodes) const {
  json args = {{"Pod", pod.json()}};
  if (config_.node_cache_capable) {
    json names = json::array();
    for (const cluster::Node* n : nodes)
      names.push_back(n->name());
    args["Nodes"] = nullptr;
    args["NodeNames"] = std::move(names);
  } else {
    json items = json::array();
    for (const cluster::Node* n : nodes)
      items.push_back(n->json());
    args["Nodes"] = {{"metadata", json::object()}, {"items", std::move(items)}};
    args["NodeNames"] = nullptr;
  }
  return args;
}

json HttpExtender::send(const std::string& verb, const json& args) const {
  const std::string url = url_ + "/" + verb;
  kube::Response r;
  try {
    r = client_->request("POST", path_ + "/" + verb, args.dump(), "application/json");
  } catch (const kube::ApiError& e) {
    // Worded as Go's net/http client words them.
    if (e.transport() == CURLE_COULDNT_CONNECT) {
      throw ExtenderError("Post \"" + url + "\": dial tcp " + dial_address(origin_) +
                          ": connect: connection refused");
    }
    if (e.transport() == CURLE_OPERATION_TIMEDOUT) {
      throw ExtenderError("Post \"" + url +
                          "\": context deadline exceeded (Client.Timeout exceeded while awaiting "
                          "headers)");
    }
    throw ExtenderError("Post \"" + url + "\": " + e.message());
  }
  if (r.code != 200) {
    throw ExtenderError("failed " + verb + " with extender at URL " + url + ", code " +
                        std::to_string(r.code));
  }
  json answer = json::parse(r.body, nullptr, false);
  if (answer.is_discarded()) undecodable(r.body);
  return answer;
}

ExtenderFilterAnswer HttpExtender::filter(const cluster::Pod& pod,
                                          const std::vector<const cluster::Node*>& nodes) const {
  ExtenderFilterAnswer out;
  if (!filters()) {
    for (const cluster::Node* n : nodes)
      out.feasible.push_back(n->name());
    return out;
  }
  const json result = send(config_.filter_verb, args_for(pod, nodes));
  if (result.is_null()) return out;  // Go decodes null into the zero value: no node passes
  if (!result.is_object()) cannot_unmarshal(result, "Go value of type v1.ExtenderFilterResult");
  if (std::string error = read_string(result, "Error", "ExtenderFilterResult.Error");
      !error.empty()) {
    throw ExtenderError(error);
  }
  std::set<std::string, std::less<>> given;
  for (const cluster::Node* n : nodes)
    given.insert(n->name());
  const json* names = member(result, "NodeNames");
  const json* list = member(result, "Nodes");
  if (config_.node_cache_capable && names != nullptr && !names->is_null()) {
    if (!names->is_array()) {
      cannot_unmarshal(*names, "Go struct field ExtenderFilterResult.NodeNames of type []string");
    }
    for (const json& name : *names) {
      if (!name.is_string()) {
        cannot_unmarshal(name, "Go struct field ExtenderFilterResult.NodeNames of type string");
      }
      if (given.count(name.get<std::string>()) == 0) {
        throw ExtenderError("extender \"" + config_.url_prefix + "\" claims a filtered node \"" +
                            name.get<std::string>() +
                            "\" which is not found in the input node list");
      }
      out.feasible.push_back(name.get<std::string>());
    }
  } else if (list != nullptr && !list->is_null()) {
    if (!list->is_object()) {
      cannot_unmarshal(*list, "Go struct field ExtenderFilterResult.Nodes of type v1.NodeList");
    }
    const json* items = member(*list, "items");
    if (items != nullptr && items->is_array()) {
      for (const json& node : *items) {
        const json& metadata = node.value("metadata", json::object());
        out.feasible.push_back(metadata.is_object() ? metadata.value("name", "") : "");
      }
    }
  }
  out.failed = read_failed(result, "FailedNodes");
  out.failed_unresolvable = read_failed(result, "FailedAndUnresolvableNodes");
  return out;
}

std::vector<std::pair<std::string, std::int64_t>> HttpExtender::prioritize(
    const cluster::Pod& pod, const std::vector<const cluster::Node*>& nodes) const {
  std::vector<std::pair<std::string, std::int64_t>> scores;
  if (!prioritizes()) {
    for (const cluster::Node* n : nodes)
      scores.emplace_back(n->name(), 0);
    return scores;
  }
  const json result = send(config_.prioritize_verb, args_for(pod, nodes));
  if (result.is_null()) return scores;
  if (!result.is_array()) cannot_unmarshal(result, "Go value of type v1.HostPriorityList");
  for (const json& entry : result) {
    if (entry.is_null()) {
      scores.emplace_back("", 0);
      continue;
    }
    if (!entry.is_object()) cannot_unmarshal(entry, "Go value of type v1.HostPriority");
    scores.emplace_back(read_string(entry, "Host", "HostPriority.Host"),
                        read_int64(entry, "Score", "HostPriority.Score"));
  }
  return scores;
}

void HttpExtender::bind(const cluster::Pod& pod, const std::string& node) const {
  const json args = {{"PodName", pod.name()},
                     {"PodNamespace", pod.namespace_name()},
                     {"PodUID", pod.uid()},
                     {"Node", node}};
  const json result = send(config_.bind_verb, args);
  if (result.is_null()) return;
  if (!result.is_object()) cannot_unmarshal(result, "Go value of type v1.ExtenderBindingResult");
  if (std::string error = read_string(result, "Error", "ExtenderBindingResult.Error");
      !error.empty()) {
    throw ExtenderError(error);
  }
}

std::map<std::string, ExtenderMetaVictims> HttpExtender::process_preemption(
    const cluster::Pod& pod, const std::map<std::string, ExtenderVictims>& victims) const {
  json per_node = json::object();
  for (const auto& [node, v] : victims) {
    json pods = json::array();
    for (const cluster::Pod* p : v.pods) {
      pods.push_back(config_.node_cache_capable ? json{{"UID", p->uid()}} : p->json());
    }
    per_node[node] = {{"Pods", std::move(pods)}, {"NumPDBViolations", v.pdb_violations}};
  }
  json args = {{"Pod", pod.json()}};
  args[config_.node_cache_capable ? "NodeNameToMetaVictims" : "NodeNameToVictims"] =
      std::move(per_node);
  const json result = send(config_.preempt_verb, args);
  std::map<std::string, ExtenderMetaVictims> kept;
  if (result.is_null()) return kept;
  if (!result.is_object()) {
    cannot_unmarshal(result, "Go value of type v1.ExtenderPreemptionResult");
  }
  const json* meta = member(result, "NodeNameToMetaVictims");
  if (meta == nullptr || meta->is_null()) return kept;
  if (!meta->is_object()) {
    cannot_unmarshal(*meta,
                     "Go struct field ExtenderPreemptionResult.NodeNameToMetaVictims of type "
                     "map[string]*v1.MetaVictims");
  }
  for (auto it = meta->begin(); it != meta->end(); ++it) {
    ExtenderMetaVictims& victims = kept[it.key()];
    if (!it->is_object()) continue;
    if (const json* n = member(*it, "NumPDBViolations"); n != nullptr && n->is_number_integer()) {
      victims.pdb_violations = n->get<std::int64_t>();
    }
    const json* pods = member(*it, "Pods");
    if (pods == nullptr || !pods->is_array()) continue;
    for (const json& p : *pods) {
      if (p.is_object()) victims.uids.push_back(read_string(p, "UID", "MetaPod.UID"));
    }
  }
  return kept;
}

}  // namespace schedhost::scheduler
