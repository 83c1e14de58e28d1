#include "validator/generated_cluster.hpp"

#include <string>

#include "cluster/cluster_file.hpp"

namespace schedhost::validator {
namespace {

std::string node(const std::string& name, const std::string& zone, const std::string& cpu,
                 const std::string& extra_labels, const std::string& spec) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  uid: uid-" + name +
         "\n  labels:\n    kubernetes.io/hostname: " + name +
         "\n    topology.kubernetes.io/zone: " + zone + "\n" + extra_labels + "spec:\n" + spec +
         "status:\n  allocatable: {cpu: \"" + cpu +
         "\", memory: 16Gi, pods: \"110\", nvidia.com/gpu: \"2\"}\n"
         "  images:\n  - names: [nginx:1.25]\n    sizeBytes: 60000000\n---\n";
}

std::string pod(const std::string& name, const std::string& labels, const std::string& spec) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\n  namespace: default\n  uid: uid-" + name + "\n  labels:\n    app: " + name + "\n" +
         labels + "spec:\n" + spec + "---\n";
}

const char* const kContainer = "  containers:\n  - name: c\n    image: nginx:1.25\n";

std::string requests(const std::string& cpu, const std::string& memory) {
  return "  containers:\n  - name: c\n    image: nginx:1.25\n    resources:\n      requests: "
         "{cpu: " +
         cpu + ", memory: " + memory + "}\n";
}

std::string cluster_text() {
  std::string t;
  t += node("node-a", "zone-a", "4", "    disk: ssd\n", "  {}\n");
  t += node("node-b", "zone-b", "8", "    gpu: nvidia\n",
            "  taints:\n  - {key: dedicated, value: gpu, effect: NoSchedule}\n");
  t += node("node-c", "zone-a", "2", "",
            "  taints:\n  - {key: maintenance, effect: PreferNoSchedule}\n");
  t += node("node-d", "zone-c", "16", "    disk: hdd\n", "  unschedulable: true\n");
  // Running pods, so nodes have requested resources and pods to add and remove.
  t += pod("running-1", "    tier: db\n", "  nodeName: node-a\n" + requests("1", "1Gi"));
  t += pod("running-2", "", "  nodeName: node-b\n  priority: 10\n" + requests("500m", "512Mi"));
  t += pod("running-3", "    tier: web\n", "  nodeName: node-c\n" + requests("1500m", "1Gi"));
  // Pending pods of several shapes.
  t += pod("plain", "", kContainer);
  t += pod("requests", "", "  priority: 100\n" + requests("2", "4Gi"));
  t += pod("huge", "", requests("64", "1Ti"));
  t += pod("selector", "", std::string("  nodeSelector: {disk: ssd}\n") + kContainer);
  t += pod("tolerates", "",
           std::string("  tolerations:\n  - {key: dedicated, operator: Equal, value: gpu, "
                       "effect: NoSchedule}\n  - {operator: Exists, effect: PreferNoSchedule}\n") +
               kContainer);
  t += pod("affinity", "",
           std::string("  affinity:\n    nodeAffinity:\n"
                       "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                       "        nodeSelectorTerms:\n        - matchExpressions:\n"
                       "          - {key: topology.kubernetes.io/zone, operator: In, values: "
                       "[zone-a, zone-b]}\n"
                       "      preferredDuringSchedulingIgnoredDuringExecution:\n"
                       "      - weight: 10\n        preference:\n          matchExpressions:\n"
                       "          - {key: disk, operator: Exists}\n") +
               kContainer);
  t += pod("anti-affinity", "    tier: web\n",
           std::string("  affinity:\n    podAntiAffinity:\n"
                       "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                       "      - labelSelector: {matchLabels: {tier: web}}\n"
                       "        topologyKey: topology.kubernetes.io/zone\n") +
               kContainer);
  t += pod("ports", "",
           "  priority: -5\n  containers:\n  - name: c\n    image: busybox\n    ports:\n"
           "    - {containerPort: 80, hostPort: 8080}\n    resources:\n"
           "      requests: {nvidia.com/gpu: \"1\"}\n      limits: {nvidia.com/gpu: \"1\"}\n");
  return t;
}

}  // namespace

cluster::Cluster generated_cluster() {
  return cluster::parse_cluster_text(cluster_text(), "generated-cluster.yaml");
}

}  // namespace schedhost::validator
