// Namespace objects: loaded from the cluster file (and refused with one clear line), kept in the
// Cluster and the Snapshot, read by plugins through the namespace_* host functions and the C++
// wrapper (Context::namespaces / namespace_labels / namespace_label); and InterPodAffinity end to
// end through `schedhost run` with the default profile.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <schedhost/context.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "framework/call.hpp"
#include "framework/plugin_host.hpp"
#include "inter_pod_affinity/ipa_test_support.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

using ::testing::HasSubstr;
using testing::ScratchDir;

std::string load_error(const std::string& text) {
  ScratchDir dir;
  const std::string path = dir.write("cluster.yaml", text);
  try {
    cluster::load_cluster(path);
  } catch (const InputError& e) {
    std::string message = e.what();
    const std::string prefix = dir.path() + "/";
    for (size_t at = message.find(prefix); at != std::string::npos; at = message.find(prefix))
      message.erase(at, prefix.size());
    return message;
  }
  return "no error";
}

TEST(NamespaceObjects, AreLoadedIntoTheClusterAndTheSnapshot) {
  ScratchDir dir;
  const std::string path = dir.write("cluster.yaml", R"(apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {team: blue, env: prod}
---
apiVersion: v1
kind: List
items:
- kind: Namespace
  metadata: {name: empty}
- kind: Node
  metadata: {name: node-a}
  status: {allocatable: {cpu: "1", pods: "10"}}
- kind: Pod
  metadata: {name: web, namespace: unknown-ns}
  spec: {containers: [{name: c, image: nginx}]}
)");
  const cluster::Cluster c = cluster::load_cluster(path);
  ASSERT_EQ(c.namespaces.size(), 2u);
  EXPECT_EQ(c.namespaces[0]->name(), "shop");
  EXPECT_EQ(c.namespaces[0]->labels(), (cluster::StringMap{{"env", "prod"}, {"team", "blue"}}));
  EXPECT_EQ(c.namespaces[0]->json()["kind"], "Namespace");
  EXPECT_EQ(c.namespaces[1]->name(), "empty");
  EXPECT_TRUE(c.namespaces[1]->labels().empty());
  EXPECT_TRUE(c.ignored.empty());
  EXPECT_EQ(c.pending_pods.size(), 1u);  // a pod's namespace needs no Namespace object

  const cluster::Snapshot s = c.snapshot();
  ASSERT_NE(s.find_namespace("shop"), nullptr);
  EXPECT_EQ(s.find_namespace("shop")->labels().size(), 2u);
  EXPECT_EQ(s.find_namespace("unknown-ns"), nullptr);
  const cluster::Snapshot copy = s;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.find_namespace("empty"), s.find_namespace("empty"));
  EXPECT_EQ(copy.namespaces().size(), 2u);
}

TEST(NamespaceObjects, ProblemsAreOneLineNamingTheObject) {
  EXPECT_EQ(load_error("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
                       "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"),
            "cluster.yaml:5:1: Namespace \"a\" is defined twice (first at cluster.yaml:1:1): "
            "remove one of them or rename it");
  EXPECT_EQ(load_error("apiVersion: v2\nkind: Namespace\nmetadata: {name: a}\n"),
            "cluster.yaml:1:13: Namespace \"a\": apiVersion \"v2\" is not supported for kind "
            "Namespace: use apiVersion: v1");
  EXPECT_EQ(load_error("apiVersion: v1\nkind: Namespace\nmetadata: {labels: {a: b}}\n"),
            "cluster.yaml:3:11: Namespace has no metadata.name: add a name under metadata");
  const std::string bad_labels =
      load_error("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: [x]\n");
  EXPECT_THAT(bad_labels, ::testing::StartsWith("cluster.yaml:5:11: Namespace \"a\": "
                                                "metadata.labels must be a mapping"));
}

TEST(NamespaceObjects, ADuplicateInASnapshotIsRefused) {
  cluster::Snapshot s;
  EXPECT_THROW(s.set_namespaces({testing::ipa::ns("a"), testing::ipa::ns("a")}),
               std::invalid_argument);
  EXPECT_EQ(s.namespaces().size(), 0u);
}

TEST(NamespaceHostApi, TheWrapperReadsTheCallsSnapshot) {
  const cluster::Snapshot snap = testing::ipa::snapshot(
      {}, {},
      {testing::ipa::ns("shop", {{"team", "blue"}, {"env", "prod"}}), testing::ipa::ns("empty")});
  framework::Call call(&snap);
  const schedhost_host_api_t* api = framework::host_api();
  Context ctx(api, call.handle());

  std::vector<std::string> names;
  for (const std::string_view n : ctx.namespaces())
    names.emplace_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"shop", "empty"}));

  std::map<std::string, std::string> labels;
  for (const KeyValue kv : ctx.namespace_labels("shop"))
    labels.emplace(kv.key, kv.value);
  EXPECT_EQ(labels, (std::map<std::string, std::string>{{"env", "prod"}, {"team", "blue"}}));
  EXPECT_EQ(ctx.namespace_labels("shop")[0].key, "env");  // key order
  EXPECT_EQ(ctx.namespace_label("shop", "team"), "blue");
  EXPECT_EQ(ctx.namespace_label("shop", "nope"), std::nullopt);
  EXPECT_EQ(ctx.namespace_labels("empty").size(), 0u);
  EXPECT_EQ(ctx.namespace_labels("no-object").size(), 0u);
  EXPECT_EQ(ctx.namespace_label("no-object", "team"), std::nullopt);

  // The C functions themselves: bad arguments answer "absent".
  schedhost_str_t k{}, v{};
  EXPECT_EQ(api->namespace_count(nullptr), 0u);
  EXPECT_EQ(api->namespace_name_at(call.handle(), 2).data, nullptr);
  EXPECT_FALSE(api->namespace_label_at(call.handle(), to_str("shop"), 2, &k, &v));
  EXPECT_TRUE(api->namespace_label_at(call.handle(), to_str("shop"), 1, &k, &v));
  EXPECT_EQ(to_view(k), "team");
  EXPECT_EQ(to_view(v), "blue");
  EXPECT_EQ(api->namespace_label_count(nullptr, to_str("shop")), 0u);
  EXPECT_FALSE(api->namespace_label_get(nullptr, to_str("shop"), to_str("team"), &v));
  EXPECT_EQ(api->struct_size, sizeof(schedhost_host_api_t));

  // An older host's table ends before the namespace functions: the wrapper sees no namespaces.
  schedhost_host_api_t older = *api;
  older.struct_size = offsetof(schedhost_host_api_t, namespace_count);
  Context old_ctx(&older, call.handle());
  EXPECT_EQ(old_ctx.namespaces().size(), 0u);
  EXPECT_EQ(old_ctx.namespace_labels("shop").size(), 0u);
  EXPECT_EQ(old_ctx.namespace_label("shop", "team"), std::nullopt);
}

// Three replicas with required anti-affinity on the hostname: one per node; the fourth has no
// node left. The cache pod in a team namespace attracts the api pod through a namespaceSelector.
TEST(InterPodAffinityEndToEnd, AntiAffinitySpreadsReplicasWithTheDefaultProfile) {
  ScratchDir dir;
  std::string cluster = R"(apiVersion: v1
kind: Namespace
metadata: {name: cache, labels: {team: platform}}
)";
  for (const char* n : {"node-a", "node-b", "node-c"}) {
    cluster += std::string("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: ") + n +
               "\n  labels: {kubernetes.io/hostname: " + n +
               "}\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n";
  }
  cluster += R"(---
apiVersion: v1
kind: Pod
metadata: {name: redis, namespace: cache, labels: {app: redis}}
spec:
  nodeName: node-b
  containers: [{name: c, image: redis}]
)";
  for (int i = 1; i <= 4; ++i) {
    cluster += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-" + std::to_string(i) +
               ", namespace: shop, labels: {app: web}}\n" + R"(spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        topologyKey: kubernetes.io/hostname
)";
  }
  cluster += R"(---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop}
spec:
  containers: [{name: c, image: api}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: redis}}
        namespaceSelector: {matchLabels: {team: platform}}
        topologyKey: kubernetes.io/hostname
)";
  const std::string cluster_path = dir.write("cluster.yaml", cluster);
  const std::string profile = std::string(SCHEDHOST_SOURCE_DIR) + "/configs/default-profile.yaml";
  const auto r = testing::run_schedhost(
      {"run", "--config", profile, "--cluster", cluster_path, "-o", "json", "--seed", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json out = nlohmann::json::parse(r.out);
  std::map<std::string, std::string> node_of;
  std::map<std::string, std::string> result_of;
  std::string web4_message;
  for (const auto& p : out["pods"]) {
    result_of[p["pod"]] = p["result"];
    if (p.contains("node") && p["node"].is_string()) node_of[p["pod"]] = p["node"];
    if (p["pod"] == "shop/web-4") web4_message = p["message"];
  }
  EXPECT_EQ(result_of["shop/web-1"], "Scheduled");
  EXPECT_EQ(result_of["shop/web-2"], "Scheduled");
  EXPECT_EQ(result_of["shop/web-3"], "Scheduled");
  std::vector<std::string> used = {node_of["shop/web-1"], node_of["shop/web-2"],
                                   node_of["shop/web-3"]};
  std::sort(used.begin(), used.end());
  EXPECT_EQ(used, (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  EXPECT_EQ(result_of["shop/web-4"], "Unschedulable");
  EXPECT_THAT(web4_message,
              HasSubstr("0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules"));
  EXPECT_EQ(result_of["shop/api"], "Scheduled");
  EXPECT_EQ(node_of["shop/api"], "node-b");
}

}  // namespace
}  // namespace schedhost
