#include "kube/request_loop.hpp"

#include <curl/curl.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/thread_name.hpp"
#include "kube/curl_exchange.hpp"

namespace schedhost::kube {

using Clock = std::chrono::steady_clock;

struct RequestLoop::Request {
  ApiClient::Exchange exchange;
  std::string content_type;
  Done done;
  Clock::time_point not_before;
  int retries = 0;  // client-go's retries of 429 / Retry-After made so far
  CURL* easy = nullptr;
};

namespace {

// The Batch open on this thread, if any (batches nest: the innermost is the one asked).
thread_local RequestLoop::Batch* open_batch = nullptr;

// curl's smallest upload buffer; a receive buffer that holds an Event's answer whole.
constexpr long kSendBufferBytes = 16L * 1024;
constexpr long kReceiveBufferBytes = 4L * 1024;

Response stopped() {
  Response r;
  r.transport = static_cast<int>(CURLE_ABORTED_BY_CALLBACK);
  r.error = "the request loop stopped before the answer came";
  return r;
}

}  // namespace

RequestLoop::RequestLoop(ApiClient& client, RequestLoopOptions options)
    : client_(client),
      max_in_flight_(options.max_in_flight),
      settle_(options.settle),
      multi_(curl_multi_init()) {
  CURLM* multi = static_cast<CURLM*>(multi_);
  // Every request a stream of the same connection once it is known to be HTTP/2 (PIPEWAIT on
  // each request), rather than a connection per request in flight.
  curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  thread_ = std::thread([this, name = std::move(options.name)] {
    name_this_thread(name);
    run();
  });
  loop_thread_ = thread_.get_id();  // before any request: the loop reads it only from a Done
}

RequestLoop::~RequestLoop() {
  stop();
  for (void* easy : idle_handles_)
    curl_easy_cleanup(static_cast<CURL*>(easy));
  curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

void RequestLoop::submit(std::string method, std::string path, std::string body,
                         std::string content_type, Done done, std::chrono::milliseconds delay) {
  client_.limiter_.acquire();
  auto r = std::make_unique<Request>();
  r->exchange.method = std::move(method);
  r->exchange.path = std::move(path);
  r->exchange.body = std::move(body);
  r->content_type = std::move(content_type);
  r->done = std::move(done);
  r->not_before = Clock::now() + delay;
  Done refused;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      refused = std::move(r->done);
    } else {
      submitted_.push_back(std::move(r));
      ++in_flight_;
    }
  }
  if (refused) {
    refused(stopped());  // the loop has ended
    return;
  }
  // Inside a Batch of this loop the wake-up waits for the batch's end.
  for (Batch* b = open_batch; b != nullptr; b = b->outer_) {
    if (&b->loop_ == this) {
      b->submitted_ = true;
      return;
    }
  }
  wake();
}

RequestLoop::Batch::Batch(RequestLoop& loop) : loop_(loop), outer_(open_batch) {
  open_batch = this;
}

RequestLoop::Batch::~Batch() {
  open_batch = outer_;
  if (submitted_) loop_.wake();
}

void RequestLoop::wake() {
  // The loop's own thread (a Done submitting the next write) needs no wake-up: it looks for
  // submitted requests before it polls. Nor does anyone while an earlier wake-up is pending.
  if (std::this_thread::get_id() == loop_thread_) return;
  bool settling = false;
  {
    std::lock_guard lock(mutex_);
    if (wake_sent_) return;
    wake_sent_ = true;
    ++wakeups_;
    settling = settling_;
  }
  if (settling) {
    settled_.notify_one();
  } else {
    curl_multi_wakeup(static_cast<CURLM*>(multi_));
  }
}

std::size_t RequestLoop::wakeups() const {
  std::lock_guard lock(mutex_);
  return wakeups_;
}

void RequestLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  settled_.notify_one();
  curl_multi_wakeup(static_cast<CURLM*>(multi_));
  std::call_once(joined_, [this] { thread_.join(); });
}

std::size_t RequestLoop::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

void RequestLoop::run() {
  CURLM* multi = static_cast<CURLM*>(multi_);
  for (;;) {
    std::deque<std::unique_ptr<Request>> arrived;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
      arrived.swap(submitted_);
      wake_sent_ = false;
    }
    for (auto& r : arrived)
      later_.push_back(std::move(r));
    // Start what is due; the rest waits, the earliest setting the poll's timeout.
    const Clock::time_point now = Clock::now();
    Clock::time_point next = now + std::chrono::seconds(1);
    std::vector<std::unique_ptr<Request>> waiting;
    const auto room = [this] { return max_in_flight_ == 0 || active_.size() < max_in_flight_; };
    for (auto& r : later_) {
      if (r->not_before <= now && room()) {
        start(std::move(r));
      } else {
        if (r->not_before > now) next = std::min(next, r->not_before);
        waiting.push_back(std::move(r));
      }
    }
    later_.swap(waiting);
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
      if (m->msg == CURLMSG_DONE) finish(m->easy_handle, m->data.result);
    }
    // A request that waited for room may go now that answers came: no sleep then.
    const bool ready = std::any_of(later_.begin(), later_.end(),
                                   [&](const auto& r) { return r->not_before <= Clock::now(); });
    bool more = false;  // submitted since the swap above (from a Done, with no wake-up)
    {
      std::unique_lock lock(mutex_);
      more = !submitted_.empty();
      if (settle_.count() > 0 && !active_.empty() && !more && !(ready && room()) && !stopping_) {
        // Answers awaited: they gather until the settle time is up or a request is submitted
        // (wake() then signals settled_ instead of the multi handle).
        settling_ = true;
        // A wake-up sent before this wait (its curl_multi_wakeup makes the next poll return at
        // once) must not stop the next submit() from signalling settled_.
        wake_sent_ = false;
        settled_.wait_for(lock, settle_, [&] { return stopping_ || !submitted_.empty(); });
        settling_ = false;
        more = stopping_ || !submitted_.empty();
      }
    }
    const auto wait =
        (ready && room()) || more
            ? std::chrono::milliseconds(0)
            : std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
    curl_multi_poll(multi, nullptr, 0, static_cast<int>(std::clamp<long>(wait.count(), 0, 1000)),
                    nullptr);
  }
  // Stopping: everything not answered yet is answered "stopped".
  std::vector<std::unique_ptr<Request>> left;
  {
    std::lock_guard lock(mutex_);
    for (auto& r : submitted_)
      left.push_back(std::move(r));
    submitted_.clear();
  }
  for (auto& r : active_) {
    curl_multi_remove_handle(multi, r->easy);
    idle_handles_.push_back(r->easy);
    left.push_back(std::move(r));
  }
  active_.clear();
  for (auto& r : later_)
    left.push_back(std::move(r));
  later_.clear();
  for (auto& r : left)
    answer(*r, stopped());
}

void RequestLoop::start(std::unique_ptr<Request> r) {
  CURL* easy = nullptr;
  if (!idle_handles_.empty()) {
    easy = static_cast<CURL*>(idle_handles_.back());
    idle_handles_.pop_back();
  } else {
    easy = curl_easy_init();
  }
  try {
    client_.prepare(easy, r->exchange, r->content_type, nullptr, nullptr);
  } catch (const ApiError& e) {  // no credentials to send it with
    idle_handles_.push_back(easy);
    Response none;
    none.transport = static_cast<int>(CURLE_LOGIN_DENIED);
    none.error = e.message();
    answer(*r, std::move(none));
    return;
  }
  curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
  // The writes and their answers are a few KB: curl's defaults (16 KB to receive, 64 KB to
  // send) kept about 6 MB in the pooled handles of the two loops for nothing.
  curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
  curl_easy_setopt(easy, CURLOPT_UPLOAD_BUFFERSIZE, kSendBufferBytes);
  r->easy = easy;
  curl_multi_add_handle(static_cast<CURLM*>(multi_), easy);
  active_.push_back(std::move(r));
}

void RequestLoop::finish(void* handle, int result) {
  CURL* easy = static_cast<CURL*>(handle);
  curl_multi_remove_handle(static_cast<CURLM*>(multi_), easy);
  auto it = std::find_if(active_.begin(), active_.end(),
                         [&](const std::unique_ptr<Request>& r) { return r->easy == easy; });
  if (it == active_.end()) return;
  std::unique_ptr<Request> r = std::move(*it);
  *it = std::move(active_.back());
  active_.pop_back();
  Response response = client_.conclude(easy, r->exchange, result);
  idle_handles_.push_back(easy);
  r->easy = nullptr;
  if (const auto delay = ApiClient::retry_delay(response, r->retries)) {
    ++r->retries;
    r->exchange.t = {};
    r->not_before = Clock::now() + *delay;
    later_.push_back(std::move(r));
    return;
  }
  answer(*r, std::move(response));
}

void RequestLoop::answer(Request& r, Response response) {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
  }
  try {
    r.done(std::move(response));
  } catch (const std::exception& e) {
    spdlog::error("request loop: the handler of {} {} threw: {}", r.exchange.method,
                  r.exchange.path, e.what());
  }
}

}  // namespace schedhost::kube
