// Test helper: objects written as YAML, converted the way the cluster file loader does.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "cluster/yaml_to_json.hpp"

namespace schedhost::cluster::testing {

inline nlohmann::json yaml(const std::string& text) {
  return yaml_to_json(YAML::Load(text), "test.yaml");
}

}  // namespace schedhost::cluster::testing
