// Top-level KubeSchedulerConfiguration fields that upstream has and schedhost does not act on
// (leader election, client connection, profiling switches, extenders, ...). A config written for
// kube-scheduler must load unchanged, so they are accepted, checked as strictly as upstream decodes
// them (known keys, right types) and kept as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "config/yaml_field_reader.hpp"

namespace schedhost::config {

// The field names, for the parser's list of known top-level fields.
std::span<const std::string_view> upstream_only_field_names();

bool is_upstream_only_field(std::string_view name);

// The field's value as JSON; throws InputError on an unknown key or a wrong type inside it.
nlohmann::json read_upstream_only_field(const YamlFieldReader& reader, const YamlField& field);

}  // namespace schedhost::config
