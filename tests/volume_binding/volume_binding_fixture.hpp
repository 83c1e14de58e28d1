// The objects and the harness the VolumeBinding tests share: PersistentVolumes, claims, classes,
// CSI objects and pods as kubectl prints them (builders named as upstream's test_utils.go), and
// the real volume_binding.so from the built-in plugin directory on the SDK's fake host.
#pragma once

#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/fixtures.hpp"

namespace schedhost::testing::volume_binding {

using Json = nlohmann::json;

inline constexpr const char* kPV = "PersistentVolume";
inline constexpr const char* kPVC = "PersistentVolumeClaim";
inline constexpr const char* kSC = "storage.k8s.io/StorageClass";
inline constexpr const char* kCSINode = "storage.k8s.io/CSINode";
inline constexpr const char* kCSIDriver = "storage.k8s.io/CSIDriver";
inline constexpr const char* kCapacity = "storage.k8s.io/CSIStorageCapacity";

inline constexpr const char* kNodeConflict =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr const char* kBindConflict =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr const char* kNotEnoughSpace = "node(s) did not have enough free storage";
inline constexpr const char* kPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr const char* kHostname = "kubernetes.io/hostname";

// A PersistentVolume (upstream makePV), resourceVersion "1".
struct PV {
  Json j;
  explicit PV(const std::string& name, const std::string& storage_class = "wait-sc")
      : j({{"apiVersion", "v1"},
           {"kind", "PersistentVolume"},
           {"metadata", {{"name", name}, {"resourceVersion", "1"}}},
           {"spec", {{"storageClassName", storage_class}}}}) {}
  PV& capacity(const std::string& q) {
    j["spec"]["capacity"]["storage"] = q;
    return *this;
  }
  PV& phase(const std::string& p) {
    j["status"]["phase"] = p;
    return *this;
  }
  PV& available() { return phase("Available"); }
  PV& modes(std::vector<std::string> m) {
    j["spec"]["accessModes"] = std::move(m);
    return *this;
  }
  // One term, one In requirement per key (upstream withNodeAffinity).
  PV& affinity(const std::map<std::string, std::vector<std::string>>& in) {
    Json exprs = Json::array();
    for (const auto& [k, v] : in)
      exprs.push_back({{"key", k}, {"operator", "In"}, {"values", v}});
    j["spec"]["nodeAffinity"] = {
        {"required", {{"nodeSelectorTerms", Json::array({{{"matchExpressions", exprs}}})}}}};
    return *this;
  }
  PV& claim_ref(const std::string& ns, const std::string& name, const std::string& uid = "") {
    j["spec"]["claimRef"] = {{"kind", "PersistentVolumeClaim"}, {"namespace", ns}, {"name", name}};
    if (!uid.empty()) j["spec"]["claimRef"]["uid"] = uid;
    return *this;
  }
  PV& label(const std::string& k, const std::string& v) {
    j["metadata"]["labels"][k] = v;
    return *this;
  }
  PV& annotation(const std::string& k, const std::string& v) {
    j["metadata"]["annotations"][k] = v;
    return *this;
  }
  PV& version(const std::string& rv) {
    j["metadata"]["resourceVersion"] = rv;
    return *this;
  }
  PV& set(const std::string& pointer, Json value) {
    j[Json::json_pointer(pointer)] = std::move(value);
    return *this;
  }
  operator Json() const { return j; }  // NOLINT: builders read as the objects they make
};

// A PersistentVolumeClaim in "default" (upstream makePVC), resourceVersion "1".
struct PVC {
  Json j;
  explicit PVC(const std::string& name, const std::optional<std::string>& storage_class = "wait-sc")
      : j({{"apiVersion", "v1"},
           {"kind", "PersistentVolumeClaim"},
           {"metadata",
            {{"name", name},
             {"namespace", "default"},
             {"uid", "uid-" + name},
             {"resourceVersion", "1"}}},
           {"spec", Json::object()}}) {
    if (storage_class) j["spec"]["storageClassName"] = *storage_class;
  }
  PVC& request(const std::string& q) {
    j["spec"]["resources"]["requests"]["storage"] = q;
    return *this;
  }
  // spec.volumeName and the bind-completed annotation (upstream withBoundPV).
  PVC& bound(const std::string& pv) {
    j["spec"]["volumeName"] = pv;
    return annotation("pv.kubernetes.io/bind-completed", "yes");
  }
  PVC& volume_name(const std::string& pv) {
    j["spec"]["volumeName"] = pv;
    return *this;
  }
  PVC& modes(std::vector<std::string> m) {
    j["spec"]["accessModes"] = std::move(m);
    return *this;
  }
  PVC& phase(const std::string& p) {
    j["status"]["phase"] = p;
    return *this;
  }
  PVC& annotation(const std::string& k, const std::string& v) {
    j["metadata"]["annotations"][k] = v;
    return *this;
  }
  PVC& selected_node(const std::string& node) {
    return annotation("volume.kubernetes.io/selected-node", node);
  }
  PVC& owner(const std::string& uid, bool controller = true) {
    j["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "v1"},
                                                     {"kind", "Pod"},
                                                     {"name", "owner"},
                                                     {"uid", uid},
                                                     {"controller", controller}}});
    return *this;
  }
  PVC& version(const std::string& rv) {
    j["metadata"]["resourceVersion"] = rv;
    return *this;
  }
  PVC& set(const std::string& pointer, Json value) {
    j[Json::json_pointer(pointer)] = std::move(value);
    return *this;
  }
  operator Json() const { return j; }  // NOLINT
};

inline Json storage_class(const std::string& name, const char* mode,
                          const std::string& provisioner = "") {
  Json sc = {{"apiVersion", "storage.k8s.io/v1"},
             {"kind", "StorageClass"},
             {"metadata", {{"name", name}}},
             {"provisioner", provisioner}};
  if (mode != nullptr) sc["volumeBindingMode"] = mode;
  return sc;
}

inline Json csi_driver(const std::string& name, std::optional<bool> storage_capacity) {
  Json d = {{"apiVersion", "storage.k8s.io/v1"},
            {"kind", "CSIDriver"},
            {"metadata", {{"name", name}}},
            {"spec", Json::object()}};
  if (storage_capacity) d["spec"]["storageCapacity"] = *storage_capacity;
  return d;
}

// A CSIStorageCapacity (upstream makeCapacity): nodeTopology selects hostname=<node> ({} for
// every node, null for none); "" leaves capacity / maximumVolumeSize unset.
inline Json capacity(const std::string& name, const std::string& storage_class,
                     const Json& node_topology, const std::string& capacity,
                     const std::string& maximum = "") {
  Json c = {{"apiVersion", "storage.k8s.io/v1"},
            {"kind", "CSIStorageCapacity"},
            {"metadata", {{"name", name}, {"namespace", "kube-system"}}},
            {"storageClassName", storage_class}};
  if (!node_topology.is_null()) c["nodeTopology"] = node_topology;
  if (!capacity.empty()) c["capacity"] = capacity;
  if (!maximum.empty()) c["maximumVolumeSize"] = maximum;
  return c;
}

inline Json on_node(const std::string& node) {
  return {{"matchLabels", {{kHostname, node}}}};
}

inline Json claim_volume(const std::string& claim, const std::string& name = "") {
  return {{"name", name.empty() ? "vol-" + claim : name},
          {"persistentVolumeClaim", {{"claimName", claim}}}};
}

inline Json ephemeral_volume(const std::string& name) {
  return {{"name", name},
          {"ephemeral",
           {{"volumeClaimTemplate",
             {{"spec",
               {{"accessModes", {"ReadWriteOnce"}},
                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}};
}

// A pod in "default" with these volumes.
inline FakePod pod_with(const std::string& name, Json volumes) {
  return FakePod(name).json("/spec/volumes", std::move(volumes));
}

// A pod with one persistentVolumeClaim volume per claim.
inline FakePod pod_with_claims(const std::string& name, const std::vector<std::string>& claims) {
  Json volumes = Json::array();
  for (const std::string& c : claims)
    volumes.push_back(claim_volume(c));
  return pod_with(name, std::move(volumes));
}

struct Expect {
  Code code = Code::Success;
  std::vector<std::string> reasons;
};

inline Expect ok() {
  return {};
}
inline Expect unresolvable(std::vector<std::string> reasons) {
  return {Code::UnschedulableAndUnresolvable, std::move(reasons)};
}
inline Expect error(std::string reason) {
  return {Code::Error, {std::move(reason)}};
}

// One pod's scheduling cycle, hook by hook, on one CycleState.
struct Cycle {
  FakePod pod;
  FakeCycleState state;
  HookResult pre_filter;
  std::map<std::string, HookResult> filter;  // node -> Filter's result
};

// The library on a fake host with upstream's classes (immediate-sc, wait-sc, wait-hdd-sc,
// wait-sc-with-storage-capacity and its CSIDriver) and nodes node-a, node-b, node-c labelled
// with their hostname.
class VolumeBindingTest : public ::testing::Test {
 protected:
  VolumeBindingTest()
      : host_(std::make_unique<FakeHost>(
            FakeHost::open_library(builtin_plugin_dir() + "/volume_binding.so"))) {
    host_->add_object(kSC, storage_class("immediate-sc", "Immediate"))
        .add_object(kSC, storage_class("wait-sc", "WaitForFirstConsumer"))
        .add_object(kSC, storage_class("wait-hdd-sc", "WaitForFirstConsumer"))
        .add_object(kSC, storage_class("wait-sc-with-storage-capacity", "WaitForFirstConsumer",
                                       "driver-with-storage-capacity"))
        .add_object(kCSIDriver, csi_driver("driver-with-storage-capacity", true));
    for (const char* n : {"node-a", "node-b", "node-c"})
      host_->add_node(FakeNode(n).label(kHostname, n));
  }
  ~VolumeBindingTest() override { plugin_.reset(); }

  // Creates the plugin (after the objects a test adds, with the gates it set).
  FakePlugin& plugin(const std::string& args = "{}") {
    if (!plugin_) plugin_ = std::make_unique<FakePlugin>(host_->create("VolumeBinding", args));
    return *plugin_;
  }

  FakeHost& add(const char* resource, Json object) {
    return host_->add_object(resource, std::move(object));
  }

  // PreFilter, then Filter on every node when PreFilter succeeded.
  Cycle run(FakePod pod) {
    Cycle c{std::move(pod), {}, {}, {}};
    c.pre_filter = plugin().pre_filter(c.state, c.pod);
    if (c.pre_filter.ok()) {
      for (const std::string& n : host_->node_names())
        c.filter[n] = plugin().filter(c.state, c.pod, n);
    }
    return c;
  }

  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<FakePlugin> plugin_;
};

inline void expect_result(const HookResult& got, const Expect& want, const std::string& what) {
  EXPECT_EQ(got.code, want.code) << what << ": " << got;
  EXPECT_EQ(got.reasons, want.reasons) << what;
}

}  // namespace schedhost::testing::volume_binding
