// Informer changes as upstream v1.35's cluster events (host/live/cluster_event.hpp): one event per
// changed node or pod property, in upstream's order, and their labels; and how a registration
// matches them (framework/cluster_event.hpp, upstream's MatchClusterEvents), including the reading
// of a library built before ABI 1.7.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

using Actions = std::vector<schedhost_action_t>;

Actions diff(const std::function<void(json&)>& change) {
  json now = node_json();
  change(now);
  return node_update_actions(node_json(), now);
}

TEST(ClusterEvents, ANodeUpdateIsOneEventPerChangedPropertyInUpstreamsOrder) {
  EXPECT_EQ(diff([](json& n) { n["spec"]["unschedulable"] = true; }), Actions{});  // cordoned
  json cordoned = node_json();
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_EQ(node_update_actions(cordoned, node_json()),
            Actions{SCHEDHOST_ACTION_UPDATE_NODE_TAINT});
  EXPECT_EQ(diff([](json& n) {
              n["metadata"]["labels"]["zone"] = "b";
              n["status"]["allocatable"]["cpu"] = "4";
              n["spec"].erase("taints");
            }),
            (Actions{SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE, SCHEDHOST_ACTION_UPDATE_NODE_LABEL,
                     SCHEDHOST_ACTION_UPDATE_NODE_TAINT}));
  // Uncordoned and untainted at once: two taint events, as upstream sends.
  json uncordoned = node_json();
  uncordoned["spec"].erase("taints");
  EXPECT_EQ(node_update_actions(cordoned, uncordoned),
            (Actions{SCHEDHOST_ACTION_UPDATE_NODE_TAINT, SCHEDHOST_ACTION_UPDATE_NODE_TAINT}));
  EXPECT_EQ(diff([](json& n) { n["status"]["conditions"][0]["status"] = "False"; }),
            Actions{SCHEDHOST_ACTION_UPDATE_NODE_CONDITION});
  EXPECT_EQ(diff([](json& n) { n["metadata"]["annotations"]["x"] = "2"; }),
            Actions{SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION});
  // Nothing a plugin reads: no event, no pod tried again.
  EXPECT_EQ(diff([](json& n) { n["status"]["conditions"][0]["lastHeartbeatTime"] = "t2"; }),
            Actions{});
  json no_labels = node_json();
  no_labels["metadata"].erase("labels");
  json empty_labels = no_labels;
  empty_labels["metadata"]["labels"] = json::object();
  EXPECT_EQ(node_update_actions(no_labels, empty_labels), Actions{});  // absent equals empty
}

// Pods as the replay keeps them (the tree) or as serve does (only the compact text), by the
// test's parameter: pod_update_actions reads both through json_at.
bool pods_keep_text = false;

cluster::Pod pod(const json& spec, const json& labels = {{"app", "web"}},
                 const json& status = json::object()) {
  json object{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "default"}}},
              {"spec", spec},
              {"status", status}};
  if (!labels.is_null()) object["metadata"]["labels"] = labels;
  if (!pods_keep_text) return cluster::Pod(std::move(object));
  return cluster::Pod(object, std::make_shared<const std::string>(object.dump()));
}

class PodUpdates : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { pods_keep_text = GetParam(); }
  void TearDown() override { pods_keep_text = false; }
};

json container(const std::string& cpu) {
  return {{"name", "c"}, {"image", "i"}, {"resources", {{"requests", {{"cpu", cpu}}}}}};
}

TEST_P(PodUpdates, AreOneEventPerChangedPropertyOrAnUpdateOfNoKind) {
  const json spec = {{"containers", {container("2")}}};
  const cluster::Pod before = pod(spec);
  EXPECT_EQ(pod_update_actions(before, pod(spec, {{"app", "db"}})),
            Actions{SCHEDHOST_ACTION_UPDATE_POD_LABEL});
  EXPECT_EQ(pod_update_actions(before, pod({{"containers", {container("1")}}})),
            Actions{SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN});
  EXPECT_EQ(pod_update_actions(before, pod({{"containers", {container("3")}}})),
            Actions{SCHEDHOST_ACTION_ANY_UPDATE})
      << "a request that grew is no particular kind";
  json gated = spec;
  gated["schedulingGates"] = {{{"name", "wait"}}};
  EXPECT_EQ(pod_update_actions(pod(gated), before),
            Actions{SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED});
  json tolerant = spec;
  tolerant["tolerations"] = {{{"key", "gpu"}, {"operator", "Exists"}}};
  EXPECT_EQ(pod_update_actions(before, pod(tolerant, {{"app", "db"}})),
            (Actions{SCHEDHOST_ACTION_UPDATE_POD_LABEL, SCHEDHOST_ACTION_UPDATE_POD_TOLERATION}));
  EXPECT_EQ(
      pod_update_actions(before, pod(spec, {{"app", "web"}},
                                     {{"resourceClaimStatuses",
                                       {{{"name", "gpu"}, {"resourceClaimName", "p-gpu"}}}}})),
      Actions{SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM});
  EXPECT_EQ(pod_update_actions(before, pod(spec, {{"app", "web"}}, {{"phase", "Running"}})),
            Actions{SCHEDHOST_ACTION_ANY_UPDATE});
  // Absent labels equal empty ones, as upstream's DeepEqual of the typed fields.
  EXPECT_EQ(pod_update_actions(pod(spec, nullptr), pod(spec, json::object())),
            Actions{SCHEDHOST_ACTION_ANY_UPDATE});
  // serve's assumed copy (bound_to patches it) against the informer's bound version.
  json bound = spec;
  bound["nodeName"] = "n1";
  EXPECT_EQ(pod_update_actions(*before.bound_to("n1"), pod(bound, {{"app", "db"}})),
            Actions{SCHEDHOST_ACTION_UPDATE_POD_LABEL});
}

INSTANTIATE_TEST_SUITE_P(TreeAndText, PodUpdates, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "KeptAsText" : "KeptAsTree";
                         });

TEST(ClusterEvents, LabelsAreV135s) {
  EXPECT_EQ(framework::node_event(SCHEDHOST_ACTION_ADD).label, "NodeAdd");
  EXPECT_EQ(framework::node_event(SCHEDHOST_ACTION_UPDATE_NODE_TAINT).label, "NodeUpdateNodeTaint");
  EXPECT_EQ(framework::assigned_pod_event(SCHEDHOST_ACTION_DELETE).label, "AssignedPodDelete");
  EXPECT_EQ(framework::assigned_pod_event(SCHEDHOST_ACTION_ANY_UPDATE).label, "AssignedPodUpdate");
  const ClusterEvent own = framework::pending_pod_event(SCHEDHOST_ACTION_UPDATE_POD_LABEL);
  EXPECT_EQ(own.label, "UnschedulablePodUpdatePodLabel");
  EXPECT_EQ(own.resource, "Pod");
  EXPECT_TRUE(own.pending_pod);
}

TEST(ClusterEvents, ARegistrationMatchesACommonBitNoMoreGeneralThanItself) {
  using framework::EventRegistration;
  using framework::registration_matches;
  const ClusterEvent label = framework::assigned_pod_event(SCHEDHOST_ACTION_UPDATE_POD_LABEL);
  const ClusterEvent no_kind = framework::assigned_pod_event(SCHEDHOST_ACTION_ANY_UPDATE);
  const EventRegistration spread{
      "Pod", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_POD_LABEL | SCHEDHOST_ACTION_DELETE};
  EXPECT_TRUE(registration_matches(spread, label));
  EXPECT_FALSE(registration_matches(spread, no_kind));
  EXPECT_TRUE(registration_matches({"Pod", SCHEDHOST_ACTION_ANY_UPDATE}, no_kind));
  EXPECT_TRUE(registration_matches({"*", SCHEDHOST_ACTION_ANY}, no_kind));
  EXPECT_FALSE(registration_matches({"Node", SCHEDHOST_ACTION_ANY}, label));
  EXPECT_FALSE(registration_matches({"Pod", SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN}, label));
}

TEST(ClusterEvents, ALibraryBuiltBefore17IsReadAsItMeantV128sBits) {
  using framework::legacy_registration;
  EXPECT_EQ(legacy_registration({"Pod", SCHEDHOST_ACTION_UPDATE}).actions,
            SCHEDHOST_ACTION_ANY_UPDATE);
  EXPECT_EQ(legacy_registration({"Pod", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE}).actions,
            SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE);
  EXPECT_EQ(legacy_registration({"Node", SCHEDHOST_ACTION_UPDATE}).actions, SCHEDHOST_ACTION_UPDATE)
      << "v1.28's node update bits are v1.35's";
  EXPECT_EQ(legacy_registration({"Node", SCHEDHOST_ACTION_ALL}).actions, SCHEDHOST_ACTION_ANY);
  const framework::LegacyView pod_view =
      framework::legacy_view(framework::assigned_pod_event(SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN));
  EXPECT_EQ(pod_view.actions, SCHEDHOST_ACTION_UPDATE);
  EXPECT_EQ(pod_view.label, "AssignedPodUpdate");
  const framework::LegacyView node_view =
      framework::legacy_view(framework::node_event(SCHEDHOST_ACTION_UPDATE_NODE_CONDITION));
  EXPECT_EQ(node_view.actions, SCHEDHOST_ACTION_UPDATE_NODE_CONDITION);
  EXPECT_EQ(node_view.label, "NodeConditionChange");
  EXPECT_EQ(framework::legacy_view(framework::assigned_pod_event(SCHEDHOST_ACTION_ADD)).label,
            "AssignedPodAdd");
}

}  // namespace schedhost::live::cluster_event_test
