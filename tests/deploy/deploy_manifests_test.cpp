// deploy/ as `kubectl apply -k deploy/` sees it: the objects it renders (kinds, names, the
// Deployment's replicas, probes and security context, the configuration the ConfigMap carries,
// which schedhost validates), and the real API server accepting every one of them in a server
// dry run, with no Pod Security warning for the namespace's `restricted` level.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "deploy/deploy_support.hpp"

namespace schedhost::testing::deploy_manifests_test {

using deploy::kNamespace;
using deploy::object_named;

// The container of a pod template named `name`, among `field` (containers, initContainers).
const json& container(const json& pod_spec, const std::string& field, const std::string& name) {
  for (const json& c : pod_spec[field]) {
    if (c["name"] == name) return c;
  }
  throw std::runtime_error("no " + field + " named " + name);
}

TEST(DeployManifests, RenderTheObjectsOfASecondScheduler) {
  std::string why;
  const std::optional<std::string> kubectl = deploy::find_kubectl(&why);
  if (!kubectl) {  // as SCHEDHOST_START_CONTROL_PLANE: a skip, or a failure when required
    ASSERT_FALSE(control_plane_required()) << "SCHEDHOST_REQUIRE_APISERVER=1 but " << why;
    GTEST_SKIP() << why;
  }
  const std::vector<json> objects = deploy::render(*kubectl);
  std::set<std::string> keys;
  for (const json& o : objects)
    keys.insert(deploy::object_key(o));
  EXPECT_EQ(keys, (std::set<std::string>{
                      "Namespace schedhost-system",
                      "ServiceAccount schedhost-system/schedhost",
                      "ClusterRoleBinding schedhost-as-kube-scheduler",
                      "ClusterRoleBinding schedhost-as-volume-scheduler",
                      "Role schedhost-system/schedhost-leader-election",
                      "RoleBinding schedhost-system/schedhost-leader-election",
                      "RoleBinding kube-system/schedhost-extension-apiserver-authentication-reader",
                      "ConfigMap schedhost-system/schedhost-config",
                      "Deployment schedhost-system/schedhost",
                  }));
  EXPECT_EQ(objects.size(), keys.size());

  const json& deployment = object_named(objects, "Deployment " + kNamespace + "/schedhost");
  EXPECT_EQ(deployment["spec"]["replicas"], 2);
  const json& pod = deployment["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"], "schedhost");
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(pod["securityContext"]["runAsUser"], 65532);
  const json& main = container(pod, "containers", "schedhost");
  EXPECT_EQ(main["image"], "schedhost:0.1.0");  // kustomization.yaml's images
  EXPECT_EQ(main["args"], json::parse(R"(["--config", "/etc/schedhost/config.yaml",
                                          "--plugin-dir", "/plugins", "-v", "2"])"));
  EXPECT_EQ(main["livenessProbe"]["httpGet"],
            json::parse(R"({"path": "/healthz", "port": 10259, "scheme": "HTTPS"})"));
  EXPECT_EQ(main["readinessProbe"]["httpGet"],
            json::parse(R"({"path": "/readyz", "port": 10259, "scheme": "HTTPS"})"));
  const json restricted = json::parse(R"({"allowPrivilegeEscalation": false,
      "readOnlyRootFilesystem": true, "capabilities": {"drop": ["ALL"]}})");
  json main_security = main["securityContext"];
  main_security.erase("runAsNonRoot");
  EXPECT_EQ(main_security, restricted);
  EXPECT_TRUE(main["resources"]["requests"].contains("cpu"));
  EXPECT_TRUE(main["resources"]["requests"].contains("memory"));
  EXPECT_EQ(main["volumeMounts"], json::parse(R"([
      {"name": "config", "mountPath": "/etc/schedhost", "readOnly": true},
      {"name": "plugins", "mountPath": "/plugins", "subPath": "plugins", "readOnly": true}])"));

  // The plugins: an emptyDir the init container fills from the plugin image.
  const json& init = container(pod, "initContainers", "plugins");
  EXPECT_EQ(init["image"], "schedhost-sample-plugins:0.1.0");
  EXPECT_EQ(init["securityContext"], restricted);
  EXPECT_EQ(init["volumeMounts"], json::parse(R"([{"name": "plugins", "mountPath": "/shared"}])"));
  EXPECT_EQ(pod["volumes"], json::parse(R"([
      {"name": "config", "configMap": {"name": "schedhost-config"}},
      {"name": "plugins", "emptyDir": {"sizeLimit": "256Mi"}}])"));

  // The configuration: one profile, schedhost, with SamplePlugin and its args; leader election on
  // the Lease the Role lets the ServiceAccount renew. schedhost itself accepts it, with the
  // example plugins (SamplePlugin) as the plugin image would provide them.
  const std::string config_text = deploy::scheduler_config(objects);
  const json config = cluster::yaml_to_json(YAML::Load(config_text), "config.yaml");
  ASSERT_EQ(config["profiles"].size(), 1u);
  const json& profile = config["profiles"][0];
  EXPECT_EQ(profile["schedulerName"], "schedhost");
  EXPECT_EQ(profile["plugins"]["filter"]["enabled"], json::parse(R"([{"name": "SamplePlugin"}])"));
  EXPECT_EQ(profile["plugins"]["score"]["enabled"],
            json::parse(R"([{"name": "SamplePlugin", "weight": 2}])"));
  EXPECT_EQ(profile["pluginConfig"][0]["name"], "SamplePlugin");
  EXPECT_EQ(profile["pluginConfig"][0]["args"]["threshold"], 90);
  EXPECT_EQ(config["leaderElection"], json::parse(R"({"leaderElect": true, "resourceLock": "leases",
                            "resourceName": "schedhost", "resourceNamespace": "schedhost-system"})"));
  const json& lease_role =
      object_named(objects, "Role " + kNamespace + "/schedhost-leader-election");
  EXPECT_EQ(lease_role["rules"], json::parse(R"([{"apiGroups": ["coordination.k8s.io"],
      "resources": ["leases"], "resourceNames": ["schedhost"], "verbs": ["get", "update"]}])"));

  ScratchDir dir;
  const ProcessResult validated =
      run_schedhost({"validate", "--config", dir.write("config.yaml", config_text), "--plugin-dir",
                     std::string(SCHEDHOST_BINARY_DIR) + "/lib/schedhost/examples"});
  EXPECT_EQ(validated.exit_code, 0) << validated.err;
  EXPECT_NE(validated.out.find("filter: NodeUnschedulable, NodeName, TaintToleration, "
                               "NodeAffinity, NodePorts, NodeResourcesFit, VolumeRestrictions, "
                               "NodeVolumeLimits, VolumeBinding, VolumeZone, PodTopologySpread, "
                               "InterPodAffinity, SamplePlugin;"),
            std::string::npos)
      << validated.out;
}

TEST(DeployManifests, TheApiServerAcceptsEveryObjectInAServerDryRun) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  // A server dry run creates nothing, so the objects in schedhost-system would meet a namespace
  // that does not exist: the namespace first, for real.
  auto [status, out] =
      deploy::kubectl(*plane, {"apply", "-f", deploy::kDeployDir + "/namespace.yaml"});
  ASSERT_EQ(status, 0) << out;
  std::tie(status, out) =
      deploy::kubectl(*plane, {"apply", "--dry-run=server", "-k", deploy::kDeployDir});
  ASSERT_EQ(status, 0) << out;
  // One line per object (the namespace gains kustomization.yaml's label), and no warning (a Pod
  // Security violation of the restricted level would be one: the server checks the Deployment's pod
  // template against the namespace's labels).
  EXPECT_EQ(out.find("Warning"), std::string::npos) << out;
  for (const char* line : {
           "namespace/schedhost-system configured (server dry run)",
           "serviceaccount/schedhost created (server dry run)",
           "role.rbac.authorization.k8s.io/schedhost-leader-election created (server dry run)",
           "rolebinding.rbac.authorization.k8s.io/"
           "schedhost-extension-apiserver-authentication-reader created (server dry run)",
           "rolebinding.rbac.authorization.k8s.io/schedhost-leader-election created (server dry "
           "run)",
           "clusterrolebinding.rbac.authorization.k8s.io/schedhost-as-kube-scheduler created "
           "(server dry run)",
           "clusterrolebinding.rbac.authorization.k8s.io/schedhost-as-volume-scheduler created "
           "(server dry run)",
           "configmap/schedhost-config created (server dry run)",
           "deployment.apps/schedhost created (server dry run)",
       }) {
    EXPECT_NE(out.find(line), std::string::npos) << line << " not in:\n" << out;
  }
}

}  // namespace schedhost::testing::deploy_manifests_test
