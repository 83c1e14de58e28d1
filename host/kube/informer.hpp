// An informer over one resource: lists it (paginated, each page stored and delivered as it
// comes, so a list holds one page's trees at a time), then watches from the list's
// resourceVersion, keeping a store of the objects and telling a handler what changed, as
// client-go's reflector + shared informer do:
// - bookmarks move the resourceVersion on without touching the store;
// - a watch the server ends (its timeout) is resumed from the last resourceVersion, no relist;
// - 410 Gone (resourceVersion too old, e.g. after an etcd compaction) relists, and the objects
//   missing from the new list are delivered as deletions (final state unknown);
// - any other failure backs off (800 ms doubling to 30 s, with jitter) and retries, forever,
//   logging each failure once.
// Handlers run on the informer's own thread, one event at a time, in the server's order.
// Objects are stored and handed over without metadata.managedFields (kube-scheduler's pod
// informer drops them too; they take memory and no scheduling decision reads them).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "kube/api_client.hpp"
#include "kube/resource.hpp"
#include "kube/watch_decoder.hpp"

namespace schedhost::kube {

// An object as an informer hands it over: its tree, to read now, and its compact text, which is
// all the informer's store keeps (a tree takes about five times the memory) and what serve's
// Pods and Nodes keep too, the same string. Reads like a pointer to the tree.
class Object {
 public:
  Object() = default;
  Object(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): "no object", as before
  // From a tree alone (tests, and objects not from a server): the text is its dump().
  Object(std::shared_ptr<const nlohmann::json> tree);  // NOLINT(google-explicit-constructor)
  Object(std::shared_ptr<const nlohmann::json> tree, std::shared_ptr<const std::string> text)
      : tree_(std::move(tree)), text_(std::move(text)) {}

  const nlohmann::json& operator*() const { return *tree_; }
  const nlohmann::json* operator->() const { return tree_.get(); }
  explicit operator bool() const { return tree_ != nullptr; }
  bool operator==(std::nullptr_t) const { return tree_ == nullptr; }
  const std::shared_ptr<const nlohmann::json>& tree() const { return tree_; }
  const std::shared_ptr<const std::string>& text() const { return text_; }  // null only if tree is

 private:
  std::shared_ptr<const nlohmann::json> tree_;
  std::shared_ptr<const std::string> text_;
};

struct InformerHandler {
  // A new object; initial_list is true for the objects of the first list.
  std::function<void(const Object& object, bool initial_list)> on_add;
  // A changed object (also sent for every object a relist finds again, possibly unchanged:
  // compare resourceVersions to tell).
  std::function<void(const Object& old_object, const Object& new_object)> on_update;
  // A deleted object; final_state_unknown when a relist found it gone (it is the last version
  // this informer saw, not the deleted one).
  std::function<void(const Object& last_known, bool final_state_unknown)> on_delete;
};

struct InformerOptions {
  std::string field_selector;  // e.g. "status.phase!=Succeeded,status.phase!=Failed"
  std::string label_selector;
  int page_size = 500;  // list's limit; 0: one unpaginated list
};

// What an informer has done, for logs, metrics and tests.
struct InformerStats {
  int lists = 0;     // successful lists (the first one and every relist)
  int watches = 0;   // watch requests the server accepted
  int pages = 0;     // list pages read
  int gone = 0;      // 410 answers that forced a relist
  int failures = 0;  // failed list or watch attempts (each followed by a backoff)
  int bookmarks = 0;
};

// The object as an informer stores and hands it over: without metadata.managedFields. Nothing a
// scheduler decides reads them and they are often a third of an object (kube-scheduler's pod
// informer drops them too); every tree and copy built from the object is smaller for it.
Object stored_object(nlohmann::json&& object);
// An object the store kept as text, parsed again (for an update's old version, get(), list()).
Object stored_object(std::shared_ptr<const std::string> text);

class Informer {
 public:
  Informer(ApiClient& client, Resource resource, InformerOptions options = {});
  ~Informer();  // stops
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Before start(): the one handler (no handler: only the store is kept).
  void set_handler(InformerHandler handler);
  void start();
  // Asks the thread to end its current request and stop; returns at once. An informer's
  // request notices within about a second (curl's progress callback), so a set of informers is
  // stopped by asking each first, then stop() on each: one second in all, not one each.
  void request_stop();
  // Ends the current request and the thread; returns once it has ended.
  void stop();

  // The first list has been delivered to the handler.
  bool has_synced() const { return synced_.load(); }
  // Waits until has_synced() or the timeout; returns has_synced().
  bool wait_for_sync(std::chrono::milliseconds timeout);

  // The stored object with that key ("namespace/name" or "name"), nullptr when absent.
  Object get(const std::string& key) const;
  std::vector<Object> list() const;
  std::size_t size() const;
  std::string last_resource_version() const;
  InformerStats stats() const;
  const Resource& resource() const { return resource_; }

  // Fault injection for tests: cut the watch in progress (as a broken connection would), and
  // hold the next watch until resume(), keeping the resourceVersion.
  void pause();
  void resume();

 private:
  void run();
  // Lists and replaces the store. Returns false on failure (after logging it).
  bool list_and_replace(const std::string& resource_version);
  enum class WatchEnd { Timeout, Gone, Failed, Stopped };
  WatchEnd watch();
  void apply(WatchEventType type, Object object);
  std::string list_query(const std::string& resource_version, const std::string& cont) const;
  bool sleep_for(std::chrono::milliseconds d);  // false when stopping
  void log_failure(const std::string& what);

  ApiClient& client_;
  const Resource resource_;
  const InformerOptions options_;
  InformerHandler handler_;

  mutable std::mutex mutex_;  // guards store_, resource_version_, stats_, paused_
  std::map<std::string, std::shared_ptr<const std::string>> store_;  // key -> compact text
  std::string resource_version_;
  InformerStats stats_;
  bool paused_ = false;
  std::condition_variable wake_;

  std::atomic<bool> synced_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> cut_{false};  // pause(): abort the running watch
  std::string last_logged_;
  std::thread thread_;
};

}  // namespace schedhost::kube
