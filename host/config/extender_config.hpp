// The configuration's `extenders:` (upstream's v1 Extender): HTTP services the scheduling cycle
// calls after the plugins' Filter and Score, and for binding and preemption
// (scheduler/http_extender.hpp). Read and checked as upstream validates them, with file:line:col.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/source_location.hpp"
#include "config/yaml_field_reader.hpp"

namespace schedhost::config {

struct ExtenderTls {
  bool insecure = false;
  std::string server_name;
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
  std::string cert_pem;  // certData, key_data, caData: decoded from the base64 the file holds
  std::string key_pem;
  std::string ca_pem;
};

struct ExtenderManagedResource {
  std::string name;
  bool ignored_by_scheduler = false;
};

struct ExtenderConfig {
  std::string url_prefix;
  std::string filter_verb;
  std::string preempt_verb;
  std::string prioritize_verb;
  std::string bind_verb;
  std::int64_t weight = 0;
  bool enable_https = false;
  std::optional<ExtenderTls> tls;
  std::chrono::milliseconds http_timeout{5000};  // upstream's DefaultExtenderTimeout
  bool node_cache_capable = false;
  std::vector<ExtenderManagedResource> managed_resources;
  bool ignorable = false;
  SourceLocation location;  // the list item
};

// The `extenders` list (its shape already checked as JSON); throws InputError at the first field
// upstream's validation refuses, or a urlPrefix missing, a bad httpTimeout or *Data not base64.
std::vector<ExtenderConfig> read_extenders(const YamlFieldReader& reader, const YAML::Node& list);

}  // namespace schedhost::config
