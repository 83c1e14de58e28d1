#include "cluster/cluster_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(SCHEDHOST_SOURCE_DIR) / "tests" / "cluster" / "data";

std::vector<std::string> names(const std::vector<std::shared_ptr<const Node>>& nodes) {
  std::vector<std::string> out;
  for (const auto& node : nodes)
    out.push_back(node->name());
  return out;
}

std::vector<std::string> keys(const std::vector<std::shared_ptr<const Pod>>& pods) {
  std::vector<std::string> out;
  for (const auto& pod : pods)
    out.push_back(pod->key());
  return out;
}

TEST(ClusterFileTest, MultiDocumentYaml) {
  Cluster cluster = load_cluster(kData / "multi_doc.yaml");
  EXPECT_EQ(names(cluster.nodes), (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(keys(cluster.running_pods), (std::vector<std::string>{"shop/web-1"}));
  EXPECT_EQ(keys(cluster.pending_pods),
            (std::vector<std::string>{"default/pending-1", "shop/pending-2"}));
  EXPECT_EQ(keys(cluster.finished_pods), (std::vector<std::string>{"default/job-done"}));
  ASSERT_EQ(cluster.ignored.size(), 1u);
  EXPECT_EQ(cluster.ignored[0].kind, "ConfigMap");
  EXPECT_EQ(cluster.ignored[0].name, "shop/settings");
  EXPECT_EQ(cluster.ignored[0].location, (kData / "multi_doc.yaml").string() + ":40:1");
  EXPECT_EQ(cluster.ignored[0].object["data"]["key"], "value");
  // Never silently: one warning line for the kind.
  EXPECT_EQ(cluster.warnings,
            (std::vector<std::string>{
                (kData / "multi_doc.yaml").string() +
                ":40:1: ConfigMap \"shop/settings\" is not modelled by schedhost and counted for "
                "nothing: no scheduling plugin reads this kind"}));

  EXPECT_EQ(cluster.nodes[1]->allocatable(),
            (ResourceList{{"cpu", 2000}, {"memory", 4LL << 30}, {"pods", 10}}));
  EXPECT_EQ(cluster.pending_pods[1]->priority(), 10);

  Snapshot snapshot = cluster.snapshot();
  ASSERT_EQ(snapshot.size(), 2u);
  EXPECT_EQ(snapshot.at(0).pods().size(), 1u);
  EXPECT_EQ(snapshot.at(0).requested(), (ResourceList{{"cpu", 500}, {"memory", 256LL << 20}}));
  EXPECT_TRUE(snapshot.at(1).pods().empty());  // the finished pod does not count
}

TEST(ClusterFileTest, KindList) {
  Cluster cluster = load_cluster(kData / "list.yaml");
  EXPECT_EQ(names(cluster.nodes), (std::vector<std::string>{"node-a"}));
  EXPECT_EQ(keys(cluster.running_pods), (std::vector<std::string>{"data/db-0"}));
  EXPECT_EQ(cluster.running_pods[0]->uid(), "0b7c3a52-0000-4000-8000-000000000001");
  EXPECT_EQ(keys(cluster.pending_pods), (std::vector<std::string>{"data/api-0"}));
  // A list's Service is read like any other object (PodTopologySpread's default selector).
  EXPECT_TRUE(cluster.ignored.empty());
  ASSERT_EQ(cluster.objects.size(), 1u);
  EXPECT_EQ(cluster.objects[0]->resource(), "Service");
  EXPECT_EQ(cluster.objects[0]->key(), "data/db");
  EXPECT_TRUE(cluster.warnings.empty());
}

TEST(ClusterFileTest, TypedListsImplyTheirItemsKind) {
  Cluster cluster = load_cluster(kData / "typed_lists.yaml");
  EXPECT_EQ(names(cluster.nodes), (std::vector<std::string>{"node-x"}));
  EXPECT_EQ(keys(cluster.running_pods), (std::vector<std::string>{"default/x-1"}));
  EXPECT_EQ(keys(cluster.pending_pods), (std::vector<std::string>{"default/x-2"}));
  ASSERT_EQ(cluster.ignored.size(), 1u);
  EXPECT_EQ(cluster.ignored[0].kind, "AccessList");
  EXPECT_EQ(cluster.ignored[0].name, "acl");
}

TEST(ClusterFileTest, JsonFile) {
  Cluster cluster = load_cluster(kData / "cluster.json");
  EXPECT_EQ(names(cluster.nodes), (std::vector<std::string>{"node-j"}));
  EXPECT_EQ(cluster.nodes[0]->labels(), (StringMap{{"disk", "ssd"}}));
  EXPECT_EQ(cluster.nodes[0]->allocatable(),
            (ResourceList{{"cpu", 2000}, {"memory", 2LL << 30}, {"pods", 20}}));
  EXPECT_EQ(keys(cluster.running_pods), (std::vector<std::string>{"json/j-1"}));
  EXPECT_EQ(cluster.running_pods[0]->requests(),
            (ResourceList{{"cpu", 250}, {"memory", 64LL << 20}}));
  EXPECT_EQ(keys(cluster.pending_pods), (std::vector<std::string>{"json/j-2"}));
}

TEST(ClusterFileTest, DirectoryInFileNameOrder) {
  Cluster cluster = load_cluster(kData / "dir");
  // 02-pods.yml, 03-extra.json, 10-nodes.yaml; notes.txt and subdir/ are not read.
  EXPECT_EQ(names(cluster.nodes), (std::vector<std::string>{"node-3", "node-2"}));
  EXPECT_EQ(keys(cluster.running_pods), (std::vector<std::string>{"default/p-running"}));
  EXPECT_EQ(keys(cluster.pending_pods), (std::vector<std::string>{"default/p-pending"}));
  Snapshot snapshot = cluster.snapshot();
  ASSERT_NE(snapshot.find("node-2"), nullptr);
  EXPECT_EQ(snapshot.find("node-2")->requested(), (ResourceList{{"cpu", 100}}));
}

// Writes files into a fresh directory and reports load_cluster's error with that directory
// left out, so expectations read "cluster.yaml:3:5: ...".
class ClusterFileErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("schedhost-cluster-" + std::string(info->name()) + "-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }

  std::string error_of(const fs::path& path) {
    try {
      load_cluster(path);
    } catch (const InputError& e) {
      std::string message = e.what();
      const std::string prefix = dir_.string() + "/";
      for (size_t at = message.find(prefix); at != std::string::npos; at = message.find(prefix)) {
        message.erase(at, prefix.size());
      }
      return message;
    }
    return "no error";
  }

  std::string error(const std::string& text, const std::string& name = "cluster.yaml") {
    write(name, text);
    return error_of(dir_ / name);
  }

  fs::path dir_;
};

TEST_F(ClusterFileErrorTest, YamlSyntax) {
  EXPECT_EQ(
      error("kind: Pod\nmetadata:\n  name: [web\nspec: {}\n"),
      "cluster.yaml:4:5: invalid YAML: end of sequence flow not found: fix the syntax at this "
      "position");
}

TEST_F(ClusterFileErrorTest, JsonSyntax) {
  EXPECT_EQ(
      error("{\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"web\",}\n}\n", "cluster.json"),
      "cluster.json:3:30: invalid JSON: syntax error while parsing object key - unexpected '}'; "
      "expected string literal: fix the syntax at this position");
}

TEST_F(ClusterFileErrorTest, BadQuantityInPodRequests) {
  EXPECT_EQ(
      error(R"(apiVersion: v1
kind: Pod
metadata:
  name: web-1
spec:
  containers:
  - name: app
    resources:
      requests:
        cpu: abc
)"),
      "cluster.yaml:10:14: Pod \"default/web-1\": spec.containers[0].resources.requests.cpu "
      "\"abc\" is not a valid quantity: use a number with an optional suffix such as 500m or 2");
}

TEST_F(ClusterFileErrorTest, BadQuantityInAJsonFile) {
  EXPECT_EQ(
      error(R"({"kind": "List", "items": [
  {"kind": "Node", "metadata": {"name": "n"}},
  {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
   "spec": {"containers": [{"resources": {"limits": {"memory": "1 Gi"}}}]}}
]}
)",
            "cluster.json"),
      "cluster.json:4:64: Pod \"ns/p\": spec.containers[0].resources.limits.memory \"1 Gi\" is "
      "not a valid quantity: use a number with an optional suffix such as 500m or 2");
}

TEST_F(ClusterFileErrorTest, BadQuantityInAllocatable) {
  EXPECT_EQ(
      error("kind: Node\nmetadata: {name: node-a}\nstatus:\n  allocatable:\n    memory: 8GB\n"),
      "cluster.yaml:5:13: Node \"node-a\": status.allocatable.memory \"8GB\" is not a valid "
      "quantity: use a number with an optional suffix such as 500m or 2");
}

TEST_F(ClusterFileErrorTest, MissingName) {
  EXPECT_EQ(error("kind: Pod\nmetadata:\n  namespace: shop\nspec: {}\n"),
            "cluster.yaml:3:3: Pod has no metadata.name: add a name under metadata");
  EXPECT_EQ(error("---\nkind: Node\nspec: {}\n"),
            "cluster.yaml:2:1: Node has no metadata.name: add a name under metadata");
}

TEST_F(ClusterFileErrorTest, MissingKind) {
  EXPECT_EQ(
      error("kind: Node\nmetadata: {name: a}\n---\nmetadata: {name: web}\n"),
      "cluster.yaml:4:1: object \"web\" has no kind: add kind: Pod, kind: Node or kind: List");
  EXPECT_EQ(error("apiVersion: v1\nkind: List\nitems:\n- metadata: {}\n"),
            "cluster.yaml:4:3: items[0] has no kind: add kind: Pod, kind: Node or kind: List");
  EXPECT_EQ(error("kind: 7\nmetadata: {name: a}\n"),
            "cluster.yaml:1:7: kind must be a string, not a number: write kind: Pod or kind: Node");
}

TEST_F(ClusterFileErrorTest, NotAMapping) {
  EXPECT_EQ(error("kind: Node\nmetadata: {name: a}\n---\n- kind: Pod\n"),
            "cluster.yaml:4:1: document 2 is a sequence, not a Kubernetes object: write a mapping "
            "with apiVersion, kind and metadata");
  EXPECT_EQ(
      error("just some text\n"),
      "cluster.yaml:1:1: document 1 is a string, not a Kubernetes object: write a mapping with "
      "apiVersion, kind and metadata");
  EXPECT_EQ(error("kind: List\nitems:\n- 42\n"),
            "cluster.yaml:3:3: items[0] is a number, not a Kubernetes object: write a mapping with "
            "apiVersion, kind and metadata");
  EXPECT_EQ(error("kind: List\nitems: {a: 1}\n"),
            "cluster.yaml:2:8: List items must be a sequence, not a mapping: write items as a YAML "
            "list of objects");
  EXPECT_EQ(
      error("[1, 2]", "cluster.json"),
      "cluster.json:1:1: the file is a sequence, not a Kubernetes object: write a mapping with "
      "apiVersion, kind and metadata");
}

TEST_F(ClusterFileErrorTest, DuplicateNode) {
  EXPECT_EQ(
      error("kind: Node\nmetadata: {name: node-a}\n---\nkind: Node\nmetadata: {name: node-a}\n"),
      "cluster.yaml:4:1: Node \"node-a\" is defined twice (first at cluster.yaml:1:1): remove "
      "one of them or rename it");
}

TEST_F(ClusterFileErrorTest, DuplicatePodAcrossFiles) {
  write("a.yaml", "kind: Pod\nmetadata: {name: web-1}\n");
  write("b.yaml", "# again\nkind: Pod\nmetadata: {name: web-1, namespace: default}\n");
  EXPECT_EQ(error_of(dir_),
            "b.yaml:2:1: Pod \"default/web-1\" is defined twice (first at "
            "a.yaml:1:1): remove one of them or rename it");
}

TEST_F(ClusterFileErrorTest, DuplicateUid) {
  EXPECT_EQ(error("kind: Pod\nmetadata: {name: a, uid: u1}\n---\nkind: Pod\nmetadata: {name: b, "
                  "uid: u1}\n"),
            "cluster.yaml:4:1: Pod \"default/b\": uid \"u1\" is also the uid of Pod \"default/a\": "
            "give each pod its own metadata.uid");
}

// Kept as kube-scheduler's cache keeps a pod whose node was deleted first: on no node, with a
// warning (a live cluster shows this whenever a node goes before its pods).
TEST(ClusterFileTest, APodBoundToAMissingNodeCountsOnNoNodeWithAWarning) {
  const Cluster cluster = parse_cluster_text(
      "kind: Node\nmetadata: {name: node-a}\n---\nkind: Pod\nmetadata: {name: web-1}\n"
      "spec:\n  nodeName: node-z\n",
      "cluster.yaml");
  EXPECT_TRUE(cluster.running_pods.empty());
  ASSERT_EQ(cluster.unplaced_pods.size(), 1u);
  EXPECT_EQ(cluster.unplaced_pods[0]->key(), "default/web-1");
  EXPECT_EQ(cluster.warnings,
            (std::vector<std::string>{
                "cluster.yaml:7:13: Pod \"default/web-1\" is bound to node \"node-z\", which is "
                "not in the cluster: it counts on no node, as in kube-scheduler's cache while its "
                "node is gone; add the Node to count it there"}));
  EXPECT_TRUE(cluster.snapshot().at(0).pods().empty());
}

// Each unmodelled kind: one line, with its count, its first object's place, and what is
// missing; the kinds plugins read (StorageClass, Service, CSINode...) are no warning.
TEST(ClusterFileTest, UnmodelledKindsAreOneWarningLineEach) {
  const Cluster cluster = parse_cluster_text(
      "kind: StorageClass\napiVersion: storage.k8s.io/v1\nmetadata: {name: fast}\n"
      "provisioner: x\n---\n"
      "kind: Service\napiVersion: v1\nmetadata: {name: web, namespace: shop}\n---\n"
      "kind: VolumeAttachment\napiVersion: storage.k8s.io/v1\nmetadata: {name: va-1}\n---\n"
      "kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n---\n"
      "kind: VolumeAttachment\napiVersion: storage.k8s.io/v1\nmetadata: {name: va-2}\n---\n"
      "kind: CSINode\napiVersion: storage.k8s.io/v1\nmetadata: {name: node-a}\n",
      "cluster.yaml");
  EXPECT_EQ(cluster.warnings,
            (std::vector<std::string>{
                "cluster.yaml:10:1: 2 VolumeAttachments (the first \"va-1\") are not modelled by "
                "schedhost and counted for nothing: kube-scheduler v1.35's NodeVolumeLimits also "
                "counts the volumes attached to a node through VolumeAttachments; schedhost "
                "counts the volumes of the node's pods only",
                "cluster.yaml:14:1: ConfigMap \"a\" is not modelled by schedhost and counted for "
                "nothing: no scheduling plugin reads this kind"}));
  EXPECT_EQ(cluster.objects.size(), 3u);
}

TEST_F(ClusterFileErrorTest, UnsupportedApiVersion) {
  EXPECT_EQ(error("apiVersion: apps/v1\nkind: Pod\nmetadata: {name: web}\n"),
            "cluster.yaml:1:13: Pod \"web\": apiVersion \"apps/v1\" is not supported for kind Pod: "
            "use apiVersion: v1");
}

TEST_F(ClusterFileErrorTest, DuplicateYamlKey) {
  EXPECT_EQ(error("kind: Pod\nmetadata:\n  name: a\n  name: b\n"),
            "cluster.yaml:4:3: key \"name\" appears twice in this mapping: remove one of them");
}

TEST_F(ClusterFileErrorTest, RecursiveAlias) {
  EXPECT_EQ(error("kind: Pod\nmetadata: {name: a}\nspec: &loop [*loop]\n"),
            "cluster.yaml:3:7: nesting deeper than 128 levels (a recursive alias?): flatten the "
            "document");
}

TEST_F(ClusterFileErrorTest, DeepJson) {
  std::string deep =
      "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}, \"x\": " + std::string(600, '[') +
      std::string(600, ']') + "}";
  EXPECT_EQ(error(deep, "cluster.json"),
            "cluster.json: nesting deeper than 128 levels: flatten the document");
}

TEST_F(ClusterFileErrorTest, TypeErrorsPointAtTheField) {
  EXPECT_EQ(error("kind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: c\n    ports:\n"
                  "    - hostPort: eighty\n"),
            "cluster.yaml:7:17: Pod \"default/a\": spec.containers[0].ports[0].hostPort must be an "
            "integer, not \"eighty\": write a whole number");
}

TEST_F(ClusterFileErrorTest, MissingPathAndEmptyDirectory) {
  EXPECT_EQ(error_of(dir_ / "nope.yaml"),
            "nope.yaml: no such file or directory: check the cluster file path");
  write("readme.md", "not a cluster file");
  EXPECT_EQ(error_of(dir_),
            dir_.string() +
                ": no *.yaml, *.yml or *.json file in this directory: add the cluster "
                "objects, or pass a file");
}

TEST_F(ClusterFileErrorTest, EmptyFilesAreEmptyClusters) {
  write("empty.yaml", "");
  Cluster cluster = load_cluster(dir_ / "empty.yaml");
  EXPECT_TRUE(cluster.nodes.empty());
  EXPECT_TRUE(cluster.pending_pods.empty());
}

}  // namespace
}  // namespace schedhost::cluster

namespace schedhost::cluster {
namespace {

// Pods and Nodes are made on two threads ahead of the file-order pass (PremadeObjects): in a
// file large enough for the second thread, the first error in file order is the one reported,
// though a later object's constructor also threw, and a good file keeps every object in order.
class PremadeObjectsTest : public ClusterFileErrorTest {
 protected:
  static std::string list(int pods, int bad_from) {
    std::string out = "{\"kind\": \"List\", \"items\": [\n";
    out += "{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"}}";
    for (int i = 0; i < pods; ++i) {
      const std::string cpu = i >= bad_from ? "lots" : "100m";
      out += ",\n{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p" + std::to_string(i) +
             "\"}, \"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": "
             "{\"cpu\": \"" +
             cpu + "\"}}}]}}";
    }
    return out + "]}\n";
  }
};

TEST_F(PremadeObjectsTest, TheFirstBadObjectInFileOrderIsReported) {
  write("c.json", list(600, 400));  // pods 400..599 all fail
  EXPECT_EQ(error_of(dir_ / "c.json"),
            "c.json:403:119: Pod \"default/p400\": spec.containers[0].resources.requests.cpu "
            "\"lots\" is not a valid quantity: use a number with an optional suffix such as 500m "
            "or 2");
}

TEST_F(PremadeObjectsTest, AGoodFileKeepsEveryObjectInOrder) {
  write("c.json", list(600, 600));
  const Cluster cluster = load_cluster(dir_ / "c.json");
  ASSERT_EQ(cluster.nodes.size(), 1U);
  ASSERT_EQ(cluster.pending_pods.size(), 600U);
  for (int i = 0; i < 600; ++i)
    EXPECT_EQ(cluster.pending_pods[i]->name(), "p" + std::to_string(i));
  EXPECT_EQ(cluster.pending_pods[0]->requests().get("cpu"), 100);
}

}  // namespace
}  // namespace schedhost::cluster
