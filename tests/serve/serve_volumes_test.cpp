// The volume plugins in serve, against the real API server (no controller-manager runs there, so
// the test plays the PV controller's part): a pod whose claim waits for its first consumer is
// placed where the only matching PersistentVolume can be reached (its node affinity), and
// VolumeBinding's PreBind writes the PV's claimRef before the pod is bound.
#include <gtest/gtest.h>

#include <string>

#include "serve/serve_support.hpp"

namespace schedhost::testing::serve_volumes_test {

using nlohmann::json;

const char* const kDefaultProfile =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "leaderElection: {leaderElect: false}\n"
    "profiles:\n- schedulerName: default-scheduler\n";

json zoned_node(const std::string& name, const std::string& zone) {
  json node = test_node(name, "4");
  node["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone;
  return node;
}

TEST(ServeVolumes, AClaimIsBoundToTheVolumeItsPodCanReachAndThePodToThatNode) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, zoned_node("n1", "zone-a"));
  create_node(client, zoned_node("n2", "zone-b"));
  client.create("/apis/storage.k8s.io/v1/storageclasses",
                {{"apiVersion", "storage.k8s.io/v1"},
                 {"kind", "StorageClass"},
                 {"metadata", {{"name", "local"}}},
                 {"provisioner", "kubernetes.io/no-provisioner"},
                 {"volumeBindingMode", "WaitForFirstConsumer"}});
  // The only volume is reachable from zone-b alone.
  client.create("/api/v1/persistentvolumes",
                {{"apiVersion", "v1"},
                 {"kind", "PersistentVolume"},
                 {"metadata", {{"name", "pv-b"}}},
                 {"spec",
                  {{"capacity", {{"storage", "1Gi"}}},
                   {"accessModes", {"ReadWriteOnce"}},
                   {"storageClassName", "local"},
                   {"hostPath", {{"path", "/tmp/pv-b"}}},
                   {"nodeAffinity",
                    {{"required",
                      {{"nodeSelectorTerms",
                        json::array({{{"matchExpressions",
                                       json::array({{{"key", "topology.kubernetes.io/zone"},
                                                     {"operator", "In"},
                                                     {"values", {"zone-b"}}}})}}})}}}}}}}});
  // The PV controller makes a new volume Available (VolumeBinding matches only those).
  json pv_b = client.get("/api/v1/persistentvolumes/pv-b");
  pv_b["status"]["phase"] = "Available";
  client.replace("/api/v1/persistentvolumes/pv-b/status", pv_b);
  client.create(ns_path("default") + "/persistentvolumeclaims",
                {{"apiVersion", "v1"},
                 {"kind", "PersistentVolumeClaim"},
                 {"metadata", {{"name", "data"}}},
                 {"spec",
                  {{"accessModes", {"ReadWriteOnce"}},
                   {"storageClassName", "local"},
                   {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  json pod = test_pod("db", "100m");
  pod["spec"]["volumes"] =
      json::array({{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}});
  client.create(ns_path("default") + "/pods", pod);
  ScratchDir dir;
  ServeProcess serve(*plane, dir.write("profile.yaml", kDefaultProfile));

  // VolumeBinding's PreBind writes the PV's claimRef; the test then binds the claim as the PV
  // controller would (volumeName and bind-completed), which ends PreBind's wait.
  ASSERT_TRUE(eventually([&] {
    return client.get("/api/v1/persistentvolumes/pv-b")
               .value("/spec/claimRef/name"_json_pointer, std::string()) == "data";
  })) << serve.log();
  EXPECT_EQ(live_decisions(client)["default/db"].node, "");  // not bound before its volume
  json claim = client.get(ns_path("default") + "/persistentvolumeclaims/data");
  claim["spec"]["volumeName"] = "pv-b";
  claim["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes";
  client.replace(ns_path("default") + "/persistentvolumeclaims/data", claim);

  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/db"].node == "n2"; }))
      << serve.log();
  const json pv = client.get("/api/v1/persistentvolumes/pv-b");
  EXPECT_EQ(pv.value("/spec/claimRef/namespace"_json_pointer, std::string()), "default");
  EXPECT_EQ(pv.value("/metadata/annotations/pv.kubernetes.io~1bound-by-controller"_json_pointer,
                     std::string()),
            "yes");
  EXPECT_TRUE(serve.process().running());
}

}  // namespace schedhost::testing::serve_volumes_test
