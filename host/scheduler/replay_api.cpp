#include "scheduler/replay_api.hpp"

#include <schedhost/detail/object_writes.hpp>
#include <schedhost/k8s/label_selector_text.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "cluster/object_error.hpp"
#include "cluster/object_kinds.hpp"

namespace schedhost::scheduler {
namespace {

// The declared kind a request's target names, or nullptr.
const cluster::ObjectKind* declared_kind(const object_writes::Target& t) {
  for (const cluster::ObjectKind* kind : cluster::all_object_kinds()) {
    if (kind->declared && kind->group == t.group && kind->preferred_version() == t.version &&
        kind->plural == t.plural) {
      return kind;
    }
  }
  return nullptr;
}

std::string now_rfc3339() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

std::optional<framework::ApiAccess::Reply> ReplayApi::request(std::string_view verb,
                                                              std::string_view path,
                                                              std::string_view content_type,
                                                              std::string_view body) {
  const std::optional<object_writes::Target> target = object_writes::parse_path(path);
  if (!target) return std::nullopt;
  const cluster::ObjectKind* kind = declared_kind(*target);
  if (kind == nullptr) return std::nullopt;
  const object_writes::Resource resource{
      std::string(kind->group), std::string(kind->preferred_version()), std::string(kind->plural),
      std::string(kind->kind), kind->namespaced};
  const std::string_view name = kind->resource;
  object_writes::Store store;
  store.find = [&](std::string_view ns, std::string_view object) -> const nlohmann::json* {
    const cluster::ApiObject* o = snapshot_.find_object(name, ns, object);
    return o == nullptr ? nullptr : &o->json();
  };
  store.list = [&](std::string_view ns, const k8s::LabelSelectorText& selector,
                   std::vector<const nlohmann::json*>& out) {
    for (const auto& o : snapshot_.objects(name, ns)) {
      const cluster::StringMap& labels = o->labels();
      const auto label = [&](std::string_view key) -> std::optional<std::string_view> {
        const std::string* value = labels.find(key);
        if (value == nullptr) return std::nullopt;
        return std::string_view(*value);
      };
      if (selector.matches(label)) out.push_back(&o->json());
    }
  };
  store.put = [&](nlohmann::json object) { put(*kind, std::move(object)); };
  store.remove = [&](std::string_view ns, std::string_view object) { remove(*kind, ns, object); };
  const auto next_version = [this] { return std::to_string(++version_); };
  const auto next_uid = [this] {
    char uid[40];
    std::snprintf(uid, sizeof uid, "00000000-0000-4000-8000-%012llx",
                  static_cast<unsigned long long>(++version_));
    return std::string(uid);
  };
  try {
    object_writes::Reply reply = object_writes::apply(store, resource, *target, verb, content_type,
                                                      body, next_version, next_uid, now_rfc3339());
    return Reply{reply.status, reply.body.dump()};
  } catch (const cluster::ObjectError& e) {  // the object written has a field of the wrong shape
    const object_writes::Reply invalid = object_writes::status(
        422, "Invalid",
        std::string(kind->kind) + " \"" + target->name + "\" is invalid: " + e.what());
    return Reply{invalid.status, invalid.body.dump()};
  }
}

std::vector<WrittenObject> ReplayApi::written() const {
  std::vector<WrittenObject> out;
  for (const auto& [resource, key] : touched_) {
    const std::size_t slash = key.find('/');
    const std::string ns = slash == std::string::npos ? "" : key.substr(0, slash);
    const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
    const cluster::ApiObject* o = snapshot_.find_object(resource, ns, name);
    out.push_back({resource, key, o == nullptr ? nlohmann::json() : o->json()});
  }
  return out;
}

void ReplayApi::put(const cluster::ObjectKind& kind, nlohmann::json object) {
  auto built = std::make_shared<const cluster::ApiObject>(kind, std::move(object));
  touched_.emplace(std::string(kind.resource), built->key());
  const auto current = snapshot_.objects(kind.resource);
  std::vector<std::shared_ptr<const cluster::ApiObject>> next(current.begin(), current.end());
  const auto same = std::find_if(next.begin(), next.end(),
                                 [&](const auto& o) { return o->key() == built->key(); });
  if (same != next.end()) {
    retired_.push_back(*same);
    *same = std::move(built);
  } else {
    next.push_back(std::move(built));
  }
  snapshot_.set_objects(kind, std::move(next));
}

void ReplayApi::remove(const cluster::ObjectKind& kind, std::string_view ns,
                       std::string_view name) {
  touched_.emplace(std::string(kind.resource),
                   kind.namespaced ? std::string(ns) + "/" + std::string(name) : std::string(name));
  const auto current = snapshot_.objects(kind.resource);
  std::vector<std::shared_ptr<const cluster::ApiObject>> next;
  for (const auto& o : current) {
    if (o->namespace_name() == ns && o->name() == name) {
      retired_.push_back(o);
    } else {
      next.push_back(o);
    }
  }
  snapshot_.set_objects(kind, std::move(next));
}

}  // namespace schedhost::scheduler
