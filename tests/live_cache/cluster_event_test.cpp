// Informer changes as upstream's cluster events (host/live/cluster_event.hpp): the node-update
// diff in upstream's order, and which unschedulable pods an event may help.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "live/cluster_event.hpp"

namespace schedhost::live::cluster_event_test {

using nlohmann::json;

json node_json() {
  return json::parse(R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "n1", "labels": {"zone": "a"}, "annotations": {"x": "1"}},
    "spec": {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"},
               "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "t1"}]}})");
}

std::optional<std::string> diff(const std::function<void(json&)>& change) {
  json now = node_json();
  change(now);
  return node_update_event(node_json(), now);
}

TEST(ClusterEvents, ANodeUpdateIsTheFirstMatchInUpstreamsOrder) {
  EXPECT_EQ(diff([](json& n) { n["spec"]["unschedulable"] = true; }), std::nullopt);
  json cordoned = node_json();
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_EQ(node_update_event(cordoned, node_json()), "NodeSpecUnschedulableChange");
  EXPECT_EQ(diff([](json& n) {
              n["status"]["allocatable"]["cpu"] = "4";
              n["metadata"]["labels"]["zone"] = "b";  // both: allocatable comes first
            }),
            "NodeAllocatableChange");
  EXPECT_EQ(diff([](json& n) { n["metadata"]["labels"]["zone"] = "b"; }), "NodeLabelChange");
  EXPECT_EQ(diff([](json& n) { n["spec"].erase("taints"); }), "NodeTaintChange");
  EXPECT_EQ(diff([](json& n) { n["status"]["conditions"][0]["status"] = "False"; }),
            "NodeConditionChange");
  // Not an upstream 1.28 event: only plugins that register UpdateNodeAnnotation (or all events)
  // see it.
  EXPECT_EQ(diff([](json& n) { n["metadata"]["annotations"]["x"] = "2"; }), "NodeAnnotationChange");
  // Nothing a plugin reads: no event, no pod tried again.
  EXPECT_EQ(diff([](json& n) { n["status"]["conditions"][0]["lastHeartbeatTime"] = "t2"; }),
            std::nullopt);
  EXPECT_EQ(diff([](json& n) { n["metadata"]["labels"] = json::object(); }), "NodeLabelChange");
  json no_labels = node_json();
  no_labels["metadata"].erase("labels");
  json empty_labels = no_labels;
  empty_labels["metadata"]["labels"] = json::object();
  EXPECT_EQ(node_update_event(no_labels, empty_labels), std::nullopt);  // absent equals empty
}

std::shared_ptr<const cluster::Pod> pod(const std::string& spec) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", "p"}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
            {"spec", json::parse(spec)}};
  return std::make_shared<const cluster::Pod>(std::move(p));
}

TEST(ClusterEvents, ANodeEventHelpsOnlyThePodsThatWouldPassItsPreCheck) {
  auto node =
      std::make_shared<cluster::NodeInfo>(std::make_shared<const cluster::Node>(node_json()));
  ClusterEvent added = framework::cluster_event("NodeAdd");
  added.node = node;
  const std::string tolerant =
      R"("tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}])";
  const auto spec = [&](const std::string& extra) {
    return "{\"containers\": [{\"name\": \"c\", \"image\": \"i\", \"resources\": {\"requests\": "
           "{\"cpu\": \"1\"}}}], " +
           tolerant + (extra.empty() ? "" : ", " + extra) + "}";
  };
  EXPECT_TRUE(may_help(added, *pod(spec(""))));
  EXPECT_FALSE(may_help(added, *pod(R"({"containers": [{"name": "c", "image": "i"}]})")))
      << "a NoSchedule taint it does not tolerate";
  EXPECT_FALSE(may_help(added, *pod("{\"containers\": [{\"name\": \"c\", \"image\": \"i\", "
                                    "\"resources\": {\"requests\": {\"cpu\": \"3\"}}}], " +
                                    tolerant + "}")))
      << "more cpu than the node has";
  EXPECT_FALSE(may_help(added, *pod(spec(R"("nodeSelector": {"zone": "b"})"))));
  EXPECT_TRUE(may_help(added, *pod(spec(R"("nodeSelector": {"zone": "a"})"))));
  EXPECT_FALSE(may_help(added, *pod(spec(R"("nodeName": "n2")"))));
  EXPECT_FALSE(may_help(added, *pod(spec(R"("affinity": {"nodeAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}}})"))));
}

TEST(ClusterEvents, AnAssignedPodHelpsOnlyThePodsWithRequiredAffinityToIt) {
  ClusterEvent arrived = framework::cluster_event("AssignedPodAdd");
  arrived.pod = pod(R"({"containers": []})");
  const std::string affinity_to = R"({"containers": [], "affinity": {"podAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "APP"}}, "topologyKey": "zone"}]}}})";
  auto with_app = [&](const std::string& app) {
    std::string s = affinity_to;
    s.replace(s.find("APP"), 3, app);
    return pod(s);
  };
  EXPECT_TRUE(may_help(arrived, *with_app("web")));
  EXPECT_FALSE(may_help(arrived, *with_app("db")));
  EXPECT_FALSE(may_help(arrived, *pod(R"({"containers": []})")));
  EXPECT_TRUE(
      may_help(framework::cluster_event("AssignedPodDelete"), *pod(R"({"containers": []})")));
}

}  // namespace schedhost::live::cluster_event_test
