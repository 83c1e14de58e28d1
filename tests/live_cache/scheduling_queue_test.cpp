// Upstream's scheduling queue (host/live/scheduling_queue.hpp) on a fake clock: the backoff
// sequence, the move-request cycle rule, the 5-minute leftover flush, gated pods, updates, Errors;
// v1.35's backoff counts, error heap, whole-second windows and pops from backoffQ.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
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

// PrioritySort: higher priority first, then the earlier timestamp.
bool priority_sort(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  if (a.pod->priority() != b.pod->priority()) return a.pod->priority() > b.pod->priority();
  return a.timestamp < b.timestamp;
}

std::optional<std::string> scheduling_gates(const cluster::Pod& p) {
  if (p.json().contains("/spec/schedulingGates"_json_pointer)) return "SchedulingGates";
  return std::nullopt;
}

QueueOptions without_pop_from_backoff() {
  QueueOptions options;
  options.pop_from_backoff = false;
  return options;
}

// The queue with v1.35's defaults (SchedulerPopFromBackoffQ on); the clock starts on a whole
// second.
class SchedulingQueueTest : public ::testing::Test {
 protected:
  explicit SchedulingQueueTest(QueueOptions options = {})
      : queue_(priority_sort, scheduling_gates, options, clock_) {}

  FakeClock clock_;
  SchedulingQueue queue_;

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

// The milliseconds a pod spends in backoffQ, flushed every 100 ms.
std::int64_t ms_in_backoff(SchedulingQueue& queue, FakeClock& clock, const std::string& uid) {
  std::int64_t ms = 0;
  while (queue.where(uid) == kBackoffQueue) {
    clock.advance(milliseconds(100));
    ms += 100;
    queue.flush_backoff_completed();
  }
  return ms;
}

// podInitialBackoffSeconds 1, podMaxBackoffSeconds 10: 1, 2, 4, 8, 10, 10 s. With v1.35's windows
// the end is rounded down to its second, and that second still backs off: a pod that fails on a
// whole second leaves a second later than its backoff says.
TEST_F(SchedulingQueueTest, TheBackoffSequenceDoublesUpToTheMaximumInWholeSecondWindows) {
  queue_.add(pod("p"));
  std::vector<std::int64_t> waited;
  for (int attempt = 1; attempt <= 6; ++attempt) {
    pop_and_fail(true);  // an Error: straight to backoffQ
    ASSERT_EQ(queue_.where("uid-p"), kBackoffQueue);
    waited.push_back(ms_in_backoff(queue_, clock_, "uid-p"));
    EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
  }
  EXPECT_EQ(waited, (std::vector<std::int64_t>{2000, 3000, 5000, 9000, 11000, 11000}));
  EXPECT_EQ(queue_.backoff_of(40), seconds(10));  // no overflow however many attempts
  EXPECT_EQ(queue_.backoff_of(0), seconds(0));    // never failed: no backoff

  // Failing 300 ms into a second: the end (1.3 s later) rounds down, 1.7 s in all.
  clock_.advance(milliseconds(300));
  queue_.add(pod("q"));
  ASSERT_EQ(pop_name(), "p");
  pop_and_fail(true);
  EXPECT_EQ(ms_in_backoff(queue_, clock_, "uid-q"), 1700);
}

class QueueWithoutPopFromBackoffTest : public SchedulingQueueTest {
 protected:
  QueueWithoutPopFromBackoffTest() : SchedulingQueueTest(without_pop_from_backoff()) {}
};

// SchedulerPopFromBackoffQ=false: no windows; a pod backs off until its end has passed.
TEST_F(QueueWithoutPopFromBackoffTest, TheBackoffEndsWhenItsTimeHasPassed) {
  queue_.add(pod("p"));
  std::vector<std::int64_t> waited;
  for (int attempt = 1; attempt <= 5; ++attempt) {
    pop_and_fail(true);
    waited.push_back(ms_in_backoff(queue_, clock_, "uid-p"));
  }
  EXPECT_EQ(waited, (std::vector<std::int64_t>{1100, 2100, 4100, 8100, 10100}));
}

// v1.35 counts rejections, and Errors in a row after an Error: a pod rejected twice backs off
// 2 s; an Error then starts a new count (1 s); the next rejection is its third (4 s).
TEST_F(SchedulingQueueTest, TheBackoffCountsRejectionsOrConsecutiveErrors) {
  queue_.add(pod("p"));
  const auto fail_and_measure = [&](bool error) {
    std::optional<QueuedPodInfo> info = queue_.pop();
    EXPECT_TRUE(info.has_value());
    queue_.move_all("NodeAdd", {});  // a move request during the attempt: to backoffQ
    queue_.add_unschedulable_if_not_present(*info, info->pod, error, {"NodeResourcesFit"});
    return ms_in_backoff(queue_, clock_, "uid-p");
  };
  EXPECT_EQ(fail_and_measure(false), 2000);  // rejected once: 1 s, plus its window
  EXPECT_EQ(fail_and_measure(false), 3000);  // twice: 2 s
  EXPECT_EQ(fail_and_measure(true), 2000);   // an Error: the first of a run, 1 s
  EXPECT_EQ(fail_and_measure(true), 3000);   // the second Error in a row: 2 s
  EXPECT_EQ(fail_and_measure(false), 5000);  // rejected a third time: 4 s
}

// An empty activeQ pops the rejected pods' backoffQ early, in QueueSort order within a window;
// a pod that failed with an Error waits its backoff out.
TEST_F(SchedulingQueueTest, AnEmptyActiveQueuePopsRejectedPodsStillBackingOff) {
  queue_.add(pod("error"));
  pop_and_fail(true);
  EXPECT_EQ(pop_name(), "");  // the Errors' heap is never popped early
  EXPECT_EQ(queue_.where("uid-error"), kBackoffQueue);

  // Rejected 200 ms apart in one second, with a move request during their attempts: both back
  // off to the same window, where priority orders them.
  queue_.add(pod("low", 0));
  queue_.add(pod("high", 10));
  std::optional<QueuedPodInfo> high = queue_.pop();
  std::optional<QueuedPodInfo> low = queue_.pop();
  ASSERT_TRUE(high && low);
  queue_.move_all("NodeAdd", {});
  queue_.add_unschedulable_if_not_present(*low, low->pod, false, {"NodeResourcesFit"});
  clock_.advance(milliseconds(200));
  queue_.add_unschedulable_if_not_present(*high, high->pod, false, {"NodeResourcesFit"});
  EXPECT_EQ(queue_.where("uid-low"), kBackoffQueue);
  EXPECT_EQ(queue_.where("uid-high"), kBackoffQueue);
  EXPECT_EQ(pop_name(), "high");
  EXPECT_EQ(pop_name(), "low");
  EXPECT_EQ(pop_name(), "");
  EXPECT_EQ((queue_.incoming().at({kActiveQueue, "PopFromBackoffQ"})), 2u);
}

TEST_F(QueueWithoutPopFromBackoffTest, AnEmptyActiveQueueWaitsForTheBackoff) {
  queue_.add(pod("p"));
  std::optional<QueuedPodInfo> info = queue_.pop();
  queue_.move_all("NodeAdd", {});
  queue_.add_unschedulable_if_not_present(*info, info->pod, false, {"NodeResourcesFit"});
  EXPECT_EQ(queue_.where("uid-p"), kBackoffQueue);
  EXPECT_EQ(pop_name(), "");
}

// PreEnqueue runs when a pod enters backoffQ: a pod that is gated now waits among the gated ones
// at once (without the gate, on leaving backoffQ).
TEST_F(SchedulingQueueTest, APodGatedOnItsWayToBackoffIsHeldAtOnce) {
  queue_.add(pod("p"));
  pop_and_fail();
  queue_.update(pod("p", 0, true), true);  // a spec change while it still backs off, now gated
  EXPECT_EQ(queue_.where("uid-p"), kGatedQueue);
  EXPECT_EQ(queue_.pending().at(kBackoffQueue), 0u);
  EXPECT_EQ(queue_.pending().at(kGatedQueue), 1u);
}

TEST_F(QueueWithoutPopFromBackoffTest, APodGatedOnItsWayToBackoffIsHeldWhenItLeaves) {
  queue_.add(pod("p"));
  pop_and_fail();
  queue_.update(pod("p", 0, true), true);
  EXPECT_EQ(queue_.where("uid-p"), kBackoffQueue);
  clock_.advance(seconds(2));
  queue_.flush_backoff_completed();
  EXPECT_EQ(queue_.where("uid-p"), kGatedQueue);
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
  EXPECT_EQ(queue_.where("uid-p"), kBackoffQueue);  // its end's window (a whole second) backs off
  clock_.advance(seconds(1));
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

// An event as the judge below sees it: worth it when its label is in `worth_`.
framework::ClusterEvent labelled(const std::string& label) {
  framework::ClusterEvent e;
  e.label = label;
  e.resource = "Pod";
  e.actions = SCHEDHOST_ACTION_ANY_UPDATE;
  return e;
}

// v1.35's queue: events judged by a function standing for the rejecting plugins' hints, which
// records what it was asked.
class HintedQueueTest : public SchedulingQueueTest {
 protected:
  HintedQueueTest() {
    queue_.set_event_worth([this](const QueuedPodInfo& info, const framework::ClusterEvent& e) {
      asked_.push_back(info.pod->name() + " " + e.label);
      return worth_.count(e.label) != 0;
    });
  }
  std::set<std::string> worth_;
  std::vector<std::string> asked_;
};

TEST_F(HintedQueueTest, APendingPodsOwnUpdateMovesItOnlyWhenOneOfItsEventsIsWorthIt) {
  queue_.add(pod("p"));
  pop_and_fail();
  clock_.advance(seconds(5));
  // However much of its spec changed, it waits when no event of the update is worth it.
  queue_.update(pod("p", 5), true, {labelled("UnschedulablePodUpdatePodLabel")});
  EXPECT_EQ(asked_, std::vector<std::string>{"p UnschedulablePodUpdatePodLabel"});
  EXPECT_EQ(queue_.where("uid-p"), kUnschedulableQueue);
  // One worth it moves it, counted under that event's label, even for a status-only update.
  worth_ = {"UnschedulablePodUpdatePodToleration"};
  queue_.update(pod("p", 5), false,
                {labelled("UnschedulablePodUpdatePodLabel"),
                 labelled("UnschedulablePodUpdatePodToleration")});
  EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
  EXPECT_EQ((queue_.incoming().at({kActiveQueue, "UnschedulablePodUpdatePodToleration"})), 1u);
}

TEST_F(HintedQueueTest, APodThatFailsIsJudgedOnTheEventsThatHappenedWhileItWasTried) {
  queue_.add(pod("a"));
  queue_.add(pod("b"));
  queue_.add(pod("c"));
  queue_.move_all(labelled("NodeAdd"), {});  // before any pod is in flight: not kept
  std::optional<QueuedPodInfo> a = queue_.pop();
  queue_.move_all(labelled("NodeAdd"), {});
  std::optional<QueuedPodInfo> b = queue_.pop();
  queue_.move_all(labelled("AssignedPodDelete"), {});
  queue_.update(pod("b", 1), true, {labelled("UnschedulablePodUpdatePodLabel")});
  // a saw NodeAdd, AssignedPodDelete and b's update; none is worth it for a: it waits.
  queue_.add_unschedulable_if_not_present(*a, a->pod, false, {"NodeResourcesFit"});
  EXPECT_EQ(queue_.where("uid-a"), kUnschedulableQueue);
  EXPECT_EQ(asked_, (std::vector<std::string>{"a NodeAdd", "a AssignedPodDelete",
                                              "a UnschedulablePodUpdatePodLabel"}));
  // b saw the last two (v1.28 put an updated pod straight back in activeQ).
  worth_ = {"UnschedulablePodUpdatePodLabel"};
  asked_.clear();
  queue_.add_unschedulable_if_not_present(*b, pod("b", 1), false, {"NodeResourcesFit"});
  EXPECT_EQ(asked_,
            (std::vector<std::string>{"b AssignedPodDelete", "b UnschedulablePodUpdatePodLabel"}));
  EXPECT_EQ(queue_.where("uid-b"), kBackoffQueue);
  // Nothing in flight: the events are dropped; c sees none of them.
  asked_.clear();
  std::optional<QueuedPodInfo> c = queue_.pop();
  queue_.add_unschedulable_if_not_present(*c, c->pod, false, {"NodeResourcesFit"});
  EXPECT_EQ(asked_, std::vector<std::string>{});
  EXPECT_EQ(queue_.where("uid-c"), kUnschedulableQueue);
  // A failure without a rejecting plugin goes to backoffQ without asking.
  queue_.activate("uid-c");
  std::optional<QueuedPodInfo> again = queue_.pop();
  queue_.add_unschedulable_if_not_present(*again, again->pod, true);
  EXPECT_EQ(queue_.where("uid-c"), kBackoffQueue);
  EXPECT_EQ(asked_, std::vector<std::string>{});
}

TEST_F(SchedulingQueueTest, AnErrorGoesToBackoffAndAPodDoneOrDeletedLeaves) {
  queue_.add(pod("e"));
  pop_and_fail(true);
  EXPECT_EQ(queue_.where("uid-e"), kBackoffQueue);
  queue_.remove("uid-e");
  EXPECT_EQ(queue_.where("uid-e"), "");
  EXPECT_EQ(queue_.pending().at(kBackoffQueue), 0u);

  queue_.add(pod("b"));
  std::optional<QueuedPodInfo> info = queue_.pop();
  EXPECT_EQ(info->attempts, 1);
  EXPECT_EQ(queue_.where("uid-b"), "in flight");
  queue_.done("uid-b");  // bound
  EXPECT_EQ(queue_.where("uid-b"), "");
  queue_.add_unschedulable_if_not_present(*info, info->pod, false);  // too late: ignored
  EXPECT_EQ(queue_.where("uid-b"), "");
}

// The counts per queue, and which pods a cluster event looks at, follow every way a pod changes
// place: the queue keeps the unschedulable pods apart so an event does not walk activeQ.
TEST_F(SchedulingQueueTest, PendingCountsAndEventsFollowEveryChangeOfPlace) {
  auto counts = [&] {
    const std::map<std::string, std::size_t> p = queue_.pending();
    return std::vector<std::size_t>{p.at(kActiveQueue), p.at(kBackoffQueue),
                                    p.at(kUnschedulableQueue), p.at(kGatedQueue)};
  };
  using Counts = std::vector<std::size_t>;
  queue_.add(pod("u1", 9));
  queue_.add(pod("u2", 8));
  queue_.add(pod("err", 7));
  queue_.add(pod("gated", 0, true));
  for (int i = 0; i < 50; ++i)
    queue_.add(pod("a" + std::to_string(i)));
  EXPECT_EQ(counts(), (Counts{53, 0, 0, 1}));
  pop_and_fail();      // u1
  pop_and_fail();      // u2
  pop_and_fail(true);  // err: an Error, to backoffQ
  EXPECT_EQ(counts(), (Counts{50, 1, 2, 1}));

  queue_.remove("uid-u2");  // deleted while unschedulable
  EXPECT_EQ(counts(), (Counts{50, 1, 1, 1}));
  clock_.advance(seconds(2));
  std::size_t judged = 0;
  queue_.move_all("NodeAdd", [&](const QueuedPodInfo&) {
    ++judged;
    return true;
  });
  EXPECT_EQ(judged, 1u);  // u1 alone: not the 50 in activeQ, not the gated pod
  EXPECT_EQ(queue_.where("uid-u1"), kActiveQueue);
  EXPECT_EQ(counts(), (Counts{51, 1, 0, 1}));

  EXPECT_EQ(pop_name(), "u1");
  queue_.add_unschedulable_if_not_present(*queue_.pop(), pod("a0"), false, {"NodeResourcesFit"});
  EXPECT_EQ(counts(), (Counts{49, 1, 1, 1}));  // u1 in flight, a0 unschedulable
  queue_.activate("uid-a0");
  EXPECT_EQ(queue_.where("uid-a0"), kActiveQueue);
  queue_.add(pod("a0"));                        // a stale copy replaced
  queue_.update(pod("gated", 0, false), true);  // its gate lifted
  EXPECT_EQ(counts(), (Counts{51, 1, 0, 0}));
  judged = 0;
  queue_.move_all("NodeAdd", [&](const QueuedPodInfo&) {
    ++judged;
    return true;
  });
  EXPECT_EQ(judged, 0u);
}

TEST_F(SchedulingQueueTest, TheFailedPodItselfAndPodsThePreCheckRefusesStay) {
  queue_.add(pod("a"));
  queue_.add(pod("b"));
  pop_and_fail();
  pop_and_fail();
  clock_.advance(seconds(2));  // past the backoff's window
  queue_.move_all(
      "NodeAdd", [](const QueuedPodInfo& info) { return info.pod->name() != "a"; }, "");
  EXPECT_EQ(queue_.where("uid-a"), kUnschedulableQueue);
  EXPECT_EQ(queue_.where("uid-b"), kActiveQueue);
  queue_.move_all("AssignedPodDelete", {}, "uid-a");  // a binding failure of a: others only
  EXPECT_EQ(queue_.where("uid-a"), kUnschedulableQueue);
}

// serve's preemption gate: a preemptor held while its victims' calls run is woken by an assigned
// pod's deletion (then PreEnqueue decides again), not by other events; the plugins that rejected
// it before still decide whether the deletion is worth it.
TEST(SchedulingQueueGates, APodGatedByPreemptionIsWokenByTheEventsItsGateNames) {
  FakeClock clock;
  bool preempting = false;
  SchedulingQueue queue(
      priority_sort,
      [&](const cluster::Pod&) -> std::optional<std::string> {
        if (preempting) return "DefaultPreemption";
        return std::nullopt;
      },
      QueueOptions{}, clock);
  queue.wake_gate_on("DefaultPreemption", "AssignedPodDelete");
  queue.add(pod("p"));
  std::optional<QueuedPodInfo> info = queue.pop();
  queue.add_unschedulable_if_not_present(*info, info->pod, false, {"NodeResourcesFit"});
  clock.advance(seconds(5));
  preempting = true;
  queue.move_all("NodeAdd", {});  // moved, then held by the gate
  EXPECT_EQ(queue.where("uid-p"), kGatedQueue);
  queue.move_all("NodeAdd", {});  // the gate does not name it
  EXPECT_EQ(queue.where("uid-p"), kGatedQueue);
  const auto fit_only = [](const QueuedPodInfo& i) {
    return i.unschedulable_plugins ==
           std::set<std::string>{"DefaultPreemption", "NodeResourcesFit"};
  };
  queue.move_all("AssignedPodDelete", fit_only);  // still preempting: held again
  EXPECT_EQ(queue.where("uid-p"), kGatedQueue);
  preempting = false;
  queue.move_all("AssignedPodDelete", fit_only);
  EXPECT_EQ(queue.where("uid-p"), kActiveQueue);
}

// Upstream's Activate: a waiting pod goes to activeQ through PreEnqueue; one in flight comes back
// after its backoff however it failed.
TEST_F(SchedulingQueueTest, ActivateMovesAWaitingPodAndMarksOneInFlight) {
  queue_.add(pod("p"));
  pop_and_fail();
  EXPECT_EQ(queue_.where("uid-p"), kUnschedulableQueue);
  queue_.activate("uid-p");
  EXPECT_EQ(queue_.where("uid-p"), kActiveQueue);
  EXPECT_EQ((queue_.incoming().at({kActiveQueue, "ForceActivate"})), 1u);

  std::optional<QueuedPodInfo> info = queue_.pop();
  queue_.activate("uid-p");  // while it is tried
  queue_.add_unschedulable_if_not_present(*info, info->pod, false, {"NodeResourcesFit"});
  EXPECT_EQ(queue_.where("uid-p"), kBackoffQueue);
  queue_.activate("uid-unknown");  // nothing to do
  EXPECT_EQ(queue_.where("uid-unknown"), "");
}

}  // namespace schedhost::live::scheduling_queue_test
