// Coscheduling (plugins/examples/coscheduling) through the host, on scheduler-plugins' PodGroup
// custom resource (ABI 1.9's declared resources): gangs wait at Permit, complete gangs go together
// and their PodGroup's status is written (run applies the writes to its own objects and lists
// them), incomplete ones time out or are given up as a whole with an Event, and their room is
// freed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "example_run.hpp"
#include "support/fixtures.hpp"

namespace schedhost {
namespace {

using testing::Decision;
using ::testing::ElementsAre;
using testing::example_data;
using testing::run_example;

const std::string kProfile = example_data("coscheduling-profile.yaml");
const std::string kExamples = SCHEDHOST_EXAMPLE_PLUGIN_DIR;

TEST(Coscheduling, ACompleteGangIsScheduledTogetherWhenItsLastMemberArrives) {
  const auto run = run_example(kProfile, example_data("gang-complete.yaml"), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.process.err, "");  // the PodGroups are a declared resource: no warning
  // gang-a-1 and gang-a-2 wait; gang-a-3 completes the group, is bound, then allows them.
  EXPECT_THAT(run.decisions(),
              ElementsAre(Decision{"default/gang-a-3", "Scheduled", "node-a", ""},
                          Decision{"default/gang-a-1", "Scheduled", "node-a", ""},
                          Decision{"default/gang-a-2", "Scheduled", "node-a", ""},
                          Decision{"default/odd", "Unschedulable", "",
                                   "0/1 nodes are available: PodGroup default/gang-odd not "
                                   "found."},
                          Decision{"default/plain", "Scheduled", "node-a", ""}));
  EXPECT_EQ(run.output.at("summary").at("scheduled"), 4);
  EXPECT_EQ(run.output.at("summary").at("unschedulable"), 1);
  // Each member's PostBind wrote the status (read, then patched on its resourceVersion): three
  // writes, the last one of three members placed.
  ASSERT_EQ(run.output.at("written").size(), 1u) << run.output.dump(2);
  const nlohmann::json& written = run.output.at("written").at(0);
  EXPECT_EQ(written.at("resource"), "podgroups.v1alpha1.scheduling.x-k8s.io");
  EXPECT_EQ(written.at("object"), "default/gang-a");
  EXPECT_EQ(written.at("state").at("status"),
            nlohmann::json::parse(R"({"phase": "Scheduled", "scheduled": 3})"));
  EXPECT_EQ(written.at("state").at("metadata").at("resourceVersion"), "3");
  EXPECT_EQ(written.at("state").at("spec"), nlohmann::json::parse(R"({"minMember": 3})"));
}

TEST(Coscheduling, AnIncompleteGangHoldsItsRoomThenTimesOutAndIsRejectedAsAWhole) {
  const auto run = run_example(kProfile, example_data("gang-incomplete.yaml"), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  // web is decided while the gang waits on node-a's cpu; then the first wait expires (virtual
  // time) and Coscheduling's Unreserve rejects the rest of the gang.
  EXPECT_THAT(run.decisions(),
              ElementsAre(Decision{"default/web", "Unschedulable", "",
                                   "0/1 nodes are available: 1 Insufficient cpu."},
                          Decision{"default/gang-b-1", "Unschedulable", "",
                                   "rejected due to timeout after waiting 1m0s at plugin "
                                   "Coscheduling"},
                          Decision{"default/gang-b-2", "Unschedulable", "",
                                   "pod group default/gang-b was rejected: member gang-b-1 was "
                                   "unreserved"},
                          Decision{"default/gang-b-3", "Unschedulable", "",
                                   "pod group default/gang-b was rejected: member gang-b-1 was "
                                   "unreserved"}));
  // Each member unreserved says so in an Event about it (the first one timed out, and its
  // Unreserve rejected the two others, which were unreserved in turn).
  const auto event = [](const std::string& member, int others) {
    return nlohmann::json{
        {"plugin", "Coscheduling"},
        {"type", "Warning"},
        {"reason", "GangRejected"},
        {"message", "PodGroup default/gang-b rejected: member " + member + " was unreserved (" +
                        std::to_string(others) + " other member(s) placed, minMember 4)"}};
  };
  const nlohmann::json& pods = run.output.at("pods");
  EXPECT_EQ(pods.at(0).contains("events"), false);
  EXPECT_EQ(pods.at(1).at("events"), nlohmann::json::array({event("gang-b-1", 2)}));
  EXPECT_EQ(pods.at(2).at("events"), nlohmann::json::array({event("gang-b-2", 1)}));
  EXPECT_EQ(pods.at(3).at("events"), nlohmann::json::array({event("gang-b-3", 0)}));
  EXPECT_EQ(run.output.contains("written"), false);  // nothing was bound: no status to write
}

TEST(Coscheduling, TheTimeoutComesFromTheArgs) {
  testing::ScratchDir dir;
  std::string profile = testing::read_file(kProfile);
  const std::string from = "permitWaitingTimeSeconds: 60";
  profile.replace(profile.find(from), from.size(), "permitWaitingTimeSeconds: 90");
  const auto run = run_example(dir.write("profile.yaml", profile),
                               example_data("gang-incomplete.yaml"), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.decisions().at(1),
            (Decision{"default/gang-b-1", "Unschedulable", "",
                      "rejected due to timeout after waiting 1m30s at plugin Coscheduling"}));
}

TEST(Coscheduling, AMemberThatFitsNowhereGivesUpTheGangAndFreesItsRoom) {
  const auto run = run_example(kProfile, example_data("gang-member-does-not-fit.yaml"), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  const std::string gave_up =
      "PodGroup default/gang-c gets rejected due to Pod gang-c-3 is unschedulable even after "
      "PostFilter";
  EXPECT_THAT(
      run.decisions(),
      ElementsAre(
          Decision{"default/gang-c-3", "Unschedulable", "",
                   "0/1 nodes are available: 1 Insufficient cpu. " + gave_up},
          // The two that waited are rejected by PostFilter and unreserved: their cpu is free.
          Decision{"default/gang-c-1", "Unschedulable", "", gave_up},
          Decision{"default/gang-c-2", "Unschedulable", "", gave_up},
          Decision{"default/gang-c-4", "Unschedulable", "",
                   "0/1 nodes are available: pod group default/gang-c was rejected earlier: "
                   "member gang-c-3 is unschedulable."},
          // 3 cpu: fits only because gang-c-1 and gang-c-2 no longer hold node-a's cpu.
          Decision{"default/web", "Scheduled", "node-a", ""}));
}

// A PodGroup's scheduleTimeoutSeconds wins over the args' wait.
constexpr const char* kGangWithItsOwnTimeout = R"(apiVersion: v1
kind: Node
metadata: {name: node-a}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: gang-d, namespace: default}
spec: {minMember: 3, scheduleTimeoutSeconds: 25}
---
apiVersion: v1
kind: Pod
metadata: {name: gang-d-1, namespace: default, labels: {scheduling.x-k8s.io/pod-group: gang-d}}
spec:
  containers: [{name: worker, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: gang-d-2, namespace: default, labels: {scheduling.x-k8s.io/pod-group: gang-d}}
spec:
  containers: [{name: worker, image: busybox}]
)";

TEST(Coscheduling, APodGroupsScheduleTimeoutWinsOverTheArgs) {
  testing::ScratchDir dir;
  const auto run =
      run_example(kProfile, dir.write("cluster.yaml", kGangWithItsOwnTimeout), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.decisions().at(0),
            (Decision{"default/gang-d-1", "Unschedulable", "",
                      "rejected due to timeout after waiting 25s at plugin Coscheduling"}));
}

// A PodGroup object that is not one: run refuses the file with the object's place, as for any
// object; one without a usable minMember makes its members unschedulable, saying why.
TEST(Coscheduling, APodGroupWithoutMinMemberRejectsItsMembersAtPreFilter) {
  testing::ScratchDir dir;
  std::string cluster = kGangWithItsOwnTimeout;
  cluster.replace(cluster.find("minMember: 3, "), 14, "");
  const auto run = run_example(kProfile, dir.write("cluster.yaml", cluster), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  const std::string why =
      "0/1 nodes are available: PodGroup default/gang-d has no spec.minMember of at least 1.";
  EXPECT_THAT(run.decisions(), ElementsAre(Decision{"default/gang-d-1", "Unschedulable", "", why},
                                           Decision{"default/gang-d-2", "Unschedulable", "", why}));
}

// Another version of the kind than the one the plugin declared: one error line with its place.
TEST(Coscheduling, APodGroupOfAnotherVersionIsOneErrorLine) {
  testing::ScratchDir dir;
  std::string cluster = kGangWithItsOwnTimeout;
  cluster.replace(cluster.find("scheduling.x-k8s.io/v1alpha1"), 28, "scheduling.x-k8s.io/v1beta1");
  const std::string file = dir.write("cluster.yaml", cluster);
  const auto run = run_example(kProfile, file, kExamples);
  EXPECT_EQ(run.process.exit_code, 2);
  EXPECT_EQ(run.process.err,
            "error: " + file +
                ":7:13: PodGroup \"default/gang-d\": apiVersion \"scheduling.x-k8s.io/v1beta1\" is "
                "not supported for kind PodGroup: use apiVersion: scheduling.x-k8s.io/v1alpha1\n");
}

TEST(Coscheduling, BadArgsStopTheRunWithOneLine) {
  testing::ScratchDir dir;
  std::string profile = testing::read_file(kProfile);
  const std::string from = "permitWaitingTimeSeconds: 60";
  profile.replace(profile.find(from), from.size(), "permitWaitingTimeSeconds: 0");
  const std::string config = dir.write("profile.yaml", profile);
  const auto run = run_example(config, example_data("gang-complete.yaml"), kExamples);
  EXPECT_EQ(run.process.exit_code, 2);
  EXPECT_EQ(run.process.out, "");
  // 26:15 is where the args are in the profile.
  EXPECT_EQ(run.process.err, "error: " + config +
                                 ":26:15: plugin \"Coscheduling\": permitWaitingTimeSeconds must "
                                 "be an integer from 1 to 900, got 0\n");
}

}  // namespace
}  // namespace schedhost
