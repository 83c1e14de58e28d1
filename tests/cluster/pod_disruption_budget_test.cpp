// PodDisruptionBudget objects: the model (defaults, IntOrString, disruptedPods), loading from
// cluster files (multi-document YAML, List, typed list, JSON), every refusal as one line naming
// the object, and the Snapshot's shared list with lookup by namespace/name.
#include "cluster/pod_disruption_budget.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/cluster_file.hpp"
#include "cluster/object_error.hpp"
#include "common/input_error.hpp"
#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

namespace fs = std::filesystem;
using testing::yaml;

std::shared_ptr<const PodDisruptionBudget> pdb(const std::string& text) {
  return std::make_shared<const PodDisruptionBudget>(yaml(text));
}

// The ObjectError of building a PodDisruptionBudget from text, as "pointer | message".
std::string model_error(const std::string& text) {
  try {
    PodDisruptionBudget budget(yaml(text));
  } catch (const ObjectError& e) {
    return e.pointer() + " | " + e.what();
  }
  return "no error";
}

std::vector<std::string> keys(const std::vector<std::shared_ptr<const PodDisruptionBudget>>& v) {
  std::vector<std::string> out;
  for (const auto& budget : v)
    out.push_back(budget->key());
  return out;
}

TEST(PodDisruptionBudgetTest, Defaults) {
  auto budget = pdb("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n");
  EXPECT_EQ(budget->namespace_name(), "default");
  EXPECT_EQ(budget->name(), "web");
  EXPECT_EQ(budget->key(), "default/web");
  EXPECT_TRUE(budget->selector().is_null());
  EXPECT_EQ(budget->min_available(), std::nullopt);
  EXPECT_EQ(budget->max_unavailable(), std::nullopt);
  EXPECT_EQ(budget->disruptions_allowed(), 0);
  EXPECT_TRUE(budget->disrupted_pods().empty());
  EXPECT_FALSE(budget->is_disrupted("web-1"));
  EXPECT_EQ(budget->json()["kind"], "PodDisruptionBudget");

  // An empty namespace and explicit nulls are the defaults too.
  budget =
      pdb("metadata: {name: web, namespace: \"\"}\n"
          "spec: {selector: null, minAvailable: null}\nstatus: {disruptionsAllowed: null}\n");
  EXPECT_EQ(budget->key(), "default/web");
  EXPECT_TRUE(budget->selector().is_null());
  EXPECT_EQ(budget->min_available(), std::nullopt);
  EXPECT_EQ(budget->disruptions_allowed(), 0);
}

TEST(PodDisruptionBudgetTest, KeepsTheFieldsAsGiven) {
  auto budget = pdb(R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 2
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: In, values: [front]}]
status:
  disruptionsAllowed: 1
  currentHealthy: 3
  disruptedPods:
    web-2: "2024-01-02T03:04:05Z"
    web-1: "2024-01-02T03:04:06Z"
)");
  EXPECT_EQ(budget->key(), "shop/web");
  EXPECT_EQ(budget->selector(),
            nlohmann::json::parse(R"({"matchLabels": {"app": "web"}, "matchExpressions":
                [{"key": "tier", "operator": "In", "values": ["front"]}]})"));
  ASSERT_TRUE(budget->min_available().has_value());
  EXPECT_TRUE(budget->min_available()->is_int());
  EXPECT_EQ(budget->min_available()->int_value(), 2);
  EXPECT_EQ(budget->max_unavailable(), std::nullopt);
  EXPECT_EQ(budget->disruptions_allowed(), 1);
  EXPECT_EQ(budget->disrupted_pods(), (std::vector<std::string>{"web-1", "web-2"}));
  EXPECT_TRUE(budget->is_disrupted("web-2"));
  EXPECT_FALSE(budget->is_disrupted("web-3"));
  EXPECT_EQ(budget->json()["status"]["currentHealthy"], 3);

  // A percentage stays a string (not resolved); an empty selector stays an empty mapping.
  budget = pdb("metadata: {name: db}\nspec: {maxUnavailable: \"50%\", selector: {}}\n");
  ASSERT_TRUE(budget->max_unavailable().has_value());
  EXPECT_FALSE(budget->max_unavailable()->is_int());
  EXPECT_EQ(budget->max_unavailable()->string_value(), "50%");
  EXPECT_EQ(*budget->max_unavailable(), IntOrString{"50%"});
  EXPECT_EQ(budget->min_available(), std::nullopt);
  EXPECT_EQ(budget->selector(), nlohmann::json::object());
  // A zero budget and an empty disruptedPods are fine.
  budget = pdb("metadata: {name: db}\nspec: {minAvailable: 0}\nstatus: {disruptedPods: {}}\n");
  EXPECT_EQ(*budget->min_available(), IntOrString{int64_t{0}});
  EXPECT_TRUE(budget->disrupted_pods().empty());
}

TEST(PodDisruptionBudgetTest, ModelErrorsNameTheField) {
  EXPECT_EQ(model_error("[a]"),
            " | the object must be a mapping with metadata and spec: fix the "
            "PodDisruptionBudget");
  EXPECT_EQ(model_error("spec: {}"),
            " | the object has no metadata.name: add a name under metadata");
  EXPECT_EQ(model_error("metadata: {namespace: shop}"),
            "/metadata | metadata has no name: add a name under metadata");
  EXPECT_EQ(model_error("metadata: {name: a}\nspec: {minAvailable: 1, maxUnavailable: 1}"),
            "/spec/minAvailable | spec.minAvailable and spec.maxUnavailable cannot be both set "
            "(upstream validation refuses it): keep one of them");
  EXPECT_EQ(model_error("metadata: {name: a}\nstatus: {disruptionsAllowed: -1}"),
            "/status/disruptionsAllowed | status.disruptionsAllowed -1 must not be negative: use "
            "0 or more");
}

// Writes files into a fresh directory and reports load_cluster's error with that directory
// left out, so expectations read "cluster.yaml:3:5: ...".
class PodDisruptionBudgetFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("schedhost-pdb-" + std::string(info->name()) + "-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }

  std::string error(const std::string& text, const std::string& name = "cluster.yaml") {
    const fs::path path = write(name, text);
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

  // A one-document cluster file holding one PodDisruptionBudget named shop/web with `body`
  // (spec/status lines) after its metadata.
  std::string pdb_error(const std::string& body) {
    return error(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\n"
        "  namespace: shop\n" +
        body);
  }

  fs::path dir_;
};

TEST_F(PodDisruptionBudgetFileTest, MultiDocumentYamlInFileOrder) {
  const fs::path path = write("cluster.yaml", R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
status: {disruptionsAllowed: 2}
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "1", pods: "10"}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: db}
spec: {maxUnavailable: 10%}
---
kind: PodDisruptionBudget
metadata: {name: web}
)");
  const Cluster c = load_cluster(path);
  EXPECT_EQ(keys(c.pod_disruption_budgets),
            (std::vector<std::string>{"shop/web", "default/db", "default/web"}));
  EXPECT_TRUE(c.ignored.empty());
  EXPECT_EQ(c.nodes.size(), 1u);
  EXPECT_EQ(c.pod_disruption_budgets[0]->disruptions_allowed(), 2);
  EXPECT_EQ(c.pod_disruption_budgets[0]->selector()["matchLabels"]["app"], "web");
  EXPECT_EQ(*c.pod_disruption_budgets[0]->min_available(), IntOrString{int64_t{1}});
  EXPECT_EQ(*c.pod_disruption_budgets[1]->max_unavailable(), IntOrString{"10%"});
  EXPECT_EQ(c.pod_disruption_budgets[1]->json()["apiVersion"], "policy/v1beta1");
}

TEST_F(PodDisruptionBudgetFileTest, ListsTypedListsAndJson) {
  write("a.yaml", R"(apiVersion: v1
kind: List
items:
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: one, namespace: shop}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: two, namespace: shop}
  status: {disruptedPods: {web-1: "2024-01-02T03:04:05Z"}}
)");
  write("b.yaml", R"(apiVersion: policy/v1
kind: PodDisruptionBudgetList
items:
- metadata: {name: three, namespace: shop}
  spec: {minAvailable: 50%}
)");
  write("c.json", R"({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
    "metadata": {"name": "four", "namespace": "shop"}, "spec": {"maxUnavailable": 1}})");
  const Cluster c = load_cluster(dir_);
  EXPECT_EQ(keys(c.pod_disruption_budgets),
            (std::vector<std::string>{"shop/one", "shop/two", "shop/three", "shop/four"}));
  ASSERT_EQ(c.ignored.size(), 1u);
  EXPECT_EQ(c.ignored[0].kind, "ConfigMap");
  EXPECT_TRUE(c.pod_disruption_budgets[1]->is_disrupted("web-1"));
  EXPECT_EQ(*c.pod_disruption_budgets[2]->min_available(), IntOrString{"50%"});
  EXPECT_EQ(*c.pod_disruption_budgets[3]->max_unavailable(), IntOrString{int64_t{1}});
}

TEST_F(PodDisruptionBudgetFileTest, TheSnapshotSharesThemWithLookupByNamespaceAndName) {
  const fs::path path = write("cluster.yaml", R"(kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "1", pods: "10"}}
---
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
---
kind: PodDisruptionBudget
metadata: {name: web}
status: {disruptionsAllowed: 1}
)");
  const Cluster c = load_cluster(path);
  const Snapshot s = c.snapshot();
  EXPECT_EQ(keys(s.pod_disruption_budgets()),
            (std::vector<std::string>{"shop/web", "default/web"}));
  EXPECT_EQ(s.pod_disruption_budgets()[0], c.pod_disruption_budgets[0]);  // shared, not copied
  ASSERT_NE(s.find_pod_disruption_budget("default", "web"), nullptr);
  EXPECT_EQ(s.find_pod_disruption_budget("default", "web")->disruptions_allowed(), 1);
  EXPECT_EQ(s.find_pod_disruption_budget("shop", "web"), c.pod_disruption_budgets[0].get());
  EXPECT_EQ(s.find_pod_disruption_budget("shop", "db"), nullptr);
  EXPECT_EQ(s.find_pod_disruption_budget("other", "web"), nullptr);
  EXPECT_EQ(s.find_pod_disruption_budget("", "web"), nullptr);  // no defaulting in lookups

  const Snapshot copy = s;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.find_pod_disruption_budget("shop", "web"),
            s.find_pod_disruption_budget("shop", "web"));
  EXPECT_EQ(copy.pod_disruption_budgets().size(), 2u);
  EXPECT_TRUE(c.snapshot().namespaces().empty());  // nothing else changes
}

TEST(PodDisruptionBudgetSnapshotTest, EmptyAndDuplicate) {
  Snapshot empty;
  EXPECT_TRUE(empty.pod_disruption_budgets().empty());
  EXPECT_EQ(empty.find_pod_disruption_budget("default", "web"), nullptr);

  Snapshot s;
  s.set_pod_disruption_budgets({pdb("metadata: {name: web}"), pdb("metadata: {name: db}")});
  EXPECT_EQ(keys(s.pod_disruption_budgets()),
            (std::vector<std::string>{"default/web", "default/db"}));
  EXPECT_THROW(s.set_pod_disruption_budgets({pdb("metadata: {name: web}"),
                                             pdb("metadata: {name: web, namespace: default}")}),
               std::invalid_argument);
  EXPECT_THROW(s.set_pod_disruption_budgets({nullptr}), std::invalid_argument);
  EXPECT_EQ(s.pod_disruption_budgets().size(), 2u);  // unchanged by a refused list
}

TEST_F(PodDisruptionBudgetFileTest, NoName) {
  EXPECT_EQ(
      error("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {namespace: shop}\n"),
      "cluster.yaml:3:11: PodDisruptionBudget has no metadata.name: add a name under "
      "metadata");
  EXPECT_EQ(error("kind: PodDisruptionBudget\nspec: {minAvailable: 1}\n"),
            "cluster.yaml:1:1: PodDisruptionBudget has no metadata.name: add a name under "
            "metadata");
}

TEST_F(PodDisruptionBudgetFileTest, UnsupportedApiVersion) {
  EXPECT_EQ(error("apiVersion: v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: "
                  "shop}\n"),
            "cluster.yaml:1:13: PodDisruptionBudget \"shop/web\": apiVersion \"v1\" is not "
            "supported for kind PodDisruptionBudget: use apiVersion: policy/v1");
  EXPECT_EQ(error("apiVersion: 1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n"),
            "cluster.yaml:1:13: PodDisruptionBudget \"default/web\": apiVersion 1 is not "
            "supported for kind PodDisruptionBudget: use apiVersion: policy/v1");
}

TEST_F(PodDisruptionBudgetFileTest, WrongTypes) {
  EXPECT_EQ(pdb_error("spec: [minAvailable]\n"),
            "cluster.yaml:6:7: PodDisruptionBudget \"shop/web\": spec must be a mapping (key: "
            "value pairs), not a sequence: fix its type");
  EXPECT_EQ(pdb_error("spec:\n  selector: app=web\n"),
            "cluster.yaml:7:13: PodDisruptionBudget \"shop/web\": spec.selector must be a label "
            "selector mapping (matchLabels, matchExpressions), not a string: fix its type");
  EXPECT_EQ(pdb_error("spec:\n  selector: [app]\n"),
            "cluster.yaml:7:13: PodDisruptionBudget \"shop/web\": spec.selector must be a label "
            "selector mapping (matchLabels, matchExpressions), not a sequence: fix its type");
  EXPECT_EQ(pdb_error("spec:\n  minAvailable: true\n"),
            "cluster.yaml:7:17: PodDisruptionBudget \"shop/web\": spec.minAvailable must be an "
            "integer or a percentage such as \"50%\", not a boolean: fix its type");
  EXPECT_EQ(pdb_error("spec:\n  maxUnavailable: 1.5\n"),
            "cluster.yaml:7:19: PodDisruptionBudget \"shop/web\": spec.maxUnavailable must be an "
            "integer or a percentage such as \"50%\", not 1.5: fix its type");
  EXPECT_EQ(pdb_error("spec:\n  maxUnavailable: {a: 1}\n"),
            "cluster.yaml:7:19: PodDisruptionBudget \"shop/web\": spec.maxUnavailable must be an "
            "integer or a percentage such as \"50%\", not a mapping: fix its type");
  EXPECT_EQ(pdb_error("status:\n  disruptionsAllowed: \"1\"\n"),
            "cluster.yaml:7:23: PodDisruptionBudget \"shop/web\": status.disruptionsAllowed must "
            "be an integer, not \"1\": write a whole number");
  EXPECT_EQ(pdb_error("status:\n  disruptionsAllowed: 3000000000\n"),
            "cluster.yaml:7:23: PodDisruptionBudget \"shop/web\": status.disruptionsAllowed "
            "3000000000 is too large: use at most 2147483647");
  EXPECT_EQ(pdb_error("status:\n  disruptedPods: [web-1]\n"),
            "cluster.yaml:7:18: PodDisruptionBudget \"shop/web\": status.disruptedPods must be a "
            "mapping (key: value pairs), not a sequence: fix its type");
  EXPECT_EQ(error("kind: PodDisruptionBudget\nmetadata:\n  name: web\n  namespace: [shop]\n"),
            "cluster.yaml:4:14: PodDisruptionBudget \"default/web\": metadata.namespace must be a "
            "string, not a sequence: quote the value");
}

TEST_F(PodDisruptionBudgetFileTest, NegativeDisruptionsAllowed) {
  EXPECT_EQ(pdb_error("status:\n  disruptionsAllowed: -1\n"),
            "cluster.yaml:7:23: PodDisruptionBudget \"shop/web\": status.disruptionsAllowed -1 "
            "must not be negative: use 0 or more");
}

TEST_F(PodDisruptionBudgetFileTest, BothMinAvailableAndMaxUnavailable) {
  EXPECT_EQ(pdb_error("spec:\n  minAvailable: 1\n  maxUnavailable: 50%\n"),
            "cluster.yaml:7:17: PodDisruptionBudget \"shop/web\": spec.minAvailable and "
            "spec.maxUnavailable cannot be both set (upstream validation refuses it): keep one "
            "of them");
}

TEST_F(PodDisruptionBudgetFileTest, Duplicates) {
  EXPECT_EQ(error("kind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\n---\n"
                  "kind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\n"),
            "cluster.yaml:4:1: PodDisruptionBudget \"shop/web\" is defined twice (first at "
            "cluster.yaml:1:1): remove one of them or rename it");
  // An unset namespace is "default".
  EXPECT_EQ(error("kind: PodDisruptionBudget\nmetadata: {name: web}\n---\n"
                  "kind: PodDisruptionBudget\nmetadata: {name: web, namespace: default}\n"),
            "cluster.yaml:4:1: PodDisruptionBudget \"default/web\" is defined twice (first at "
            "cluster.yaml:1:1): remove one of them or rename it");
  // The same name in another namespace, or a Pod of the same name, is another object.
  EXPECT_EQ(error("kind: PodDisruptionBudget\nmetadata: {name: web}\n---\n"
                  "kind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\n---\n"
                  "kind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c}]}\n"),
            "no error");
}

TEST_F(PodDisruptionBudgetFileTest, ErrorsInAJsonFileArePlacedToo) {
  EXPECT_EQ(error(R"({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
 "metadata": {"name": "web"},
 "status": {"disruptionsAllowed": -3}})",
                  "cluster.json"),
            "cluster.json:3:35: PodDisruptionBudget \"default/web\": status.disruptionsAllowed -3 "
            "must not be negative: use 0 or more");
}

}  // namespace
}  // namespace schedhost::cluster
