// Upstream's scheduling queue (host/live/scheduling_queue.hpp) on a fake clock: the backoff
// sequence, the move-request cycle rule, the 5-minute leftover flush, gated pods, updates, Errors.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "live/scheduling_queue.hpp"

namespace schedhost::live::scheduling_queue_test {

using std::chrono::milliseconds;
using std::chrono::seconds;

class FakeClock final : public QueueClock {
 public:
  time_point now() const override { return now_; }
  void advance(QueueClock::duration d) { now_ += d; }

 private:
  time_point now_{seconds(1000)};
};

// A pending pod; priority orders the queue, gated holds it at PreEnqueue.
PodPtr pod(const std::string& name, int priority = 0, bool gated = false) {
  nlohmann::json p = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}},
      {"spec", {{"priority", priority}, {"containers", nlohmann::json::array()}}}};
  if (gated) p["spec"]["schedulingGates"] = {{{"name", "example.com/wait"}}};
  return std::make_shared<const cluster::Pod>(std::move(p));
}

class SchedulingQueueTest : public ::testing::Test {
 protected:
  SchedulingQueue queue_{// PrioritySort: higher priority first, then the earlier timestamp.
                         [](const QueuedPodInfo& a, const QueuedPodInfo& b) {
                           if (a.pod->priority() != b.pod->priority())
                             return a.pod->priority() > b.pod->priority();
                           return a.timestamp < b.timestamp;
                         },
                         [](const cluster::Pod& p) -> std::optional<std::string> {
                           if (p.json().contains("/spec/schedulingGates"_json_pointer))
                             return "SchedulingGates";
                           return std::nullopt;
                         },
                         QueueOptions{}, clock_};
  FakeClock clock_;

  std::string pop_name() {
    std::optional<QueuedPodInfo> info = queue_.pop();
    return info ? info->pod->name() : "";
  }
  // Pops the pod and fails it: unschedulable, or with an Error.
  QueuedPodInfo pop_and_fail(bool error = false) {
    std::optional<QueuedPodInfo> info = queue_.pop();
    EXPECT_TRUE(info.has_value());
    queue_.add_unschedulable_if_not_present(*info, info->pod, error, {"NodeResourcesFit"});
    return *info;
  }
};

TEST_F(SchedulingQueueTest, PopsInQueueSortOrderThenArrival) {
  queue_.add(pod("low", 0));
  queue_.add(pod("high", 10));
  queue_.add(pod("low-later", 0));
  EXPECT_EQ(pop_name(), "high");
  EXPECT_EQ(pop_name(), "low");
  EXPECT_EQ(pop_name(), "low-later");
  EXPECT_EQ(pop_name(), "");
}

// podInitialBackoffSeconds 1, podMaxBackoffSeconds 10: 1, 2, 4, 8, 10, 10 s.
TEST_F(SchedulingQueueTest, TheBackoffSequenceDoublesUpToTheMaximum) {
  queue_.add(pod("p"));
  std::vector<std::int64_t> waited;
  for (int attempt = 1; attempt <= 6; ++attempt) {
    pop_and_fail(true);  // an Error: straight to backoffQ
    ASSERT_EQ(queue_.where("uid-p"), kBackoffQueue);
    std::int64_t ms = 0;
    while (queue_.where("uid-p") == kBackoffQueue) {
      clock_.advance(milliseconds(100));
      ms += 100;
      queue_.flush_backoff_completed();
    }
    EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
    waited.push_back(ms);
  }
  EXPECT_EQ(waited, (std::vector<std::int64_t>{1000, 2000, 4000, 8000, 10000, 10000}));
  EXPECT_EQ(queue_.backoff_of(40), seconds(10));  // no overflow however many attempts
}

TEST_F(SchedulingQueueTest, AnUnschedulablePodWaitsForAnEventThenItsBackoff) {
  queue_.add(pod("p"));
  pop_and_fail();
  EXPECT_EQ(queue_.where("uid-p"), kUnschedulableQueue);
  clock_.advance(seconds(60));
  queue_.flush_backoff_completed();
  EXPECT_EQ(queue_.where("uid-p"), kUnschedulableQueue);  // no event, no retry

  queue_.move_all("NodeAdd", {});
  EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);  // its 1 s backoff ended long ago
  pop_and_fail();
  queue_.move_all("NodeAdd", {});  // right after its second failure: 2 s of backoff first
  EXPECT_EQ(queue_.where("uid-p"), kBackoffQueue);
  clock_.advance(seconds(2));
  queue_.flush_backoff_completed();
  EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
  EXPECT_EQ((queue_.incoming().at({kActiveQueue, "NodeAdd"})), 1u);
  EXPECT_EQ((queue_.incoming().at({kBackoffQueue, "NodeAdd"})), 1u);
  EXPECT_EQ((queue_.incoming().at({kActiveQueue, "BackoffComplete"})), 1u);
}

// A pod that fails in a cycle during which a move request arrived goes to backoffQ: the event
// may have made it fit, and it was tried before the event.
TEST_F(SchedulingQueueTest, AMoveRequestDuringTheAttemptSendsTheFailureToBackoff) {
  queue_.add(pod("p"));
  std::optional<QueuedPodInfo> info = queue_.pop();
  queue_.move_all("AssignedPodDelete", {});  // while p is being tried
  queue_.add_unschedulable_if_not_present(*info, info->pod, false, {"NodeResourcesFit"});
  EXPECT_EQ(queue_.where("uid-p"), kBackoffQueue);
  EXPECT_EQ((queue_.incoming().at({kBackoffQueue, "ScheduleAttemptFailure"})), 1u);

  clock_.advance(seconds(1));
  queue_.flush_backoff_completed();
  pop_and_fail();  // no move request in this cycle
  EXPECT_EQ(queue_.where("uid-p"), kUnschedulableQueue);
}

TEST_F(SchedulingQueueTest, PodsLeftUnschedulableFor5MinutesAreRetried) {
  queue_.add(pod("p"));
  pop_and_fail();
  clock_.advance(seconds(299));
  queue_.flush_unschedulable_leftover();
  EXPECT_EQ(queue_.where("uid-p"), kUnschedulableQueue);
  clock_.advance(seconds(2));  // 301 s: more than 5 minutes
  queue_.flush_unschedulable_leftover();
  EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
  EXPECT_EQ((queue_.incoming().at({kActiveQueue, "UnschedulableTimeout"})), 1u);
}

// With no event that may help it, a pod that fits nowhere is tried by the 5-minute leftover flush
// only: at 0, about 5 min 30 s and 11 min; in 10 minutes, 2 attempts (upstream makes the same).
TEST_F(SchedulingQueueTest, AStuckPodIsTriedTwiceIn10MinutesWithoutEvents) {
  queue_.add(pod("stuck"));
  std::vector<std::int64_t> attempts_at;  // seconds since the start
  for (std::int64_t s = 0; s <= 660; ++s) {
    queue_.flush_backoff_completed();                        // every second
    if (s % 30 == 0) queue_.flush_unschedulable_leftover();  // every 30 s
    if (std::optional<QueuedPodInfo> info = queue_.pop()) {
      attempts_at.push_back(s);
      queue_.add_unschedulable_if_not_present(*info, info->pod, false, {"NodeResourcesFit"});
    }
    clock_.advance(seconds(1));
  }
  EXPECT_EQ(attempts_at, (std::vector<std::int64_t>{0, 330, 660}));
}

TEST_F(SchedulingQueueTest, AGatedPodWaitsForAnUpdateThatLiftsTheGate) {
  queue_.add(pod("g", 0, true));
  EXPECT_EQ(queue_.where("uid-g"), kGatedQueue);
  EXPECT_EQ(queue_.pending().at(kGatedQueue), 1u);
  EXPECT_EQ(queue_.pending().at(kUnschedulableQueue), 0u);
  queue_.move_all("NodeAdd", {});  // cluster events do not lift a gate
  EXPECT_EQ(queue_.where("uid-g"), kGatedQueue);
  EXPECT_EQ(pop_name(), "");
  queue_.update(pod("g", 0, true), true);  // still gated
  EXPECT_EQ(queue_.where("uid-g"), kGatedQueue);
  queue_.update(pod("g", 0, false), true);  // the gate removed
  EXPECT_EQ(queue_.where("uid-g"), kActiveQueue);
  EXPECT_EQ(pop_name(), "g");
}

TEST_F(SchedulingQueueTest, UpdatesMoveAnUnschedulablePodOnlyWhenMoreThanItsStatusChanged) {
  queue_.add(pod("p"));
  pop_and_fail();
  clock_.advance(seconds(5));
  queue_.update(pod("p"), false);  // our own condition patch, say
  EXPECT_EQ(queue_.where("uid-p"), kUnschedulableQueue);
  queue_.update(pod("p", 5), true);  // its spec changed: it may fit now
  EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
  EXPECT_EQ((queue_.incoming().at({kActiveQueue, "PodUpdate"})), 1u);

  // An update while the pod is being tried: its failure puts it straight back in activeQ.
  std::optional<QueuedPodInfo> info = queue_.pop();
  queue_.update(pod("p", 6), true);
  queue_.add_unschedulable_if_not_present(*info, pod("p", 6), false, {"NodeResourcesFit"});
  EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
}

TEST_F(SchedulingQueueTest, AnErrorGoesToBackoffAndAPodDoneOrDeletedLeaves) {
  queue_.add(pod("e"));
  pop_and_fail(true);
  EXPECT_EQ(queue_.where("uid-e"), kBackoffQueue);
  queue_.remove("uid-e");
  EXPECT_EQ(queue_.where("uid-e"), "");
  EXPECT_EQ(queue_.next_backoff_end(), std::nullopt);

  queue_.add(pod("b"));
  std::optional<QueuedPodInfo> info = queue_.pop();
  EXPECT_EQ(info->attempts, 1);
  EXPECT_EQ(queue_.where("uid-b"), "in flight");
  queue_.done("uid-b");  // bound
  EXPECT_EQ(queue_.where("uid-b"), "");
  queue_.add_unschedulable_if_not_present(*info, info->pod, false);  // too late: ignored
  EXPECT_EQ(queue_.where("uid-b"), "");
}

TEST_F(SchedulingQueueTest, TheFailedPodItselfAndPodsThePreCheckRefusesStay) {
  queue_.add(pod("a"));
  queue_.add(pod("b"));
  pop_and_fail();
  pop_and_fail();
  clock_.advance(seconds(1));
  queue_.move_all(
      "NodeAdd", [](const QueuedPodInfo& info) { return info.pod->name() != "a"; }, "");
  EXPECT_EQ(queue_.where("uid-a"), kUnschedulableQueue);
  EXPECT_EQ(queue_.where("uid-b"), kActiveQueue);
  queue_.move_all("AssignedPodDelete", {}, "uid-a");  // a binding failure of a: others only
  EXPECT_EQ(queue_.where("uid-a"), kUnschedulableQueue);
}

}  // namespace schedhost::live::scheduling_queue_test
