// The volume plugins (issue 19) through `schedhost exercise -o json`, as a user checks one plugin
// on one case: a table per plugin, in the manner of upstream's plugin tests, with every reason
// string and status code each one gives on a pod's volumes (the fake-host tables in
// tests/volume_*/ and tests/node_volume_limits/ go hook by hook; these go through the command,
// the cluster file and the built-in .so files). Two nodes, node-a in zone-a and node-b in zone-b;
// each case adds its volumes, claims and running pods.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::testing {
namespace {

using Json = nlohmann::json;

// ---- the cluster file's objects, as YAML documents ----

std::string node(const std::string& name, const std::string& zone) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {kubernetes.io/hostname: " + name + ", topology.kubernetes.io/zone: " + zone +
         "}}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n---\n";
}

const std::string kNodes = node("node-a", "zone-a") + node("node-b", "zone-b");

// A PersistentVolume of 10Gi with the given extra spec fields (a source at least) and labels.
std::string pv(const std::string& name, const std::string& spec, const std::string& labels = "{}",
               const std::string& phase = "Bound") {
  return "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: " + name +
         ", labels: " + labels + "}\nspec: {capacity: {storage: 10Gi}, " + spec +
         "}\nstatus: {phase: " + phase + "}\n---\n";
}

// A claim in default of 10Gi; bound to `volume` (fully: the PV controller's annotation) unless
// it is "".
std::string pvc(const std::string& name, const std::string& volume,
                const std::string& class_name = "local", const std::string& mode = "ReadWriteOnce",
                const std::string& extra_metadata = "") {
  const std::string bound =
      volume.empty() ? "" : ", annotations: {pv.kubernetes.io/bind-completed: 'yes'}";
  return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " + name +
         ", namespace: default" + bound + extra_metadata + "}\nspec: {accessModes: [" + mode +
         "], resources: {requests: {storage: 10Gi}}, storageClassName: '" + class_name + "'" +
         (volume.empty() ? "" : ", volumeName: " + volume) + "}\n---\n";
}

std::string storage_class(const std::string& name, const std::string& mode,
                          const std::string& provisioner = "kubernetes.io/no-provisioner") {
  return "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: " + name +
         "}\nprovisioner: " + provisioner + "\nvolumeBindingMode: " + mode + "\n---\n";
}

std::string csi_node(const std::string& node_name, const std::string& driver, int count) {
  return "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: " + node_name +
         "}\nspec: {drivers: [{name: " + driver + ", nodeID: " + node_name +
         ", allocatable: {count: " + std::to_string(count) + "}}]}\n---\n";
}

// A pod in default with one pause container and these volumes (a YAML flow list).
std::string pod(const std::string& name, const std::string& volumes,
                const std::string& node_name = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default}\nspec:\n" +
         (node_name.empty() ? "" : "  nodeName: " + node_name + "\n") +
         "  containers: [{name: c, image: registry.k8s.io/pause:3.10}]\n  volumes: " + volumes +
         "\n---\n";
}

std::string claim_volume(const std::string& claim) {
  return "{name: data, persistentVolumeClaim: {claimName: " + claim + "}}";
}

std::string disk(const std::string& pd, bool read_only) {
  return "{name: disk, gcePersistentDisk: {pdName: " + pd +
         ", readOnly: " + (read_only ? "true" : "false") + "}}";
}

const std::string kCsi = "disk.csi.example.com";

// ---- the cases ----

struct Verdict {
  std::string code;
  std::vector<std::string> reasons;
};

struct Case {
  std::string name;
  std::string plugin;
  std::string cluster;  // after kNodes
  std::string pod_volumes;
  Verdict pre_filter;
  std::map<std::string, Verdict> filter = {};  // by node; empty: not checked (PreFilter said no)
  std::vector<std::string> extra_args = {};
};

const Verdict kSuccess{"Success", {}};

Verdict verdict(const Json& hook) {
  Verdict v{hook.at("code").get<std::string>(), {}};
  for (const Json& r : hook.at("reasons"))
    v.reasons.push_back(r.get<std::string>());
  return v;
}

void expect_case(const Case& c) {
  SCOPED_TRACE(c.plugin + ": " + c.name);
  ScratchDir dir;
  std::vector<std::string> args = {"exercise",
                                   "--plugin",
                                   c.plugin,
                                   "--pod",
                                   dir.write("pod.yaml", pod("app", c.pod_volumes)),
                                   "--cluster",
                                   dir.write("cluster.yaml", kNodes + c.cluster),
                                   "-o",
                                   "json"};
  args.insert(args.end(), c.extra_args.begin(), c.extra_args.end());
  const ProcessResult r = run_schedhost(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // every object of the file is one the plugins read: no warning
  const Json out = Json::parse(r.out);
  const Verdict pre_filter = verdict(out.at("preFilter"));
  EXPECT_EQ(pre_filter.code, c.pre_filter.code) << r.out;
  EXPECT_EQ(pre_filter.reasons, c.pre_filter.reasons) << r.out;
  for (const auto& [node_name, expected] : c.filter) {
    const Verdict got = verdict(out.at("filter").at(node_name));
    EXPECT_EQ(got.code, expected.code) << node_name << "\n" << r.out;
    EXPECT_EQ(got.reasons, expected.reasons) << node_name << "\n" << r.out;
  }
}

TEST(VolumePluginsExercise, VolumeRestrictions) {
  const std::string rwop =
      pv("pv-once", "accessModes: [ReadWriteOncePod], hostPath: {path: /once}") +
      pvc("once", "pv-once", "local", "ReadWriteOncePod");
  const std::vector<Case> cases = {
      {"a GCE PD another pod on node-a writes",
       "VolumeRestrictions",
       pod("writer", "[" + disk("pd-1", false) + "]", "node-a"),
       "[" + disk("pd-1", false) + "]",
       kSuccess,
       {{"node-a", {"Unschedulable", {"node(s) had no available disk"}}}, {"node-b", kSuccess}}},
      {"the same disk, both read-only",
       "VolumeRestrictions",
       pod("reader", "[" + disk("pd-1", true) + "]", "node-a"),
       "[" + disk("pd-1", true) + "]",
       kSuccess,
       {{"node-a", kSuccess}, {"node-b", kSuccess}}},
      {"a ReadWriteOncePod claim in use on node-a: refused everywhere",
       "VolumeRestrictions",
       rwop + pod("holder", "[" + claim_volume("once") + "]", "node-a"),
       "[" + claim_volume("once") + "]",
       kSuccess,
       {{"node-a",
         {"Unschedulable",
          {"node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
           "already in-use by another pod"}}},
        {"node-b",
         {"Unschedulable",
          {"node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
           "already in-use by another pod"}}}}},
      // PreFilter skips the plugin: nothing on any node can conflict.
      {"a ReadWriteOncePod claim nobody uses", "VolumeRestrictions", rwop,
       "[" + claim_volume("once") + "]", Verdict{"Skip", {}}},
      {"a claim that does not exist", "VolumeRestrictions", "", "[" + claim_volume("nope") + "]",
       Verdict{"UnschedulableAndUnresolvable", {"persistentvolumeclaim \"nope\" not found"}}},
      {"no volume it judges", "VolumeRestrictions", "", "[{name: tmp, emptyDir: {}}]",
       Verdict{"Skip", {}}},
  };
  for (const Case& c : cases)
    expect_case(c);
}

TEST(VolumePluginsExercise, NodeVolumeLimits) {
  const std::string volumes =
      pv("pv-1", "accessModes: [ReadWriteOnce], csi: {driver: " + kCsi + ", volumeHandle: h1}") +
      pvc("one", "pv-1") +
      pv("pv-2", "accessModes: [ReadWriteOnce], csi: {driver: " + kCsi + ", volumeHandle: h2}") +
      pvc("two", "pv-2") + csi_node("node-a", kCsi, 1) +
      pod("attached", "[" + claim_volume("one") + "]", "node-a");
  const std::vector<Case> cases = {
      {"a second CSI volume on a node that attaches one",
       "NodeVolumeLimits",
       volumes,
       "[" + claim_volume("two") + "]",
       kSuccess,
       {{"node-a", {"Unschedulable", {"node(s) exceed max volume count"}}},
        {"node-b", kSuccess}}},  // no CSINode: no limit
      {"the volume already attached there counts once",
       "NodeVolumeLimits",
       volumes,
       "[" + claim_volume("one") + "]",
       kSuccess,
       {{"node-a", kSuccess}, {"node-b", kSuccess}}},
      {"a claim that does not exist",
       "NodeVolumeLimits",
       volumes,
       "[" + claim_volume("nope") + "]",
       kSuccess,
       {{"node-a",
         {"UnschedulableAndUnresolvable",
          {"looking up PVC default/nope: persistentvolumeclaim \"nope\" not found"}}}}},
      {"VolumeLimitScaling: a driver the CSIDriver names but node-b's CSINode lacks",
       "NodeVolumeLimits",
       volumes + "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: " + kCsi +
           "}\nspec: {attachRequired: true}\n---\n",
       "[" + claim_volume("two") + "]",
       kSuccess,
       {{"node-a", {"Unschedulable", {"node(s) exceed max volume count"}}},
        {"node-b", {"Unschedulable", {kCsi + " CSI driver is not installed on the node"}}}},
       {"--feature-gates", "VolumeLimitScaling=true"}},
      {"no volume it counts", "NodeVolumeLimits", "", "[{name: tmp, emptyDir: {}}]",
       Verdict{"Skip", {}}},
  };
  for (const Case& c : cases)
    expect_case(c);
}

TEST(VolumePluginsExercise, VolumeZone) {
  const std::string zoned = pv("pv-b", "accessModes: [ReadWriteOnce], hostPath: {path: /b}",
                               "{topology.kubernetes.io/zone: zone-b}") +
                            pvc("data", "pv-b");
  const std::vector<Case> cases = {
      {"a volume in zone-b",
       "VolumeZone",
       zoned,
       "[" + claim_volume("data") + "]",
       kSuccess,
       {{"node-a", {"UnschedulableAndUnresolvable", {"node(s) had no available volume zone"}}},
        {"node-b", kSuccess}}},
      {"a volume of two zones (zone-a__zone-b)",
       "VolumeZone",
       pv("pv-ab", "accessModes: [ReadWriteOnce], hostPath: {path: /ab}",
          "{topology.kubernetes.io/zone: zone-a__zone-b}") +
           pvc("data", "pv-ab"),
       "[" + claim_volume("data") + "]",
       kSuccess,
       {{"node-a", kSuccess}, {"node-b", kSuccess}}},
      {"a claim that does not exist", "VolumeZone", zoned, "[" + claim_volume("nope") + "]",
       Verdict{"UnschedulableAndUnresolvable", {"persistentvolumeclaim \"nope\" not found"}}},
      {"a claim bound to a volume that does not exist", "VolumeZone", pvc("data", "pv-gone"),
       "[" + claim_volume("data") + "]",
       Verdict{"UnschedulableAndUnresolvable", {"persistentvolume \"pv-gone\" not found"}}},
      {"an unbound claim of a class that does not exist", "VolumeZone", pvc("data", "", "missing"),
       "[" + claim_volume("data") + "]",
       Verdict{"UnschedulableAndUnresolvable",
               {"storageclass.storage.k8s.io \"missing\" not found"}}},
      {"an unbound claim without a class", "VolumeZone", pvc("data", "", ""),
       "[" + claim_volume("data") + "]",
       Verdict{"UnschedulableAndUnresolvable",
               {"PersistentVolumeClaim had no pv name and storageClass name"}}},
      {"an unbound claim of an Immediate class", "VolumeZone",
       storage_class("now", "Immediate") + pvc("data", "", "now"), "[" + claim_volume("data") + "]",
       Verdict{"UnschedulableAndUnresolvable", {"PersistentVolume had no name"}}},
      {"an unbound claim of a WaitForFirstConsumer class: not VolumeZone's to judge", "VolumeZone",
       storage_class("local", "WaitForFirstConsumer") + pvc("data", ""),
       "[" + claim_volume("data") + "]", Verdict{"Skip", {}}},
  };
  for (const Case& c : cases)
    expect_case(c);
}

TEST(VolumePluginsExercise, VolumeBinding) {
  const std::string local_class = storage_class("local", "WaitForFirstConsumer");
  const std::string affinity_b =
      "nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: "
      "topology.kubernetes.io/zone, operator: In, values: [zone-b]}]}]}}";
  const std::string kNoFreeVolume = "node(s) didn't find available persistent volumes to bind";
  const std::vector<Case> cases = {
      {"a bound claim whose volume is reachable only from zone-b",
       "VolumeBinding",
       local_class +
           pv("pv-b", "accessModes: [ReadWriteOnce], hostPath: {path: /b}, " + affinity_b) +
           pvc("data", "pv-b"),
       "[" + claim_volume("data") + "]",
       kSuccess,
       {{"node-a",
         {"UnschedulableAndUnresolvable",
          {"node(s) didn't match PersistentVolume's node affinity"}}},
        {"node-b", kSuccess}}},
      {"an unbound claim and one free volume, in zone-b",
       "VolumeBinding",
       local_class +
           pv("pv-free",
              "accessModes: [ReadWriteOnce], storageClassName: local, hostPath: {path: /f}, " +
                  affinity_b,
              "{}", "Available") +
           pvc("data", ""),
       "[" + claim_volume("data") + "]",
       kSuccess,
       {{"node-a", {"UnschedulableAndUnresolvable", {kNoFreeVolume}}}, {"node-b", kSuccess}}},
      {"an unbound claim whose only volume is too small",
       "VolumeBinding",
       local_class +
           "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-small}\nspec: {capacity: "
           "{storage: 1Gi}, accessModes: [ReadWriteOnce], storageClassName: local, hostPath: "
           "{path: /s}}\nstatus: {phase: Available}\n---\n" +
           pvc("data", ""),
       "[" + claim_volume("data") + "]",
       kSuccess,
       {{"node-a", {"UnschedulableAndUnresolvable", {kNoFreeVolume}}},
        {"node-b", {"UnschedulableAndUnresolvable", {kNoFreeVolume}}}}},
      {"a bound claim whose volume does not exist",
       "VolumeBinding",
       local_class + pvc("data", "pv-gone"),
       "[" + claim_volume("data") + "]",
       kSuccess,
       {{"node-a",
         {"UnschedulableAndUnresolvable",
          {"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"}}}}},
      {"provisioning where the driver's CSIStorageCapacity is too small",
       "VolumeBinding",
       storage_class("fast", "WaitForFirstConsumer", kCsi) + pvc("data", "", "fast") +
           "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: " + kCsi +
           "}\nspec: {storageCapacity: true}\n---\n"
           "apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata: {name: cap-a, "
           "namespace: default}\nstorageClassName: fast\ncapacity: 1Gi\nnodeTopology: "
           "{matchLabels: {topology.kubernetes.io/zone: zone-a}}\n---\n"
           "apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata: {name: cap-b, "
           "namespace: default}\nstorageClassName: fast\ncapacity: 100Gi\nnodeTopology: "
           "{matchLabels: {topology.kubernetes.io/zone: zone-b}}\n---\n",
       "[" + claim_volume("data") + "]",
       kSuccess,
       {{"node-a", {"UnschedulableAndUnresolvable", {"node(s) did not have enough free storage"}}},
        {"node-b", kSuccess}}},
      {"an unbound claim of an Immediate class", "VolumeBinding",
       storage_class("now", "Immediate") + pvc("data", "", "now"), "[" + claim_volume("data") + "]",
       Verdict{"UnschedulableAndUnresolvable",
               {"pod has unbound immediate PersistentVolumeClaims"}}},
      {"a claim that does not exist", "VolumeBinding", local_class,
       "[" + claim_volume("nope") + "]",
       Verdict{"UnschedulableAndUnresolvable", {"persistentvolumeclaim \"nope\" not found"}}},
      {"a claim whose volume was lost", "VolumeBinding",
       local_class +
           "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: "
           "default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: "
           "10Gi}}, storageClassName: local, volumeName: pv-lost}\nstatus: {phase: Lost}\n---\n",
       "[" + claim_volume("data") + "]",
       Verdict{"UnschedulableAndUnresolvable",
               {"persistentvolumeclaim \"data\" bound to non-existent persistentvolume "
                "\"pv-lost\""}}},
      {"a claim being deleted", "VolumeBinding",
       local_class + pvc("data", "", "local", "ReadWriteOnce",
                         ", deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: "
                         "[kubernetes.io/pvc-protection]"),
       "[" + claim_volume("data") + "]",
       Verdict{"UnschedulableAndUnresolvable",
               {"persistentvolumeclaim \"data\" is being deleted"}}},
      {"a generic ephemeral volume whose claim is not made yet", "VolumeBinding", local_class,
       "[{name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], "
       "storageClassName: local, resources: {requests: {storage: 1Gi}}}}}}]",
       Verdict{"UnschedulableAndUnresolvable",
               {"waiting for ephemeral volume controller to create the persistentvolumeclaim "
                "\"app-scratch\""}}},
      {"no claim", "VolumeBinding", "", "[{name: tmp, emptyDir: {}}]", Verdict{"Skip", {}}},
  };
  for (const Case& c : cases)
    expect_case(c);
}

}  // namespace
}  // namespace schedhost::testing
