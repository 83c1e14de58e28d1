// Feeding hostile text to the profile and cluster parsers and capturing their one-line refusal.
#pragma once

#include <string>

#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "config/config_parser.hpp"

namespace schedhost::hostile {

inline constexpr const char* kAccepted = "<accepted>";

// The InputError a cluster file named `name` raises, or kAccepted.
inline std::string cluster_error(const std::string& text,
                                 const std::string& name = "cluster.yaml") {
  try {
    cluster::parse_cluster_text(text, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return kAccepted;
}

// The InputError a profile raises, or kAccepted.
inline std::string profile_error(const std::string& text,
                                 const std::string& name = "profile.yaml") {
  try {
    config::parse_configuration(text, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return kAccepted;
}

inline const std::string kProfileHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

// A profile whose NodeResourcesFit args are `args` (YAML flow or block text after "args: ").
inline std::string profile_with_args(const std::string& args) {
  return kProfileHeader +
         "profiles:\n- schedulerName: s\n  pluginConfig:\n  - name: NodeResourcesFit\n    args: " +
         args + "\n";
}

}  // namespace schedhost::hostile
