// The informer side of serve's queue (host/live/pod_queue.hpp): a pending pod's update reaches
// the queue as upstream v1.35's events of the pod itself, and a nomination that moves or ends is
// reported with the pod as it was (upstream then retries lower-priority pods).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "config/scheduler_configuration.hpp"
#include "framework/framework.hpp"
#include "live/pod_queue.hpp"
#include "loader/plugin_registry.hpp"
#include "support/fixtures.hpp"

namespace schedhost::live::pod_queue_test {

using nlohmann::json;

class FixedClock final : public QueueClock {
 public:
  time_point now() const override { return now_; }

 private:
  time_point now_{std::chrono::seconds(1000)};
};

class PodQueueTest : public ::testing::Test {
 protected:
  PodQueueTest() {
    registry_.load_directories({{testing::builtin_plugin_dir(), true}});
    config::Profile profile;
    profile.scheduler_name = "default-scheduler";
    profile.enabled[static_cast<std::size_t>(ExtensionPoint::QueueSort)].push_back(
        {"PrioritySort", 1, {}});
    sorter_ = std::make_unique<framework::Framework>(profile, registry_);
    queue_ = std::make_unique<PodQueue>(
        *sorter_, [](const cluster::Pod&) { return std::nullopt; }, QueueOptions{}, clock_);
    queue_->set_event_worth([this](const QueuedPodInfo& info, const framework::ClusterEvent& e) {
      asked_.push_back(info.pod->name() + " " + e.label);
      return false;
    });
  }

  // The pod at resourceVersion rv, with labels and a nominated node.
  static kube::Object pod(int rv, const std::string& app, const std::string& nominated = "") {
    json p = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", "p"},
                {"namespace", "default"},
                {"uid", "uid-p"},
                {"resourceVersion", std::to_string(rv)},
                {"labels", {{"app", app}}}}},
              {"spec", {{"containers", json::array()}}}};
    if (!nominated.empty()) p["status"]["nominatedNodeName"] = nominated;
    return std::make_shared<const json>(std::move(p));
  }

  loader::PluginRegistry registry_;
  FixedClock clock_;
  std::unique_ptr<framework::Framework> sorter_;
  std::unique_ptr<PodQueue> queue_;
  std::vector<std::string> asked_;
};

TEST_F(PodQueueTest, AWaitingPodsUpdateIsJudgedAsItsOwnEvents) {
  const kube::InformerHandler handler = queue_->handler();
  handler.on_add(pod(1, "web"), true);
  queue_->apply_pending();
  PodPtr popped = queue_->pop();
  ASSERT_TRUE(popped);
  queue_->requeue_unschedulable(popped, {"InterPodAffinity"});
  handler.on_update(pod(1, "web"), pod(2, "db"));
  queue_->apply_pending();
  EXPECT_EQ(asked_, std::vector<std::string>{"p UnschedulablePodUpdatePodLabel"});
  EXPECT_EQ(queue_->queue().where("uid-p"), kUnschedulableQueue);
}

TEST_F(PodQueueTest, ANominationThatMovesOrEndsIsReportedWithThePodAsItWas) {
  const kube::InformerHandler handler = queue_->handler();
  handler.on_add(pod(1, "web"), true);
  handler.on_update(pod(1, "web"), pod(2, "web", "n1"));  // nominated: nothing moved
  handler.on_update(pod(2, "web", "n1"), pod(3, "web", "n2"));
  handler.on_update(pod(3, "web", "n2"), pod(4, "web"));
  queue_->apply_pending();
  std::vector<std::string> seen;
  for (const PodQueue::NominationChange& c : queue_->take_nomination_changes()) {
    seen.push_back((c.pod ? c.pod->nominated_node_name() : "-") + " from " +
                   (c.moved_from ? c.moved_from->nominated_node_name() : "-"));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"n1 from -", "n2 from n1", "- from n2"}));
}

// The informer's thread builds the Pod and judges an update against the version before it:
// nothing waiting for the scheduling thread holds a JSON tree.
TEST_F(PodQueueTest, WhatWaitsToBeAppliedHoldsNoTree) {
  const kube::InformerHandler handler = queue_->handler();
  const kube::Object v1 = pod(1, "web");
  const kube::Object v2 = pod(2, "db");
  handler.on_add(v1, true);
  handler.on_update(v1, v2);
  EXPECT_EQ(v1.tree().use_count(), 1);
  EXPECT_EQ(v2.tree().use_count(), 1);
  queue_->apply_pending();
  ASSERT_NE(queue_->latest("uid-p"), nullptr);
  ASSERT_NE(queue_->latest("uid-p")->labels().find("app"), nullptr);
  EXPECT_EQ(*queue_->latest("uid-p")->labels().find("app"), "db");
}

// An update of a pod the cache holds as assumed leaves the queue alone (upstream skips assumed
// pods): a PreBind plugin's write to the pod, delivered after its binding ended, does not queue
// the bound pod again. The latest version is still kept for its Events.
TEST_F(PodQueueTest, AnAssumedPodsLateUpdateDoesNotQueueItAgain) {
  std::string assumed;
  queue_->set_assumed([&](const std::string& uid) { return uid == assumed; });
  const kube::InformerHandler handler = queue_->handler();
  handler.on_add(pod(1, "web"), true);
  queue_->apply_pending();
  ASSERT_TRUE(queue_->pop());
  assumed = "uid-p";  // the cycle assumed it; its binding then ended
  queue_->done("uid-p");
  handler.on_update(pod(1, "web"), pod(2, "db"));
  queue_->apply_pending();
  EXPECT_EQ(queue_->pop(), nullptr);
  EXPECT_EQ(*queue_->latest("uid-p")->labels().find("app"), "db");
  // Once the cache no longer holds it (a binding that failed forgets it), updates count again.
  assumed.clear();
  handler.on_update(pod(2, "db"), pod(3, "api"));
  queue_->apply_pending();
  const PodPtr again = queue_->pop();
  ASSERT_TRUE(again);
  EXPECT_EQ(*again->labels().find("app"), "api");
}

// A pod the model refuses is skipped, and the next valid version is taken as the pod's first.
TEST_F(PodQueueTest, ARefusedPodIsSkippedAndItsNextVersionTaken) {
  const kube::InformerHandler handler = queue_->handler();
  json bad = *pod(1, "web");
  bad["spec"]["containers"] =
      json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "lots"}}}}}}});
  handler.on_add(std::make_shared<const json>(bad), true);
  queue_->apply_pending();
  EXPECT_EQ(queue_->latest("uid-p"), nullptr);
  handler.on_update(std::make_shared<const json>(bad), pod(2, "web"));
  queue_->apply_pending();
  ASSERT_NE(queue_->latest("uid-p"), nullptr);
  EXPECT_EQ(queue_->queue().where("uid-p"), kActiveQueue);
}

}  // namespace schedhost::live::pod_queue_test
