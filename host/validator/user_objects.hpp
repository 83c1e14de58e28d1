// The author's own objects for `schedhost validate --plugin FILE.so --cluster C --pod P`: checked
// after the generated cluster, so that a plugin that fails only on the author's nodes or pods
// (an annotation the generated pods do not have) fails validation.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster.hpp"

namespace schedhost::validator {

struct UserObjects {
  // Nodes and running pods of cluster_file (the generated ones without it); as pending pods,
  // those of cluster_file then every Pod of the pod files, in file order (the generated pending
  // pods when there are none).
  cluster::Cluster cluster;
  std::string label;  // the files' names, "my-cluster.yaml, pods.yaml": how checks name them
};

// Reads them as `run` reads a cluster. A pod file holds one or more Pods and nothing else
// (multi-document YAML, or a List); its pods must not have spec.nodeName. Throws InputError
// "file[:line:column]: ...".
UserObjects read_user_objects(const std::string& cluster_file,
                              const std::vector<std::string>& pod_files);

}  // namespace schedhost::validator
