#include "config/extender_config.hpp"

#include <array>
#include <set>

#include "common/go_duration.hpp"
#include "kube/kubeconfig.hpp"
#include "node_resources_fit/resource_names.hpp"

namespace schedhost::config {
namespace {

constexpr std::array<std::string_view, 12> kExtenderFields = {
    "urlPrefix",   "filterVerb",       "preemptVerb",      "prioritizeVerb",
    "weight",      "bindVerb",         "enableHTTPS",      "tlsConfig",
    "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable"};
constexpr std::array<std::string_view, 8> kTlsFields = {
    "insecure", "serverName", "certFile", "keyFile", "caFile", "certData", "keyData", "caData"};
constexpr std::array<std::string_view, 2> kManagedResourceFields = {"name", "ignoredByScheduler"};

std::string go_quote(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// A []byte field: base64 in the file, as upstream's JSON decoding reads it.
std::string read_bytes(const YamlFieldReader& reader, const YamlField& field,
                       const std::string& path) {
  const std::string text = reader.read_string(field.value, path);
  std::optional<std::string> bytes = kube::decode_base64(text);
  if (!bytes) {
    reader.fail(reader.location(field), path + " is not base64: encode the PEM (base64 -w0 file)");
  }
  return *bytes;
}

ExtenderTls read_tls(const YamlFieldReader& reader, const YAML::Node& node,
                     const std::string& path) {
  ExtenderTls tls;
  for (const YamlField& f : reader.fields(node, path, kTlsFields)) {
    if (f.is_null()) continue;
    const std::string at = path + "." + f.name;
    if (f.name == "insecure") tls.insecure = reader.read_bool(f.value, at);
    if (f.name == "serverName") tls.server_name = reader.read_string(f.value, at);
    if (f.name == "certFile") tls.cert_file = reader.read_string(f.value, at);
    if (f.name == "keyFile") tls.key_file = reader.read_string(f.value, at);
    if (f.name == "caFile") tls.ca_file = reader.read_string(f.value, at);
    if (f.name == "certData") tls.cert_pem = read_bytes(reader, f, at);
    if (f.name == "keyData") tls.key_pem = read_bytes(reader, f, at);
    if (f.name == "caData") tls.ca_pem = read_bytes(reader, f, at);
  }
  return tls;
}

// managedResources[j].name: an extended resource name, once across every extender.
void check_managed_resource(const SourceLocation& at, const std::string& path,
                            const std::string& name, std::set<std::string>& seen) {
  namespace names = schedhost_noderesources;
  const std::string field = path + ".name: Invalid value: " + go_quote(name) + ": ";
  const std::string fix = ": name a resource of the form example.com/device";
  if (const std::vector<std::string> errors = names::qualified_name_errors(name); !errors.empty())
    fail_at(at, field + errors.front() + fix);
  if (!names::is_extended_resource_name(name))
    fail_at(at, field + "is an invalid extended resource name" + fix);
  if (!seen.insert(name).second) {
    fail_at(at, field +
                    "duplicate extender managed resource name: list each resource under one "
                    "extender only");
  }
}

ExtenderConfig read_extender(const YamlFieldReader& reader, const YAML::Node& node,
                             const std::string& path, std::set<std::string>& managed) {
  ExtenderConfig e;
  e.location = reader.location(node);
  SourceLocation weight_at = e.location;
  for (const YamlField& f : reader.fields(node, path, kExtenderFields)) {
    if (f.is_null()) continue;
    const std::string at = path + "." + f.name;
    if (f.name == "urlPrefix") e.url_prefix = reader.read_string(f.value, at);
    if (f.name == "filterVerb") e.filter_verb = reader.read_string(f.value, at);
    if (f.name == "preemptVerb") e.preempt_verb = reader.read_string(f.value, at);
    if (f.name == "prioritizeVerb") e.prioritize_verb = reader.read_string(f.value, at);
    if (f.name == "bindVerb") e.bind_verb = reader.read_string(f.value, at);
    if (f.name == "enableHTTPS") e.enable_https = reader.read_bool(f.value, at);
    if (f.name == "nodeCacheCapable") e.node_cache_capable = reader.read_bool(f.value, at);
    if (f.name == "ignorable") e.ignorable = reader.read_bool(f.value, at);
    if (f.name == "tlsConfig") e.tls = read_tls(reader, f.value, at);
    if (f.name == "weight") {
      e.weight = reader.read_integer(f.value, at, INT64_MIN, INT64_MAX);
      weight_at = reader.location(f);
    }
    if (f.name == "httpTimeout") {
      const std::string text = reader.read_string(f.value, at);
      const auto d = parse_go_duration(text);
      if (!d || d->count() < 0) {
        reader.fail(reader.location(f), at + ": time: invalid duration " + go_quote(text) +
                                            ": write a duration such as 5s or 500ms");
      }
      // 0 means the default, as upstream's NewHTTPExtender reads it.
      if (d->count() > 0)
        e.http_timeout = std::max(std::chrono::milliseconds(1),
                                  std::chrono::duration_cast<std::chrono::milliseconds>(*d));
    }
    if (f.name == "managedResources") {
      reader.expect_list(f.value, at);
      std::size_t j = 0;
      for (const YAML::Node& item : f.value) {
        const std::string item_path = at + "[" + std::to_string(j++) + "]";
        ExtenderManagedResource r;
        SourceLocation name_at = reader.location(item);
        for (const YamlField& rf : reader.fields(item, item_path, kManagedResourceFields)) {
          if (rf.is_null()) continue;
          if (rf.name == "name") {
            r.name = reader.read_string(rf.value, item_path + ".name");
            name_at = reader.location(rf);
          } else {
            r.ignored_by_scheduler = reader.read_bool(rf.value, item_path + ".ignoredByScheduler");
          }
        }
        check_managed_resource(name_at, item_path, r.name, managed);
        e.managed_resources.push_back(std::move(r));
      }
    }
  }
  if (e.url_prefix.empty()) {
    fail_at(e.location, path +
                            " has no urlPrefix: set the extender's base URL, e.g. "
                            "http://127.0.0.1:8888/scheduler (verbs are appended to it)");
  }
  if (!e.prioritize_verb.empty() && e.weight <= 0) {
    fail_at(weight_at, path + ".weight: Invalid value: " + std::to_string(e.weight) +
                           ": must have a positive weight applied to it: set a weight of 1 or "
                           "more (its 0-10 scores are multiplied by weight x 10)");
  }
  return e;
}

}  // namespace

std::vector<ExtenderConfig> read_extenders(const YamlFieldReader& reader, const YAML::Node& list) {
  reader.expect_list(list, "extenders");
  std::vector<ExtenderConfig> extenders;
  std::set<std::string> managed;
  std::size_t i = 0;
  for (const YAML::Node& item : list) {
    const std::string path = "extenders[" + std::to_string(i++) + "]";
    extenders.push_back(read_extender(reader, item, path, managed));
  }
  std::vector<const ExtenderConfig*> binders;
  for (const ExtenderConfig& e : extenders) {
    if (!e.bind_verb.empty()) binders.push_back(&e);
  }
  if (binders.size() > 1) {
    fail_at(binders[1]->location,
            "extenders: Invalid value: \"found " + std::to_string(binders.size()) +
                " extenders implementing bind\": only one extender can implement bind: keep "
                "bindVerb on one extender");
  }
  return extenders;
}

}  // namespace schedhost::config
