// Every field of a Pod, Node, Namespace, PodDisruptionBudget and profile, replaced in turn by a
// value of each other JSON type: the file is either still accepted (a field the host keeps
// without modelling it, or a scalar read as text the way the API server's string fields take a
// YAML 123) or refused with exactly one line that starts with file:line:column and names the
// field. Nothing crashes. Each modelled field must be refused for at least the container types.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

using nlohmann::json;

const json kPod = json::parse(R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "namespace": "shop", "uid": "u1", "labels": {"app": "web"},
               "annotations": {"a": "b"}, "creationTimestamp": "2024-01-02T03:04:05Z"},
  "spec": {
    "schedulerName": "default-scheduler", "priorityClassName": "high", "priority": 10,
    "preemptionPolicy": "Never", "nodeSelector": {"disk": "ssd"},
    "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute",
                     "tolerationSeconds": 30}],
    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}]}},
    "overhead": {"cpu": "10m"},
    "initContainers": [{"name": "init", "image": "busybox", "restartPolicy": "Always",
                        "resources": {"requests": {"cpu": "100m"}}}],
    "containers": [{"name": "c", "image": "nginx",
                    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"},
                                  "limits": {"cpu": "1"}},
                    "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP",
                               "hostIP": "0.0.0.0"}]}]},
  "status": {"phase": "Pending", "nominatedNodeName": "", "startTime": "2024-01-02T03:04:05Z"}
})");

const json kNode = json::parse(R"({
  "apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "node-a", "labels": {"zone": "z1"}},
  "spec": {"unschedulable": false, "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
  "status": {"capacity": {"cpu": "4"}, "allocatable": {"cpu": "4", "memory": "8Gi", "pods": 110},
             "images": [{"names": ["nginx:1.25"], "sizeBytes": 1000}]}
})");

const json kNamespace = json::parse(R"({
  "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"team": "a"}}
})");

const json kPdb = json::parse(R"({
  "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
  "metadata": {"name": "p", "namespace": "shop"},
  "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
  "status": {"disruptionsAllowed": 1, "disruptedPods": {"web-0": "2024-01-02T03:04:05Z"}}
})");

const json kProfile = json::parse(R"({
  "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
  "parallelism": 8, "percentageOfNodesToScore": 50, "podInitialBackoffSeconds": 1,
  "podMaxBackoffSeconds": 10,
  "profiles": [{"schedulerName": "s", "percentageOfNodesToScore": 40,
                "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 2}],
                                      "disabled": [{"name": "*"}]}},
                "pluginConfig": [{"name": "NodeResourcesFit", "args": {"a": 1}}]}]
})");

const std::vector<json> kWrongValues = {"text", 7, 2.5, true, json::array(), json::object()};

bool same_kind(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return true;
  return a.type() == b.type();
}

// Every value below the root, as (pointer, kubectl path, leaf name).
struct Field {
  std::string pointer;
  std::string path;
  std::string leaf;
};

void collect(const json& value, const std::string& pointer, const std::string& path,
             std::vector<Field>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      std::string escaped;  // RFC 6901: "~" -> "~0", "/" -> "~1"
      for (char c : key)
        escaped += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
      std::string child_path = path.empty() ? key : path + "." + key;
      out.push_back({pointer + "/" + escaped, child_path, key});
      collect(child, pointer + "/" + escaped, child_path, out);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      std::string child_path = path + "[" + std::to_string(i) + "]";
      out.push_back({pointer + "/" + std::to_string(i), child_path, ""});
      collect(value[i], pointer + "/" + std::to_string(i), child_path, out);
    }
  }
}

struct Outcome {
  std::string field;
  std::string replacement;
  std::string error;  // kAccepted when accepted
};

std::vector<Outcome> mutate_all(const json& sample, const std::string& file,
                                const std::function<std::string(const std::string&)>& parse) {
  std::vector<Field> fields;
  collect(sample, "", "", fields);
  std::vector<Outcome> outcomes;
  for (const Field& field : fields) {
    const json& original = sample.at(json::json_pointer(field.pointer));
    for (const json& wrong : kWrongValues) {
      if (same_kind(original, wrong)) continue;
      json mutated = sample;
      mutated.at(json::json_pointer(field.pointer)) = wrong;
      std::string error = parse(mutated.dump(2));
      outcomes.push_back({field.path, wrong.dump(), error});
      if (error == kAccepted) continue;
      SCOPED_TRACE(field.path + " = " + wrong.dump());
      EXPECT_EQ(error.find('\n'), std::string::npos) << error;
      EXPECT_THAT(error, ::testing::MatchesRegex(file + ":[0-9]+:[0-9]+: .*"));
      // Names the field: its path, or (for a list item or a key read by name) its parent's.
      std::string parent = field.path.substr(0, field.path.find_last_of(".["));
      std::string parent_leaf = parent.substr(parent.find_last_of(".") + 1);
      bool names_it = error.find(field.path) != std::string::npos ||
                      (!field.leaf.empty() && error.find(field.leaf) != std::string::npos) ||
                      error.find(parent) != std::string::npos ||
                      error.find(parent_leaf) != std::string::npos;
      EXPECT_TRUE(names_it) << error;
    }
  }
  return outcomes;
}

std::set<std::string> refused_fields(const std::vector<Outcome>& outcomes) {
  std::set<std::string> out;
  for (const Outcome& o : outcomes) {
    if (o.error != kAccepted) out.insert(o.field);
  }
  return out;
}

std::set<std::string> accepted_container_replacements(const std::vector<Outcome>& outcomes) {
  std::set<std::string> out;
  for (const Outcome& o : outcomes) {
    if (o.error == kAccepted && (o.replacement == "[]" || o.replacement == "{}")) {
      out.insert(o.field + " = " + o.replacement);
    }
  }
  return out;
}

std::string cluster_of(const std::string& text) {
  return cluster_error(text, "c.json");
}

TEST(WrongTypeTest, PodFields) {
  auto outcomes = mutate_all(kPod, "c.json", cluster_of);
  // Every modelled field refuses a mapping or a list in its place. The exceptions are fields the
  // host keeps for plugins without reading them: pod affinity terms (InterPodAffinity reads
  // them through the JSON accessor) and containerPort.
  const std::string term =
      "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
  EXPECT_THAT(accepted_container_replacements(outcomes),
              ::testing::IsSubsetOf(std::set<std::string>{
                  term + " = []",
                  term + ".labelSelector = []",
                  term + ".labelSelector.matchLabels = []",
                  term + ".labelSelector.matchLabels.app = []",
                  term + ".labelSelector.matchLabels.app = {}",
                  term + ".topologyKey = []",
                  term + ".topologyKey = {}",
                  "spec.containers[0].ports[0].containerPort = []",
                  "spec.containers[0].ports[0].containerPort = {}",
              }));
  EXPECT_THAT(refused_fields(outcomes),
              ::testing::IsSupersetOf({"spec.priority", "spec.containers",
                                       "spec.containers[0].resources.requests.cpu",
                                       "spec.containers[0].ports[0].hostPort", "spec.tolerations",
                                       "metadata.labels", "spec.nodeSelector", "kind"}));
}

TEST(WrongTypeTest, NodeFields) {
  auto outcomes = mutate_all(kNode, "c.json", cluster_of);
  EXPECT_THAT(
      refused_fields(outcomes),
      ::testing::IsSupersetOf({"spec.unschedulable", "spec.taints", "status.allocatable.cpu",
                               "status.allocatable", "metadata.labels", "status.images"}));
}

TEST(WrongTypeTest, NamespaceAndPodDisruptionBudgetFields) {
  auto ns = mutate_all(kNamespace, "c.json", cluster_of);
  EXPECT_THAT(refused_fields(ns), ::testing::IsSupersetOf({"metadata.labels"}));
  auto pdb = mutate_all(kPdb, "c.json", cluster_of);
  EXPECT_THAT(refused_fields(pdb),
              ::testing::IsSupersetOf({"spec.selector", "status.disruptionsAllowed"}));
}

TEST(WrongTypeTest, ProfileFields) {
  auto outcomes = mutate_all(kProfile, "profile.json",
                             [](const std::string& t) { return profile_error(t, "profile.json"); });
  EXPECT_THAT(refused_fields(outcomes),
              ::testing::IsSupersetOf({"parallelism", "profiles", "profiles[0].plugins",
                                       "profiles[0].plugins.score.enabled[0].weight",
                                       "profiles[0].pluginConfig[0].args"}));
}

}  // namespace
}  // namespace schedhost::hostile
