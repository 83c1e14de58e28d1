// Writes a cluster as a multi-document YAML file, in the block style `kubectl get -o yaml`
// prints, so `schedhost run` on it pays the parsing a user's file costs.
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedhost_bench {

void write_cluster_yaml(const std::filesystem::path& path,
                        const std::vector<const nlohmann::json*>& objects);

}  // namespace schedhost_bench
