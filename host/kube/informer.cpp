#include "kube/informer.hpp"

#include <spdlog/spdlog.h>

#include <random>
#include <set>
#include <utility>

#include "common/thread_name.hpp"
#include "kube/backoff.hpp"
#include "kube/json_parse.hpp"
#include "kube/json_text.hpp"
#include "kube/watch_decoder.hpp"

namespace schedhost::kube {
Object::Object(std::shared_ptr<const nlohmann::json> tree) : tree_(std::move(tree)) {
  if (tree_) {
    text_ = std::make_shared<const std::string>(
        kept_text(*tree_, nlohmann::json::error_handler_t::replace));
  }
}

Object stored_object(nlohmann::json&& object) {
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    m->erase("managedFields");
  }
  return Object(std::make_shared<const nlohmann::json>(std::move(object)));
}

Object stored_object(std::shared_ptr<const std::string> text) {
  return {std::make_shared<const nlohmann::json>(parse_json(*text)), std::move(text)};
}

namespace {

using Clock = std::chrono::steady_clock;

// A watch that ends this soon with no event is a failure (client-go's "very short watch").
constexpr auto kVeryShortWatch = std::chrono::seconds(1);

}  // namespace

Informer::Informer(ApiClient& client, Resource resource, InformerOptions options)
    : client_(client), resource_(std::move(resource)), options_(std::move(options)) {}

Informer::~Informer() {
  stop();
}

void Informer::set_handler(InformerHandler handler) {
  handler_ = std::move(handler);
}

void Informer::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] {
    name_this_thread(resource_.resource);
    run();
  });
}

void Informer::request_stop() {
  stopping_ = true;
  {
    std::lock_guard lock(mutex_);
    paused_ = false;
  }
  wake_.notify_all();
}

void Informer::stop() {
  request_stop();
  if (thread_.joinable()) thread_.join();
}

bool Informer::wait_for_sync(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!synced_ && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return synced_;
}

Object Informer::get(const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = store_.find(key);
  return it == store_.end() ? nullptr : stored_object(it->second);
}

std::vector<Object> Informer::list() const {
  std::lock_guard lock(mutex_);
  std::vector<Object> out;
  out.reserve(store_.size());
  for (const auto& [key, text] : store_)
    out.push_back(stored_object(text));
  return out;
}

std::size_t Informer::size() const {
  std::lock_guard lock(mutex_);
  return store_.size();
}

std::string Informer::last_resource_version() const {
  std::lock_guard lock(mutex_);
  return resource_version_;
}

InformerStats Informer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Informer::pause() {
  {
    std::lock_guard lock(mutex_);
    paused_ = true;
  }
  cut_ = true;
}

void Informer::resume() {
  {
    std::lock_guard lock(mutex_);
    paused_ = false;
  }
  wake_.notify_all();
}

bool Informer::sleep_for(std::chrono::milliseconds d) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, d, [this] { return stopping_.load(); });
  return !stopping_;
}

void Informer::log_failure(const std::string& what) {
  {
    std::lock_guard lock(mutex_);
    ++stats_.failures;
  }
  // One line per distinct failure: a server that stays away does not flood the log.
  if (what == last_logged_) return;
  last_logged_ = what;
  spdlog::warn("informer {}: {} (retrying with backoff)", resource_.display(), what);
}

std::string Informer::list_query(const std::string& resource_version,
                                 const std::string& cont) const {
  std::string q = resource_.collection_path() + "?";
  if (!cont.empty()) {
    q += "continue=" + url_escape(cont);
  } else {
    q += "resourceVersion=" + url_escape(resource_version);
  }
  if (options_.page_size > 0) q += "&limit=" + std::to_string(options_.page_size);
  if (!options_.field_selector.empty()) {
    q += "&fieldSelector=" + url_escape(options_.field_selector);
  }
  if (!options_.label_selector.empty()) {
    q += "&labelSelector=" + url_escape(options_.label_selector);
  }
  return q;
}

bool Informer::list_and_replace(const std::string& resource_version) {
  // Each page is delivered as it comes (a page is one consistent snapshot's part, and its objects
  // are real states): a list of thousands never holds all their trees at once, only one page's.
  // The objects the store held and the list did not return are deleted once the list is whole.
  std::set<std::string> listed;
  std::string list_version;
  std::string cont;
  int pages = 0;
  const bool initial = !synced_;
  try {
    do {
      const std::string path = list_query(resource_version, cont);
      nlohmann::json page = client_.get(path);
      ++pages;
      for (nlohmann::json& item : page["items"]) {
        std::string key = object_key(item);
        const Object object = stored_object(std::move(item));
        std::shared_ptr<const std::string> old;
        {
          std::lock_guard lock(mutex_);
          std::shared_ptr<const std::string>& kept = store_[key];
          old = std::exchange(kept, object.text());
        }
        if (old == nullptr) {
          if (handler_.on_add) handler_.on_add(object, initial);
        } else if (handler_.on_update) {
          handler_.on_update(stored_object(std::move(old)), object);
        }
        listed.insert(std::move(key));
      }
      const nlohmann::json& meta = page["metadata"];
      list_version = meta.value("resourceVersion", list_version);
      cont = meta.value("continue", "");
      if (stopping_) return false;
    } while (!cont.empty());
  } catch (const ApiError& e) {
    // An expired continue token (410) fails the list; the next attempt starts afresh (and what
    // was delivered of this one stays: every object of it was a state the server had).
    log_failure("list failed: " + std::string(e.what()));
    return false;
  }

  // Every stored object missing from the list: a deletion whose final state is unknown.
  std::vector<std::shared_ptr<const std::string>> gone;
  {
    std::lock_guard lock(mutex_);
    for (auto it = store_.begin(); it != store_.end();) {
      if (listed.count(it->first) == 0) {
        gone.push_back(std::move(it->second));
        it = store_.erase(it);
      } else {
        ++it;
      }
    }
    resource_version_ = list_version;
    ++stats_.lists;
    stats_.pages += pages;
  }
  for (auto& text : gone) {
    if (handler_.on_delete) handler_.on_delete(stored_object(std::move(text)), true);
  }
  synced_ = true;
  last_logged_.clear();
  return true;
}

void Informer::apply(WatchEventType type, Object object) {
  const std::string key = object_key(*object);
  std::shared_ptr<const std::string> old;
  {
    std::lock_guard lock(mutex_);
    resource_version_ = resource_version_of(*object);
    auto it = store_.find(key);
    if (it != store_.end()) old = it->second;
    if (type == WatchEventType::Deleted) {
      if (it != store_.end()) store_.erase(it);
    } else {
      store_[key] = object.text();
    }
  }
  if (type == WatchEventType::Deleted) {
    if (handler_.on_delete) handler_.on_delete(object, false);
  } else if (old) {
    // The old version is parsed again from its text: a pod's update costs a parse, where keeping
    // every tree cost five times the memory.
    if (handler_.on_update) handler_.on_update(stored_object(std::move(old)), object);
  } else {
    if (handler_.on_add) handler_.on_add(object, false);
  }
}

Informer::WatchEnd Informer::watch() {
  static thread_local std::mt19937 rng{std::random_device{}()};
  const int timeout_s = std::uniform_int_distribution<int>(300, 599)(rng);
  std::string path = resource_.collection_path() + "?watch=true&allowWatchBookmarks=true" +
                     "&resourceVersion=" + url_escape(last_resource_version()) +
                     "&timeoutSeconds=" + std::to_string(timeout_s);
  if (!options_.field_selector.empty()) {
    path += "&fieldSelector=" + url_escape(options_.field_selector);
  }
  if (!options_.label_selector.empty()) {
    path += "&labelSelector=" + url_escape(options_.label_selector);
  }

  WatchDecoder decoder;
  int events = 0;
  bool gone = false;
  std::string error;
  const auto started = Clock::now();
  auto on_event = [&](WatchEvent&& event) {
    switch (event.type) {
      case WatchEventType::Bookmark: {
        std::lock_guard lock(mutex_);
        resource_version_ = resource_version_of(event.object);
        ++stats_.bookmarks;
        return true;
      }
      case WatchEventType::Error: {
        const int code = event.object.value("code", 0);
        const std::string reason = event.object.value("reason", "");
        if (code == 410 || reason == "Expired" || reason == "Gone") {
          gone = true;
        } else {
          error = "watch error " + std::to_string(code) + " " + reason + ": " +
                  event.object.value("message", "");
        }
        return false;
      }
      default:
        ++events;
        apply(event.type, stored_object(std::move(event.object)));
        return true;
    }
  };
  Response r;
  try {
    r = client_.stream(
        path,
        [&](std::string_view chunk) {
          if (stopping_ || cut_) return false;
          if (!decoder.feed(chunk, on_event)) {
            if (error.empty() && !gone) error = decoder.error();
            return false;
          }
          return true;
        },
        &stopping_);
  } catch (const ApiError& e) {
    log_failure("watch failed: " + std::string(e.what()));
    return WatchEnd::Failed;
  }
  if (stopping_) return WatchEnd::Stopped;
  if (cut_.exchange(false)) return WatchEnd::Timeout;  // resumes from the resourceVersion
  if (r.code == 410) gone = true;
  if (gone) {
    std::lock_guard lock(mutex_);
    ++stats_.gone;
    return WatchEnd::Gone;
  }
  if (r.code < 200 || r.code >= 300) {
    try {
      ApiClient::raise("GET", path, r);
    } catch (const ApiError& e) {
      log_failure("watch failed: " + std::string(e.what()));
    }
    return WatchEnd::Failed;
  }
  {
    std::lock_guard lock(mutex_);
    ++stats_.watches;
  }
  if (!error.empty()) {
    log_failure(error);
    return WatchEnd::Failed;
  }
  if (events == 0 && Clock::now() - started < kVeryShortWatch) {
    log_failure("very short watch: ended after less than a second with no event");
    return WatchEnd::Failed;
  }
  return WatchEnd::Timeout;
}

void Informer::run() {
  Backoff backoff;
  bool need_list = true;
  while (!stopping_) {
    if (need_list) {
      // A consistent, paginated list; its resourceVersion is where the watch starts.
      if (!list_and_replace("")) {
        if (!sleep_for(backoff.next())) return;
        continue;
      }
      need_list = false;
    }
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return !paused_ || stopping_.load(); });
    }
    if (stopping_) return;
    switch (watch()) {
      case WatchEnd::Timeout:
        break;  // watch again from the last resourceVersion
      case WatchEnd::Gone:
        spdlog::info("informer {}: resourceVersion {} is too old (410 Gone): relisting",
                     resource_.display(), last_resource_version());
        need_list = true;
        break;
      case WatchEnd::Failed:
        // The objects may have moved on while we were away: back off, then relist.
        need_list = true;
        if (!sleep_for(backoff.next())) return;
        break;
      case WatchEnd::Stopped:
        return;
    }
  }
}

}  // namespace schedhost::kube
