#include "validator/user_objects.hpp"

#include <filesystem>

#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "validator/generated_cluster.hpp"

namespace schedhost::validator {

UserObjects read_user_objects(const std::string& cluster_file,
                              const std::vector<std::string>& pod_files) {
  UserObjects out;
  out.cluster = cluster_file.empty() ? generated_cluster() : cluster::load_cluster(cluster_file);
  std::vector<std::shared_ptr<const cluster::Pod>> pending;
  if (!cluster_file.empty()) {
    out.label = std::filesystem::path(cluster_file).filename().string();
    pending = out.cluster.pending_pods;
  }
  for (const std::string& file : pod_files) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
      throw InputError(file + ": is a directory, not a pod file: pass a YAML or JSON file of Pods");
    }
    const cluster::Cluster pods = cluster::load_cluster(file);
    if (!pods.nodes.empty()) {
      throw InputError(file + ": node \"" + pods.nodes.front()->name() +
                       "\" in a pod file: put nodes in --cluster, pods in --pod");
    }
    if (pods.pending_pods.empty()) {
      throw InputError(file +
                       ": no Pod in the file: write one or more Pods (without spec.nodeName)");
    }
    pending.insert(pending.end(), pods.pending_pods.begin(), pods.pending_pods.end());
    out.label += (out.label.empty() ? "" : ", ") + std::filesystem::path(file).filename().string();
  }
  if (pending.empty()) pending = generated_cluster().pending_pods;
  out.cluster.pending_pods = std::move(pending);
  return out;
}

}  // namespace schedhost::validator
