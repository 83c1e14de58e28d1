// Small cluster-file documents for tests: a node with room, a pending pod.
#pragma once

#include <string>

namespace schedhost::testing {

// A Node with 4 CPUs, 8Gi and 110 pods allocatable.
inline std::string node_yaml(const std::string& name) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n---\n";
}

// A pending pod; extra is YAML appended under metadata (labels, annotations) and spec.
inline std::string pod_yaml(const std::string& name, const std::string& metadata_extra = "",
                            const std::string& spec_extra = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n" +
         metadata_extra + "spec:\n  containers: [{name: c, image: busybox}]\n" + spec_extra +
         "---\n";
}

}  // namespace schedhost::testing
