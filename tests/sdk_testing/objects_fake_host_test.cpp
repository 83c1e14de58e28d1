// The fake host's objects of other kinds, owners, claim counts and feature gates (ABI 1.8),
// driving ObjectReader (fixtures/object_reader.cpp) as a plugin author's test would.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <string>
#include <vector>

namespace {

using namespace schedhost::testing;
using Strings = std::vector<std::string>;

class ObjectsFakeHostTest : public ::testing::Test {
 protected:
  ObjectsFakeHostTest() {
    host_.add_node(FakeNode("node-a").pod(
        FakePod("db-0", "shop")
            .json("/spec/volumes",
                  {{{"name", "d"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}})));
    host_.add_object("storage.k8s.io/StorageClass",
                     {{"metadata", {{"name", "slow"}}}, {"volumeBindingMode", "Immediate"}});
    host_.add_object(
        "storage.k8s.io/StorageClass",
        {{"metadata", {{"name", "fast"}}}, {"volumeBindingMode", "WaitForFirstConsumer"}});
    for (const char* ns : {"shop", "other"}) {
      host_.add_object(
          "PersistentVolumeClaim",
          {{"metadata", {{"name", "data"}, {"namespace", ns}, {"resourceVersion", "3"}}}});
    }
    host_.add_object(
        "PersistentVolumeClaim",
        {{"metadata", {{"name", "cache"}, {"namespace", "shop"}, {"resourceVersion", "1"}}}});
    host_.add_object("Service", {{"metadata",
                                  {{"name", "web"},
                                   {"namespace", "shop"},
                                   {"uid", "u-svc"},
                                   {"labels", {{"tier", "front"}}}}}});
  }
  FakeHost host_{schedhost_plugin_library_v1()};
  FakeCycleState state_;
};

TEST_F(ObjectsFakeHostTest, APluginLooksUpObjectsByKindNamespaceAndName) {
  FakePlugin plugin = host_.create("ObjectReader");
  const FakePod pod = FakePod("web-1", "shop")
                          .json("/metadata/ownerReferences", {{{"apiVersion", "apps/v1"},
                                                               {"kind", "ReplicaSet"},
                                                               {"name", "web-7d9"},
                                                               {"uid", "u-rs"},
                                                               {"controller", true}}});
  const HookResult r = plugin.filter(state_, pod, "node-a");
  EXPECT_EQ(r.code, schedhost::Code::Unschedulable);
  // Ordered by name within a kind, as the host orders them; only the pod's namespace.
  EXPECT_EQ(r.reasons, (Strings{"classes: fast=\"WaitForFirstConsumer\" slow=\"Immediate\"",
                                "claims in shop: cache@1 data@3", "service web: front u-svc",
                                "controller ReplicaSet/web-7d9", "users 1", "gates 01"}));
  // Another namespace sees its own objects, and no Service.
  const HookResult other = plugin.filter(state_, FakePod("x", "other"), "node-a");
  EXPECT_EQ(other.reasons,
            (Strings{"classes: fast=\"WaitForFirstConsumer\" slow=\"Immediate\"",
                     "claims in other: data@3", "service web: none", "users 0", "gates 01"}));
}

TEST_F(ObjectsFakeHostTest, AnObjectAddedAgainReplacesTheFirstAndGatesCanBeSet) {
  host_.add_object("Service", {{"metadata", {{"name", "web"}, {"namespace", "shop"}}}});
  host_.set_feature_gate("StorageCapacityScoring", true);
  host_.set_feature_gate("MatchLabelKeysInPodTopologySpread", false);
  FakePlugin plugin = host_.create("ObjectReader");  // reads the gates when created
  const HookResult r = plugin.filter(state_, FakePod("web-1", "shop"), "node-a");
  EXPECT_EQ(r.reasons[2], "service web: ? ");
  EXPECT_EQ(r.reasons.back(), "gates 10");
  EXPECT_EQ(host_.object_handle("Service", "shop", "web") != nullptr, true);
  EXPECT_THROW(host_.object_handle("Service", "shop", "api"), std::invalid_argument);
}

TEST_F(ObjectsFakeHostTest, AHintSeesTheEventsObjects) {
  FakePlugin plugin = host_.create("ObjectReader");
  EXPECT_EQ(plugin.events(),
            (std::vector<EventRegistration>{{"storage.k8s.io/StorageClass",
                                             SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE}}));
  const nlohmann::json immediate = {{"metadata", {{"name", "c"}}},
                                    {"volumeBindingMode", "Immediate"}};
  const nlohmann::json waiting = {{"metadata", {{"name", "c"}}},
                                  {"volumeBindingMode", "WaitForFirstConsumer"}};
  const auto added = FakeClusterEvent::object_event("storage.k8s.io/StorageClass",
                                                    SCHEDHOST_ACTION_ADD, nullptr, waiting);
  EXPECT_EQ(added.label, "storage.k8s.io/StorageClassAdd");
  EXPECT_TRUE(plugin.queueing_hint(FakePod("p"), added).queue());
  const auto changed = FakeClusterEvent::object_event(
      "storage.k8s.io/StorageClass", SCHEDHOST_ACTION_ANY_UPDATE, immediate, waiting);
  EXPECT_EQ(changed.label, "storage.k8s.io/StorageClassUpdate");
  EXPECT_TRUE(plugin.queueing_hint(FakePod("p"), changed).queue());
  const auto same = FakeClusterEvent::object_event("storage.k8s.io/StorageClass",
                                                   SCHEDHOST_ACTION_ANY_UPDATE, waiting, waiting);
  EXPECT_FALSE(plugin.queueing_hint(FakePod("p"), same).queue());
  const auto deleted = FakeClusterEvent::object_event("storage.k8s.io/StorageClass",
                                                      SCHEDHOST_ACTION_DELETE, waiting, nullptr);
  EXPECT_FALSE(plugin.queueing_hint(FakePod("p"), deleted).queue());
  EXPECT_THROW(FakeClusterEvent::object_event("PersistentVolume", SCHEDHOST_ACTION_UPDATE_POD_LABEL,
                                              nullptr, nullptr),
               std::invalid_argument);
}

}  // namespace
