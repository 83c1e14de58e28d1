// Many requests in flight from one thread: a curl multi handle carries them as streams of one
// multiplexed HTTP/2 connection, as client-go multiplexes a scheduler's requests, instead of one
// blocked thread and one connection per request in flight. For writes whose answer only says
// done or not (serve's bindings and Events): the thread switch per request and the parse of an
// answer nobody reads were most of what they cost serve (docs/benchmarks.md, "Live").
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/api_client.hpp"

namespace schedhost::kube {

struct RequestLoopOptions {
  // At most this many requests are sent at once (0: no limit); the others wait their turn, in
  // order: writes without a bound would crowd out another loop's on a busy server (serve's
  // bindings its Events, which were then dropped from a full queue).
  std::size_t max_in_flight = 0;
  // The loop thread's name (name_this_thread), for telling loops apart in top and perf.
  std::string name = "requests";
  // While answers are awaited, the loop lets them gather this long before it reads them, or
  // until a request is submitted (sent at once, as without it): one pass of the loop (a wake-up,
  // a poll, a read of the connection) for several answers instead of one each. For writes whose
  // answers nobody waits for closely (Events, bindings); 0 reads every answer as it comes.
  // curl's own timers (connect and request timeouts) may run late by as much.
  std::chrono::milliseconds settle{0};
};

class RequestLoop {
 public:
  // The answer, on the loop's thread: must not block. code 0 with transport/error set when none
  // came (or "stopped" when the loop ended first).
  using Done = std::function<void(Response)>;

  // Requests are set up as client's own (server, TLS, credentials, user agent, timeout).
  explicit RequestLoop(ApiClient& client, RequestLoopOptions options = {});
  ~RequestLoop();  // stop()
  RequestLoop(const RequestLoop&) = delete;
  RequestLoop& operator=(const RequestLoop&) = delete;

  // Sends a request (after delay, for a caller's retry) and calls done with its answer, after
  // client-go's retries of a 429 or a 5xx with Retry-After (up to 10, as ApiClient::request).
  // Waits for the client's rate limiter on the calling thread. Thread-safe, the loop's included.
  void submit(std::string method, std::string path, std::string body, std::string content_type,
              Done done, std::chrono::milliseconds delay = std::chrono::milliseconds(0));

  // Ends the loop: every request queued or in flight is answered "stopped" (done runs on the
  // calling thread), later ones at once. Idempotent; not from a Done.
  void stop();

  // Requests submitted and not yet answered (the count drops just before done runs).
  std::size_t in_flight() const;

  // Times a submit() woke the loop's thread (for tests: a batch wakes it once).
  std::size_t wakeups() const;

  // While a Batch lives, submit() from the thread that made it does not wake the loop; its end
  // does, once. A caller handing over several requests at once has them sent together, in one
  // pass of the loop, instead of waking it (a system call and a thread switch) for each.
  class Batch {
   public:
    explicit Batch(RequestLoop& loop);
    ~Batch();
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

   private:
    RequestLoop& loop_;
    Batch* outer_;
    bool submitted_ = false;
    friend class RequestLoop;
  };

 private:
  struct Request;
  void run();
  void start(std::unique_ptr<Request> r);
  void finish(void* easy, int result);
  void answer(Request& r, Response response);
  void wake();

  ApiClient& client_;
  const std::size_t max_in_flight_;
  const std::chrono::milliseconds settle_;
  void* multi_;  // CURLM*
  mutable std::mutex mutex_;
  std::deque<std::unique_ptr<Request>> submitted_;  // guarded by mutex_
  std::size_t in_flight_ = 0;                       // guarded by mutex_
  bool stopping_ = false;                           // guarded by mutex_
  bool wake_sent_ = false;  // guarded by mutex_: a wake-up the loop has not yet acted on
  bool settling_ = false;   // guarded by mutex_: the loop waits on settled_, not in a poll
  std::condition_variable settled_;
  std::size_t wakeups_ = 0;  // guarded by mutex_
  // The loop thread's own:
  std::vector<std::unique_ptr<Request>> later_;  // waiting for their time (delay, Retry-After)
  std::vector<std::unique_ptr<Request>> active_;
  std::vector<void*> idle_handles_;  // CURL* kept for reuse
  std::once_flag joined_;
  std::thread thread_;
  // thread_'s id, kept apart: stop() joins thread_ (resetting its id) while submit() may read it.
  std::thread::id loop_thread_;
};

}  // namespace schedhost::kube
