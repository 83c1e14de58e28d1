// RequestLoop without a server: a refused request is answered with the transport error, a
// delayed one is not sent before its time, and stop() answers what is left "stopped", then every
// later submit at once. And the retry rule the loop shares with ApiClient.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "closed_port.hpp"
#include "kube/request_loop.hpp"

namespace schedhost::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Collects answers as the loop's thread delivers them.
class Answers {
 public:
  kube::RequestLoop::Done collect() {
    return [this](kube::Response r) {
      std::lock_guard lock(mutex_);
      got_.push_back({std::move(r), Clock::now()});
      changed_.notify_all();
    };
  }
  // Waits up to 10 s for n answers; returns them.
  std::vector<std::pair<kube::Response, Clock::time_point>> wait_for(std::size_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return got_.size() >= n; });
    return got_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::pair<kube::Response, Clock::time_point>> got_;
};

kube::ClientConfig refusing() {
  kube::ClientConfig config;
  config.server = refusing_server();
  return config;
}

// client-go's rule, shared by ApiClient::request and the loop: a 429, or a 5xx that says
// Retry-After, is sent again after Retry-After (1..10 s), at most ten times.
TEST(RetryDelay, TooManyRequestsOrA5xxWithRetryAfterUpToTenTimes) {
  const auto answer = [](long code, long retry_after) {
    kube::Response r;
    r.code = code;
    r.retry_after_s = retry_after;
    return r;
  };
  using std::chrono::seconds;
  EXPECT_EQ(kube::ApiClient::retry_delay(answer(429, -1), 0), seconds(1));
  EXPECT_EQ(kube::ApiClient::retry_delay(answer(429, 3), 9), seconds(3));
  EXPECT_EQ(kube::ApiClient::retry_delay(answer(503, 30), 0), seconds(10));
  EXPECT_EQ(kube::ApiClient::retry_delay(answer(429, 3), 10), std::nullopt);
  EXPECT_EQ(kube::ApiClient::retry_delay(answer(500, -1), 0), std::nullopt);
  EXPECT_EQ(kube::ApiClient::retry_delay(answer(409, 5), 0), std::nullopt);
  EXPECT_EQ(kube::ApiClient::retry_delay(answer(0, -1), 0), std::nullopt);
}

TEST(RequestLoop, ARefusedRequestIsAnsweredWithTheTransportError) {
  kube::ApiClient client(refusing());
  kube::RequestLoop loop(client, {.max_in_flight = 2});
  Answers answers;
  for (int i = 0; i < 5; ++i)  // more than may be in flight at once: the rest wait their turn
    loop.submit("POST", "/api/v1/namespaces/default/events", "{}", "application/json",
                answers.collect());
  const auto got = answers.wait_for(5);
  ASSERT_EQ(got.size(), 5u);
  for (const auto& [r, at] : got) {
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.transport, 7);  // CURLE_COULDNT_CONNECT
    EXPECT_NE(r.error.find("onnect"), std::string::npos) << r.error;
  }
  EXPECT_EQ(loop.in_flight(), 0u);
  const kube::ApiError e = kube::ApiClient::error_of("POST", "/x", got[0].first);
  EXPECT_EQ(e.code(), 0);
  EXPECT_TRUE(e.transient());
}

TEST(RequestLoop, ADelayedRequestWaitsItsTime) {
  kube::ApiClient client(refusing());
  kube::RequestLoop loop(client);
  Answers answers;
  const Clock::time_point start = Clock::now();
  loop.submit("GET", "/version", "", "", answers.collect(), std::chrono::milliseconds(300));
  const auto got = answers.wait_for(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_GE(got[0].second - start, std::chrono::milliseconds(300));
}

// With a settle time, answers in flight are read only once it has passed since the loop last
// looked: a refused connection, noticed within a millisecond, is answered after 300 ms. (The
// requests are handed over in one Batch: a request submitted later would end the wait.)
TEST(RequestLoop, WithASettleTimeAnswersAreReadOnceItPassed) {
  kube::ApiClient client(refusing());
  kube::RequestLoop loop(client, {.settle = std::chrono::milliseconds(300)});
  Answers answers;
  const Clock::time_point start = Clock::now();
  {
    kube::RequestLoop::Batch batch(loop);
    for (int i = 0; i < 3; ++i)
      loop.submit("POST", "/api/v1/namespaces/default/events", "{}", "application/json",
                  answers.collect());
  }
  const auto got = answers.wait_for(3);
  ASSERT_EQ(got.size(), 3u);
  for (const auto& [r, at] : got) {
    EXPECT_EQ(r.transport, 7);  // CURLE_COULDNT_CONNECT
    EXPECT_GE(at - start, std::chrono::milliseconds(300));
  }
}

// A request submitted while answers settle ends the wait: it is sent at once, and the answers
// that came meanwhile are read in the same pass. stop() ends the wait too.
TEST(RequestLoop, ARequestSubmittedWhileAnswersSettleEndsTheWait) {
  kube::ApiClient client(refusing());
  auto loop = std::make_unique<kube::RequestLoop>(
      client, kube::RequestLoopOptions{.settle = std::chrono::seconds(20)});
  Answers answers;
  const Clock::time_point start = Clock::now();
  loop->submit("POST", "/first", "{}", "application/json", answers.collect());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  loop->submit("POST", "/second", "{}", "application/json", answers.collect());
  const auto got = answers.wait_for(1);
  ASSERT_GE(got.size(), 1u);
  EXPECT_LT(got[0].second - start, std::chrono::seconds(10));
  loop->stop();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(answers.wait_for(2).size(), 2u);
}

// The loop's thread carries its name for top -H and perf, "sh-" first and cut to the 15 bytes
// Linux keeps (a longer name would be refused whole).
TEST(RequestLoop, ItsThreadIsNamedForTopAndPerf) {
  const auto names = [] {
    std::vector<std::string> out;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream comm(task.path() / "comm");
      std::string name;
      std::getline(comm, name);
      out.push_back(name);
    }
    return out;
  };
  kube::ApiClient client(refusing());
  kube::RequestLoop loop(client, {.name = "a-long-loop-name"});
  const auto found = [&] {
    const std::vector<std::string> all = names();
    return std::find(all.begin(), all.end(), "sh-a-long-loop-") != all.end();
  };
  // The thread names itself as it starts.
  for (int i = 0; i < 200 && !found(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(found());
}

TEST(RequestLoop, StopAnswersWhatIsLeftThenEveryLaterSubmitAtOnce) {
  kube::ApiClient client(refusing());
  kube::RequestLoop loop(client);
  Answers answers;
  loop.submit("GET", "/version", "", "", answers.collect(), std::chrono::seconds(30));
  loop.submit("GET", "/version", "", "", answers.collect(), std::chrono::seconds(30));
  EXPECT_EQ(loop.in_flight(), 2u);
  const Clock::time_point start = Clock::now();
  loop.stop();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  auto got = answers.wait_for(2);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& [r, at] : got) {
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.error, "the request loop stopped before the answer came");
  }
  EXPECT_EQ(loop.in_flight(), 0u);
  loop.submit("GET", "/version", "", "", answers.collect());
  got = answers.wait_for(3);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].first.error, "the request loop stopped before the answer came");
  loop.stop();  // idempotent
}

// Requests submitted inside a Batch wake the loop's thread once, when the batch ends, however
// far apart they came (each 20 ms: a loop woken per request would have taken each alone).
TEST(RequestLoop, ABatchWakesTheLoopOnceWhenItEnds) {
  kube::ApiClient client(refusing());
  kube::RequestLoop loop(client);
  Answers answers;
  {
    kube::RequestLoop::Batch batch(loop);
    for (int i = 0; i < 5; ++i) {
      loop.submit("GET", "/version", "", "", answers.collect());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  EXPECT_EQ(answers.wait_for(5).size(), 5u);
  EXPECT_EQ(loop.wakeups(), 1u);
}

// A request submitted from an answer (on the loop's own thread) needs no wake-up, and does not
// wait for the loop's poll to time out (up to a second) either: five in a chain, well under one.
TEST(RequestLoop, ARequestSubmittedFromAnAnswerIsSentWithoutAWakeUp) {
  kube::ApiClient client(refusing());
  kube::RequestLoop loop(client);
  Answers answers;
  int left = 4;
  kube::RequestLoop::Done next;
  const kube::RequestLoop::Done collect = answers.collect();
  next = [&](kube::Response r) {
    if (left-- > 0) loop.submit("GET", "/version", "", "", next);
    collect(std::move(r));
  };
  const Clock::time_point start = Clock::now();
  loop.submit("GET", "/version", "", "", next);
  const auto got = answers.wait_for(5);
  ASSERT_EQ(got.size(), 5u);
  EXPECT_LT(got.back().second - start, std::chrono::milliseconds(800));
  EXPECT_EQ(loop.wakeups(), 1u);
}

}  // namespace
}  // namespace schedhost::testing
