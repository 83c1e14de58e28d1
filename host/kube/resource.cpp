#include "kube/resource.hpp"

#include "kube/api_client.hpp"

namespace schedhost::kube {

std::string Resource::collection_path() const {
  std::string base = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  return base + "/" + resource;
}

std::string Resource::object_path(std::string_view namespace_name, std::string_view name) const {
  std::string base = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced) base += "/namespaces/" + url_escape(namespace_name);
  return base + "/" + resource + "/" + url_escape(name);
}

std::string Resource::display() const {
  return (group.empty() ? "" : group + "/") + version + "/" + resource;
}

std::string object_key(const nlohmann::json& object) {
  const auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  const std::string name = m->value("name", "");
  const std::string ns = m->value("namespace", "");
  return ns.empty() ? name : ns + "/" + name;
}

std::string resource_version_of(const nlohmann::json& object) {
  const auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  return m->value("resourceVersion", "");
}

}  // namespace schedhost::kube
