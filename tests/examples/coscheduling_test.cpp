// Coscheduling (plugins/examples/coscheduling) through the host: gangs wait at Permit, complete
// gangs go together, incomplete ones time out or are given up as a whole, and their room is freed.
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
  EXPECT_EQ(run.process.err, "");
  // gang-a-1 and gang-a-2 wait; gang-a-3 completes the group, is bound, then allows them.
  EXPECT_THAT(run.decisions(),
              ElementsAre(Decision{"default/gang-a-3", "Scheduled", "node-a", ""},
                          Decision{"default/gang-a-1", "Scheduled", "node-a", ""},
                          Decision{"default/gang-a-2", "Scheduled", "node-a", ""},
                          Decision{"default/odd", "Unschedulable", "",
                                   "0/1 nodes are available: pod-group.scheduling.sigs.k8s.io/"
                                   "min-available must be a positive integer, got \"two\"."},
                          Decision{"default/plain", "Scheduled", "node-a", ""}));
  EXPECT_EQ(run.output.at("summary").at("scheduled"), 4);
  EXPECT_EQ(run.output.at("summary").at("unschedulable"), 1);
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

// Two members of gang-d without a min-available of their own.
constexpr const char* kGangWithoutMin = R"(apiVersion: v1
kind: Node
metadata: {name: node-a}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: gang-d-1, namespace: default, labels: {pod-group.scheduling.sigs.k8s.io: gang-d}}
spec:
  containers: [{name: worker, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: gang-d-2, namespace: default, labels: {pod-group.scheduling.sigs.k8s.io: gang-d}}
spec:
  containers: [{name: worker, image: busybox}]
)";

TEST(Coscheduling, AMemberWithoutMinAvailableUsesTheArgsDefault) {
  testing::ScratchDir dir;
  std::string profile = testing::read_file(kProfile);
  const std::string from = "permitWaitingTimeSeconds: 60";
  profile.replace(profile.find(from), from.size(),
                  "permitWaitingTimeSeconds: 60\n          defaultMinAvailable: 2");
  const auto run = run_example(dir.write("profile.yaml", profile),
                               dir.write("cluster.yaml", kGangWithoutMin), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_THAT(run.decisions(),
              ElementsAre(Decision{"default/gang-d-2", "Scheduled", "node-a", ""},
                          Decision{"default/gang-d-1", "Scheduled", "node-a", ""}));
}

TEST(Coscheduling, AMemberWithoutAnyMinAvailableIsRejectedAtPreFilter) {
  testing::ScratchDir dir;
  const auto run = run_example(kProfile, dir.write("cluster.yaml", kGangWithoutMin), kExamples);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  const std::string why =
      "0/1 nodes are available: pod has no pod-group.scheduling.sigs.k8s.io/min-available label "
      "or annotation and args.defaultMinAvailable is not set.";
  EXPECT_THAT(run.decisions(), ElementsAre(Decision{"default/gang-d-1", "Unschedulable", "", why},
                                           Decision{"default/gang-d-2", "Unschedulable", "", why}));
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
