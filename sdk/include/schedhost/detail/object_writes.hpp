// schedhost/detail/object_writes.hpp - how `schedhost run` (and the SDK's fake host) answer a
// plugin's api_request on a resource it declared (ABI 1.9) without an API server: the request is
// applied to the in-memory objects as the API server applies it to a custom resource with a
// status subresource, so that a replay shows the effect of a plugin's writes. One implementation,
// shared by the host and the fake host; header-only, no dependency beyond nlohmann/json.
//
// Served: GET (an object, or a collection, with ?labelSelector=), POST (create), PUT and PATCH
// (merge patch, JSON patch) of an object or its /status, DELETE. As the API server does for a
// custom resource: writes to the object keep its status and writes to /status keep the rest; a
// resourceVersion a write carries must be the current one (409 otherwise); metadata.generation
// counts changes outside metadata and status; strategic merge and apply patches are refused (415).
// Answers are the API server's: the object, a List, or a Status with its code, reason and
// message.
#pragma once

#include <nlohmann/json.hpp>
#include <schedhost/k8s/label_selector_text.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::object_writes {

// Where a request goes: a declared resource's collection, one object, or its /status.
struct Target {
  std::string group;  // "" for the core group
  std::string version;
  std::string plural;
  std::string ns;              // "" without /namespaces/<ns>
  std::string name;            // "" for the collection
  std::string subresource;     // "" or "status" (anything else is answered 404)
  std::string label_selector;  // the collection's ?labelSelector=, decoded
};

// The objects of one declared resource, as the caller keeps them. list() adds to out the objects
// of namespace ns ("" for all) that the selector matches (apply() has parsed it).
struct Store {
  std::function<const nlohmann::json*(std::string_view ns, std::string_view name)> find;
  std::function<void(std::string_view ns, const k8s::LabelSelectorText& selector,
                     std::vector<const nlohmann::json*>& out)>
      list;
  std::function<void(nlohmann::json object)> put;  // adds or replaces (by namespace and name)
  std::function<void(std::string_view ns, std::string_view name)> remove;
};

// The resource a Target is on: what the caller matched it to.
struct Resource {
  std::string group, version, plural, kind;
  bool namespaced = true;
};

struct Reply {
  std::int32_t status = 200;
  nlohmann::json body;
};

namespace detail {

inline std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto hex = [](char c) {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

inline std::vector<std::string_view> split(std::string_view s, char by) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(by, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

}  // namespace detail

// The target of an API path, or nullopt when it names no resource collection, object or
// subresource ("/api/v1/namespaces/ns/pods/p/status", "/apis/g/v1/things?labelSelector=a%3Db").
inline std::optional<Target> parse_path(std::string_view path) {
  Target t;
  std::string_view query;
  if (const std::size_t q = path.find('?'); q != std::string_view::npos) {
    query = path.substr(q + 1);
    path = path.substr(0, q);
  }
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::vector<std::string_view> parts = detail::split(path.substr(1), '/');
  if (!parts.empty() && parts.back().empty()) parts.pop_back();  // a trailing slash
  std::size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    t.version = std::string(parts[1]);
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    t.group = std::string(parts[1]);
    t.version = std::string(parts[2]);
    i = 3;
  } else {
    return std::nullopt;
  }
  if (parts.size() >= i + 3 && parts[i] == "namespaces") {
    t.ns = std::string(parts[i + 1]);
    i += 2;
  }
  if (parts.size() < i + 1 || parts.size() > i + 3) return std::nullopt;
  t.plural = std::string(parts[i]);
  if (parts.size() >= i + 2) t.name = std::string(parts[i + 1]);
  if (parts.size() == i + 3) t.subresource = std::string(parts[i + 2]);
  for (std::string_view p : parts) {
    if (p.empty()) return std::nullopt;
  }
  for (std::string_view pair : detail::split(query, '&')) {
    constexpr std::string_view kKey = "labelSelector=";
    if (pair.substr(0, kKey.size()) == kKey) {
      t.label_selector = detail::percent_decode(pair.substr(kKey.size()));
    }
  }
  return t;
}

// A Status answer, as the API server writes one.
inline Reply status(std::int32_t code, std::string_view reason, std::string message,
                    const Resource* resource = nullptr, std::string_view name = {}) {
  nlohmann::json body = {{"kind", "Status"},
                         {"apiVersion", "v1"},
                         {"metadata", nlohmann::json::object()},
                         {"status", code < 300 ? "Success" : "Failure"},
                         {"message", std::move(message)},
                         {"reason", reason},
                         {"code", code}};
  if (resource != nullptr) {
    body["details"] = {{"name", name}, {"group", resource->group}, {"kind", resource->plural}};
  }
  return {code, std::move(body)};
}

// "podgroups.scheduling.x-k8s.io \"gang\"", as the API server names an object in messages.
inline std::string qualified(const Resource& r, std::string_view name) {
  return r.plural + (r.group.empty() ? "" : "." + r.group) + " \"" + std::string(name) + "\"";
}

// Applies one request to the store. next_version gives each write its resourceVersion (and the
// uid of a created object, next_uid): counters the caller keeps. now is the creationTimestamp
// of a created object (RFC 3339).
inline Reply apply(Store& store, const Resource& resource, const Target& target,
                   std::string_view verb, std::string_view content_type, std::string_view body,
                   const std::function<std::string()>& next_version,
                   const std::function<std::string()>& next_uid, const std::string& now) {
  if (resource.namespaced == target.ns.empty() && !target.name.empty()) {
    return status(404, "NotFound", "the server could not find the requested resource");
  }
  if (!target.subresource.empty() && target.subresource != "status") {
    return status(404, "NotFound", "the server could not find the requested resource");
  }
  const std::string api_version =
      resource.group.empty() ? resource.version : resource.group + "/" + resource.version;
  const auto parse_body = [&](nlohmann::json& out) -> std::optional<Reply> {
    out = nlohmann::json::parse(body, nullptr, false);
    if (out.is_discarded() || !out.is_object()) {
      return status(400, "BadRequest", "the body of the request is not a JSON object");
    }
    return std::nullopt;
  };
  const auto not_found = [&]() {
    return status(404, "NotFound", qualified(resource, target.name) + " not found", &resource,
                  target.name);
  };
  const auto conflict = [&]() {
    return status(409, "Conflict",
                  "Operation cannot be fulfilled on " + qualified(resource, target.name) +
                      ": the object has been modified; please apply your changes to the latest "
                      "version and try again",
                  &resource, target.name);
  };
  // Everything but metadata and status, to tell when the generation moves.
  const auto spec_of = [](nlohmann::json o) {
    o.erase("metadata");
    o.erase("status");
    return o;
  };

  if (verb == "GET") {
    if (target.name.empty()) {
      std::optional<k8s::LabelSelectorText> selector;
      try {
        selector = k8s::LabelSelectorText::parse(target.label_selector);
      } catch (const std::invalid_argument& e) {
        return status(400, "BadRequest", std::string("unable to parse requirement: ") + e.what());
      }
      std::vector<const nlohmann::json*> found;
      store.list(target.ns, *selector, found);
      nlohmann::json items = nlohmann::json::array();
      for (const nlohmann::json* o : found)
        items.push_back(*o);
      return {200,
              {{"apiVersion", api_version},
               {"kind", resource.kind + "List"},
               {"metadata", {{"resourceVersion", next_version()}}},
               {"items", std::move(items)}}};
    }
    const nlohmann::json* o = store.find(target.ns, target.name);
    if (o == nullptr) return not_found();
    return {200, *o};
  }

  if (verb == "POST") {
    if (!target.name.empty() || !target.subresource.empty()) {
      return status(405, "MethodNotAllowed", "POST is for the collection of " + resource.plural);
    }
    nlohmann::json object;
    if (auto bad = parse_body(object)) return *bad;
    nlohmann::json& meta = object["metadata"];
    if (!meta.is_object()) meta = nlohmann::json::object();
    std::string name = meta.value("name", "");
    if (name.empty() && meta.contains("generateName") && meta["generateName"].is_string()) {
      const std::string uid = next_uid();
      name = meta["generateName"].get<std::string>() + uid.substr(uid.size() - 5);
    }
    if (name.empty()) {
      return status(422, "Invalid",
                    resource.kind + " \"\" is invalid: metadata.name: Required value");
    }
    if (resource.namespaced) {
      const std::string given = meta.value("namespace", "");
      if (!given.empty() && given != target.ns) {
        return status(400, "BadRequest",
                      "the namespace of the provided object does not match the namespace sent on "
                      "the request");
      }
      meta["namespace"] = target.ns;
    } else {
      meta.erase("namespace");
    }
    if (store.find(target.ns, name) != nullptr) {
      return status(409, "AlreadyExists", qualified(resource, name) + " already exists", &resource,
                    name);
    }
    meta["name"] = name;
    meta["uid"] = next_uid();
    meta["resourceVersion"] = next_version();
    meta["generation"] = 1;
    meta["creationTimestamp"] = now;
    object["apiVersion"] = api_version;
    object["kind"] = resource.kind;
    store.put(object);
    return {201, std::move(object)};
  }

  if (target.name.empty()) {
    return status(405, "MethodNotAllowed",
                  std::string(verb) + " is for one object of " + resource.plural);
  }
  const nlohmann::json* current = store.find(target.ns, target.name);
  if (current == nullptr) return not_found();
  const bool on_status = target.subresource == "status";

  if (verb == "DELETE") {
    store.remove(target.ns, target.name);
    return status(200, "", "", &resource, target.name);
  }

  nlohmann::json updated;
  if (verb == "PUT") {
    if (auto bad = parse_body(updated)) return *bad;
  } else if (verb == "PATCH") {
    const std::string_view type = content_type.substr(0, content_type.find(';'));
    nlohmann::json patch;
    if (type == "application/merge-patch+json") {
      if (auto bad = parse_body(patch)) return *bad;
      updated = *current;
      updated.merge_patch(patch);
    } else if (type == "application/json-patch+json") {
      patch = nlohmann::json::parse(body, nullptr, false);
      if (patch.is_discarded() || !patch.is_array()) {
        return status(400, "BadRequest", "the body of a JSON patch must be a JSON array");
      }
      try {
        updated = current->patch(patch);
      } catch (const nlohmann::json::exception& e) {
        return status(422, "Invalid", std::string("the JSON patch does not apply: ") + e.what());
      }
    } else {
      return status(415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types "
                    "include: application/json-patch+json, application/merge-patch+json");
    }
  } else {
    return status(405, "MethodNotAllowed", "verb " + std::string(verb) + " is not supported");
  }
  if (!updated.is_object()) {
    return status(422, "Invalid", "the object is no longer a JSON object after the write");
  }
  // The resourceVersion the write carries is a precondition: it must be the current one (a
  // patch that does not set it carries the current one). A custom resource takes no PUT
  // without one.
  const nlohmann::json& old_meta = (*current)["metadata"];
  const nlohmann::json* new_meta = updated.contains("metadata") ? &updated["metadata"] : nullptr;
  const nlohmann::json* carried =
      new_meta != nullptr && new_meta->is_object() && new_meta->contains("resourceVersion")
          ? &(*new_meta)["resourceVersion"]
          : nullptr;
  const bool has_version =
      carried != nullptr && carried->is_string() && !carried->get<std::string>().empty();
  if (verb == "PUT" && !has_version) {
    return status(422, "Invalid",
                  resource.kind + " \"" + target.name +
                      "\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be "
                      "specified for an update",
                  &resource, target.name);
  }
  if (has_version && *carried != old_meta.value("resourceVersion", nlohmann::json(""))) {
    return conflict();
  }
  nlohmann::json next = updated;
  if (on_status) {
    next = *current;  // only the status moves
    if (updated.contains("status")) {
      next["status"] = updated["status"];
    } else {
      next.erase("status");
    }
  } else {
    if (current->contains("status")) {
      next["status"] = (*current)["status"];  // the status subresource keeps it
    } else {
      next.erase("status");
    }
    if (!next["metadata"].is_object()) next["metadata"] = nlohmann::json::object();
  }
  nlohmann::json& meta = next["metadata"];
  for (const char* kept : {"name", "namespace", "uid", "creationTimestamp", "generation"}) {
    if (old_meta.contains(kept)) {
      meta[kept] = old_meta[kept];
    } else {
      meta.erase(kept);
    }
  }
  next["apiVersion"] = api_version;
  next["kind"] = resource.kind;
  if (!on_status && spec_of(next) != spec_of(*current)) {
    meta["generation"] = old_meta.value("generation", std::int64_t{0}) + 1;
  }
  meta["resourceVersion"] = next_version();
  store.put(next);
  return {200, std::move(next)};
}

}  // namespace schedhost::object_writes
