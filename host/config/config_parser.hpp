// Reading a KubeSchedulerConfiguration file, strictly: an unknown field, a value of the wrong type,
// a wrong apiVersion or kind, or broken YAML is an InputError naming file:line:column, the object,
// the problem and the fix. Top-level defaults are applied; plugins are merged and checked against
// the installed plugins later, by resolve_profiles().
#pragma once

#include <filesystem>
#include <string_view>

#include "config/scheduler_configuration.hpp"

namespace schedhost::config {

inline constexpr std::string_view kApiVersionV1beta3 = "kubescheduler.config.k8s.io/v1beta3";
inline constexpr std::string_view kApiVersionV1 = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kConfigurationKind = "KubeSchedulerConfiguration";

// `file_name` is only used in messages and kept in SchedulerConfiguration::file.
SchedulerConfiguration parse_configuration(std::string_view text, std::string_view file_name);

// Reads the file and parses it; a file that cannot be read is an InputError too.
SchedulerConfiguration load_configuration(const std::filesystem::path& path);

}  // namespace schedhost::config
