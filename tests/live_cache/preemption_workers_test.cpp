// serve's asynchronous preemption (host/live/preemption_workers.hpp) with the API calls replaced
// by functions that record them and block where the test says: when a preemptor is "running
// preemption" (upstream's IsPodRunningPreemption), the order of the calls, failures handed back.
// The calls themselves are tested against the real API server (tests/serve/serve_v135_test.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "live/preemption_workers.hpp"

namespace schedhost::live::preemption_workers_test {

using nlohmann::json;

json pod(const std::string& name) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}}};
}

PreemptionJob job(const std::vector<std::string>& victims,
                  const std::vector<std::string>& nominated = {}) {
  PreemptionJob j;
  j.preemptor_uid = "uid-high";
  j.preemptor = pod("high");
  j.scheduler_name = "default-scheduler";
  j.node = "node-1";
  j.plugin = "DefaultPreemption";
  for (const std::string& v : victims)
    j.victims.push_back(pod(v));
  for (const std::string& n : nominated)
    j.nominated_pods.push_back(pod(n));
  return j;
}

// Records every call; a call for `hold` waits until release(); a call for `fail` throws.
class Calls {
 public:
  std::string hold;
  std::string fail;

  void call(const std::string& what, const json& pod) {
    const std::string name = pod["metadata"]["name"];
    std::unique_lock lock(mutex_);
    made_.push_back(what + " " + name);
    changed_.notify_all();
    if (name == hold) changed_.wait(lock, [this] { return released_; });
    if (name == fail) throw std::runtime_error("the API server said 500");
  }
  void wait_for(std::size_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return made_.size() >= n; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  std::vector<std::string> made() {
    std::lock_guard lock(mutex_);
    return made_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> made_;
  bool released_ = false;
};

class PreemptionWorkersTest : public ::testing::Test {
 protected:
  Calls calls_;
  PreemptionWorkers workers_{
      2, [this](const PreemptionJob&, const json& victim) { calls_.call("evict", victim); },
      [this](const PreemptionJob&, const json& pod) { calls_.call("clear", pod); }};

  std::optional<std::string> running(bool last_victim_going) {
    return workers_.running("uid-high", [&](const std::string&) { return last_victim_going; });
  }
};

TEST_F(PreemptionWorkersTest, APreemptorRunsPreemptionUntilItsLastVictimIsGoing) {
  calls_.hold = "b";  // the first victim's eviction is slow
  workers_.start(job({"b", "c"}, {"mid"}));
  calls_.wait_for(2);
  // Before the last victim's eviction has begun, whatever the informer says: it waits.
  EXPECT_EQ(running(true), "DefaultPreemption");
  EXPECT_EQ(workers_.in_flight(), 1u);
  calls_.release();
  ASSERT_TRUE(workers_.wait_idle(std::chrono::seconds(10)));
  EXPECT_EQ(running(false), std::nullopt);  // done: nothing to wait for
  EXPECT_EQ(calls_.made(), (std::vector<std::string>{"clear mid", "evict b", "evict c"}));
  EXPECT_TRUE(workers_.take_failed().empty());
}

TEST_F(PreemptionWorkersTest, DuringTheLastEvictionTheInformerDecides) {
  calls_.hold = "c";
  workers_.start(job({"b", "c"}));
  calls_.wait_for(2);
  EXPECT_EQ(running(false), "DefaultPreemption");  // c not yet deleted nor being deleted
  EXPECT_EQ(running(true), std::nullopt);          // c is being deleted: the room is coming
  EXPECT_EQ(workers_.running("uid-other", [](const std::string&) { return false; }), std::nullopt);
  calls_.release();
  ASSERT_TRUE(workers_.wait_idle(std::chrono::seconds(10)));
}

TEST_F(PreemptionWorkersTest, AFailedCallHandsThePreemptorBackAndTheOtherVictimsStillGo) {
  calls_.fail = "b";
  workers_.start(job({"b", "c"}));
  ASSERT_TRUE(workers_.wait_idle(std::chrono::seconds(10)));
  EXPECT_EQ(calls_.made(), (std::vector<std::string>{"evict b", "evict c"}));
  EXPECT_EQ(workers_.take_failed(), (std::vector<std::string>{"uid-high"}));
  EXPECT_TRUE(workers_.take_failed().empty());
}

TEST_F(PreemptionWorkersTest, AJobWithoutVictimsIsNotStarted) {
  workers_.start(job({}, {"mid"}));  // every victim was already being deleted
  EXPECT_EQ(workers_.in_flight(), 0u);
  EXPECT_EQ(running(false), std::nullopt);
  EXPECT_TRUE(calls_.made().empty());
}

// SchedulerAsyncPreemption=false: the same calls on the calling thread, the preemptor never
// "running preemption".
TEST_F(PreemptionWorkersTest, RunHereMakesTheCallsInOrderOnTheCallingThread) {
  calls_.fail = "b";
  EXPECT_FALSE(workers_.run_here(job({"b", "c"}, {"mid"})));
  EXPECT_EQ(calls_.made(), (std::vector<std::string>{"clear mid", "evict b", "evict c"}));
  EXPECT_EQ(running(false), std::nullopt);
  EXPECT_EQ(workers_.in_flight(), 0u);
  EXPECT_TRUE(workers_.take_failed().empty());  // the caller has the answer
  calls_.fail.clear();
  EXPECT_TRUE(workers_.run_here(job({"d"})));
}

}  // namespace schedhost::live::preemption_workers_test
