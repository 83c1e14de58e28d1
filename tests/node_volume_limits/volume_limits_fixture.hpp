// The cluster of upstream's nodevolumelimits/csi_test.go (kube-scheduler v1.35.4) on the SDK's
// fake host, with the built node_volume_limits.so loaded as the host loads it: PVs, PVCs, a
// StorageClass and a CSINode made by upstream's helpers (getFakeCSIPVLister,
// getFakeCSIPVCLister, getFakeCSIStorageClassLister, getNodeWithPodAndVolumeLimits), and pods
// whose volumes are written as kubectl prints them.
#pragma once

#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plugins/plugin_harness.hpp"

namespace schedhost::testing::volume_limits {

using Json = nlohmann::json;

inline constexpr const char* kNode = "node-for-max-pd-test-1";
inline constexpr const char* kStorageClass = "csi-sc";
inline constexpr const char* kEbsDriver = "ebs.csi.aws.com";
inline constexpr const char* kGceDriver = "pd.csi.storage.gke.io";
inline constexpr const char* kEbsInTree = "kubernetes.io/aws-ebs";
inline constexpr const char* kHostPathInTree = "kubernetes.io/hostpath";
inline constexpr const char* kMaxVolumeCount = "node(s) exceed max volume count";

inline std::string library_path() {
  return built_plugin("node_volume_limits.so");
}

// ---- volumes, as a pod's spec.volumes lists them ----

inline Json pvc_volume(const std::string& claim, const std::string& name = "") {
  return {{"name", name.empty() ? "v-" + claim : name},
          {"persistentVolumeClaim", {{"claimName", claim}}}};
}
inline Json ephemeral_volume(const std::string& name) {
  return {
      {"name", name},
      {"ephemeral",
       {{"volumeClaimTemplate", {{"spec", {{"accessModes", Json::array({"ReadWriteOnce"})}}}}}}}};
}
inline Json inline_volume(const std::string& name, const std::string& source, Json fields) {
  return {{"name", name}, {source, std::move(fields)}};
}
inline Json ebs_inline(const std::string& volume_id, const std::string& name = "ebs") {
  return inline_volume(name, "awsElasticBlockStore", {{"volumeID", volume_id}});
}
inline Json config_map_volume() {
  return {{"name", "cm"}, {"configMap", {{"name", "cm"}}}};
}
inline Json secret_volume() {
  return {{"name", "secret"}, {"secret", {{"secretName", "s"}}}};
}

// A pod with these volumes (PVC claims: st.MakePod().PVC(...)).
inline FakePod pod_with(const std::string& name, std::vector<Json> volumes,
                        const std::string& ns = "default") {
  FakePod pod(name, ns);
  if (!volumes.empty()) pod.json("/spec/volumes", Json(std::move(volumes)));
  return pod;
}
inline FakePod pvc_pod(const std::string& name, const std::vector<std::string>& claims) {
  std::vector<Json> volumes;
  for (const std::string& c : claims)
    volumes.push_back(pvc_volume(c));
  return pod_with(name, std::move(volumes));
}

// ---- objects ----

inline Json pv(const std::string& name, Json spec, Json labels = nullptr) {
  Json pv = {{"apiVersion", "v1"},
             {"kind", "PersistentVolume"},
             {"metadata", {{"name", name}}},
             {"spec", std::move(spec)}};
  if (!labels.is_null()) pv["metadata"]["labels"] = std::move(labels);
  return pv;
}
inline Json csi_pv(const std::string& name, const std::string& driver, const std::string& handle) {
  return pv(name, {{"csi", {{"driver", driver}, {"volumeHandle", handle}}}});
}
inline Json pvc(const std::string& ns, const std::string& name, Json spec) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", std::move(spec)}};
}
// An ephemeral volume's claim, controlled by the pod with that uid (none: not owned).
inline Json ephemeral_claim(const std::string& ns, const std::string& name,
                            const std::string& owner_uid, const std::string& owner_name) {
  Json claim = pvc(ns, name, {{"storageClassName", kStorageClass}});
  if (!owner_uid.empty()) {
    claim["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "v1"},
                                                         {"kind", "Pod"},
                                                         {"name", owner_name},
                                                         {"uid", owner_uid},
                                                         {"controller", true}}});
  }
  return claim;
}
inline Json storage_class(const std::string& name, const std::string& provisioner) {
  return {{"apiVersion", "storage.k8s.io/v1"},
          {"kind", "StorageClass"},
          {"metadata", {{"name", name}}},
          {"provisioner", provisioner}};
}
// A CSINode with these drivers; a count of nullopt leaves allocatable out.
inline Json csi_node(
    const std::string& node,
    const std::vector<std::pair<std::string, std::optional<std::int64_t>>>& drivers,
    const std::string& migrated_plugins = "") {
  Json list = Json::array();
  for (const auto& [name, count] : drivers) {
    Json d = {{"name", name}, {"nodeID", node}};
    if (count) d["allocatable"] = {{"count", *count}};
    list.push_back(std::move(d));
  }
  Json o = {{"apiVersion", "storage.k8s.io/v1"},
            {"kind", "CSINode"},
            {"metadata", {{"name", node}}},
            {"spec", {{"drivers", std::move(list)}}}};
  if (!migrated_plugins.empty()) {
    o["metadata"]["annotations"] = {
        {"storage.alpha.kubernetes.io/migrated-plugins", migrated_plugins}};
  }
  return o;
}

// Upstream's getFakeCSIPVLister("csi", drivers...) and getFakeCSIPVCLister("csi", sc, drivers...):
// for each driver, PVs and bound PVCs "csi-<driver>-0..3" (the handle is the name; the in-tree
// aws-ebs "driver" gets awsElasticBlockStore PVs, hostpath ones hostPath PVs), then the claims
// csi-4 (unbound, class csi-sc), csi-5 (no class) and csi-6 (class csi-sc, bound to a PV that is
// not there).
inline void add_upstream_volumes(FakeHost& host, const std::vector<std::string>& drivers) {
  for (const std::string& driver : drivers) {
    for (int j = 0; j < 4; ++j) {
      const std::string name = "csi-" + driver + "-" + std::to_string(j);
      Json spec;
      if (driver == kEbsInTree) {
        spec = {{"awsElasticBlockStore", {{"volumeID", name}}}};
      } else if (driver == kHostPathInTree) {
        spec = {{"hostPath", {{"path", "/tmp"}}}};
      } else {
        spec = {{"csi", {{"driver", driver}, {"volumeHandle", name}}}};
      }
      host.add_object("PersistentVolume", pv(name, spec));
      host.add_object("PersistentVolumeClaim", pvc("default", name, {{"volumeName", name}}));
    }
  }
  host.add_object("PersistentVolumeClaim",
                  pvc("default", "csi-4", {{"storageClassName", kStorageClass}}));
  host.add_object("PersistentVolumeClaim", pvc("default", "csi-5", Json::object()));
  host.add_object("PersistentVolumeClaim",
                  pvc("default", "csi-6",
                      {{"storageClassName", kStorageClass}, {"volumeName", "missing-in-action"}}));
}

// getNodeWithPodAndVolumeLimits's limit sources.
enum class Limits { kCsiNode, kCsiNodeWithoutCounts, kNoDrivers, kNoCsiNode };

// One fake host holding the plugin library, a node and the objects of a case.
class VolumeLimitsHost {
 public:
  VolumeLimitsHost() : host_(std::make_unique<FakeHost>(FakeHost::open_library(library_path()))) {}
  ~VolumeLimitsHost() { plugin_.reset(); }  // before the host

  FakeHost& host() { return *host_; }

  // The node with its pods, and its CSINode: every driver with `limit` (kCsiNode) or without a
  // count, annotated as having migrated aws-ebs (upstream's enableMigrationOnNode).
  void add_node(Limits limits, std::int64_t limit, const std::vector<std::string>& drivers,
                const std::vector<FakePod>& pods, FakeNode node = FakeNode(kNode)) {
    for (const FakePod& p : pods)
      node.pod(FakePod(p).node_name(kNode));
    host_->add_node(std::move(node));
    if (limits == Limits::kNoCsiNode) return;
    std::vector<std::pair<std::string, std::optional<std::int64_t>>> list;
    if (limits != Limits::kNoDrivers) {
      for (const std::string& d : drivers)
        list.emplace_back(
            d, limits == Limits::kCsiNode ? std::optional<std::int64_t>(limit) : std::nullopt);
    }
    host_->add_object("storage.k8s.io/CSINode", csi_node(kNode, list, kEbsInTree));
  }

  FakePlugin& plugin() {
    if (!plugin_) plugin_ = std::make_unique<FakePlugin>(host_->create("NodeVolumeLimits"));
    return *plugin_;
  }

  // PreFilter, then (unless it skipped) Filter on the node.
  HookResult run(const FakePod& pod, HookResult* pre_filter = nullptr) {
    FakeCycleState state;
    HookResult pre = plugin().pre_filter(state, pod);
    if (pre_filter != nullptr) *pre_filter = pre;
    if (pre.code == Code::Skip) return pre;
    return plugin().filter(state, pod, kNode);
  }

 private:
  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<FakePlugin> plugin_;
};

}  // namespace schedhost::testing::volume_limits
