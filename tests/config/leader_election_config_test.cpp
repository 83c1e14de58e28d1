// The leaderElection block of a KubeSchedulerConfiguration (upstream's defaults, Go durations,
// upstream's rule on the three durations) and the Go duration syntax it is written in.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/go_duration.hpp"
#include "common/input_error.hpp"
#include "config/config_parser.hpp"
#include "live/leader_election.hpp"

namespace schedhost::testing::leader_election_config_test {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(GoDuration, ParsesWhatGoParses) {
  EXPECT_EQ(parse_go_duration("15s"), nanoseconds(15'000'000'000));
  EXPECT_EQ(parse_go_duration("1m30s"), nanoseconds(90'000'000'000));
  EXPECT_EQ(parse_go_duration("1.5s"), nanoseconds(1'500'000'000));
  EXPECT_EQ(parse_go_duration("250ms"), nanoseconds(250'000'000));
  EXPECT_EQ(parse_go_duration("2h"), nanoseconds(7'200'000'000'000));
  EXPECT_EQ(parse_go_duration("3us"), nanoseconds(3'000));
  EXPECT_EQ(parse_go_duration("0"), nanoseconds(0));
  EXPECT_EQ(parse_go_duration("-2s"), nanoseconds(-2'000'000'000));
  // A number without a unit, a unit without a number, an unknown unit, a double sign.
  for (const char* bad : {"", "15", "s", "15x", "1m30", "--1s", "0s0", "."}) {
    EXPECT_EQ(parse_go_duration(bad), std::nullopt) << bad;
  }
}

config::SchedulerConfiguration parse(const std::string& block) {
  return config::parse_configuration(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + block +
          "profiles:\n- schedulerName: default-scheduler\n",
      "profile.yaml");
}

TEST(LeaderElectionConfig, UpstreamsDefaultsWhenTheBlockIsAbsent) {
  const live::LeaderElectionConfig c = live::leader_election_config(parse(""));
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(c.lease_duration, milliseconds(15'000));
  EXPECT_EQ(c.renew_deadline, milliseconds(10'000));
  EXPECT_EQ(c.retry_period, milliseconds(2'000));
  EXPECT_EQ(c.resource_lock, "leases");
  EXPECT_EQ(c.name, "kube-scheduler");
  EXPECT_EQ(c.namespace_name, "kube-system");
}

TEST(LeaderElectionConfig, TheBlockOverridesThem) {
  const live::LeaderElectionConfig c = live::leader_election_config(
      parse("leaderElection:\n  leaseDuration: 4s\n  renewDeadline: 3s\n  retryPeriod: 500ms\n"
            "  resourceName: gpu-scheduler\n  resourceNamespace: schedhost\n"));
  EXPECT_EQ(c.lease_duration, milliseconds(4'000));
  EXPECT_EQ(c.renew_deadline, milliseconds(3'000));
  EXPECT_EQ(c.retry_period, milliseconds(500));
  EXPECT_EQ(c.name, "gpu-scheduler");
  EXPECT_EQ(c.namespace_name, "schedhost");
  EXPECT_FALSE(
      live::leader_election_config(parse("leaderElection:\n  leaderElect: false\n")).enabled);
}

std::string refusal(const std::string& block) {
  try {
    live::leader_election_config(parse(block));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(LeaderElectionConfig, BadValuesAreOneLineWithTheirPlace) {
  EXPECT_EQ(refusal("leaderElection:\n  leaseDuration: '15'\n"),
            "profile.yaml:4:3: leaderElection.leaseDuration: \"15\" is not a duration: write it "
            "as Kubernetes does, e.g. \"15s\"");
  EXPECT_EQ(refusal("leaderElection:\n  resourceLock: endpoints\n"),
            "profile.yaml:4:3: leaderElection: resourceLock \"endpoints\" is not supported: "
            "kube-scheduler elects its leader on a Lease, write \"leases\"");
  EXPECT_EQ(refusal("leaderElection:\n  leaseDuration: 10s\n"),
            "profile.yaml:4:3: leaderElection: leaseDuration must be greater than renewDeadline");
  EXPECT_EQ(refusal("leaderElection:\n  retryPeriod: 9s\n"),
            "profile.yaml:4:3: leaderElection: renewDeadline must be greater than 1.2 x "
            "retryPeriod");
  // Off: the durations are not checked (kube-scheduler validates them only when electing).
  EXPECT_EQ(refusal("leaderElection:\n  leaderElect: false\n  leaseDuration: 1s\n"), "");
}

}  // namespace schedhost::testing::leader_election_config_test
