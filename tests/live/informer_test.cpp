// The generic informer against the real API server: paginated list, watch, bookmarks, a watch
// cut, 410 Gone after an etcd compaction (relist, vanished objects delivered as deletions), and
// an API server restart.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "kube/api_client.hpp"
#include "kube/informer.hpp"
#include "live/control_plane.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;

// What the handler was told, as "add:name", "add-initial:name", "update:name",
// "delete:name", "delete-unknown:name".
class Recorder {
 public:
  kube::InformerHandler handler() {
    return {[this](const kube::Object& o, bool initial) {
              push((initial ? "add-initial:" : "add:") + name(o));
            },
            [this](const kube::Object& old, const kube::Object& now) {
              // A relist redelivers unchanged objects; only real changes are recorded.
              if (kube::resource_version_of(*old) != kube::resource_version_of(*now)) {
                push("update:" + name(now));
              }
            },
            [this](const kube::Object& o, bool unknown) {
              push((unknown ? "delete-unknown:" : "delete:") + name(o));
            }};
  }
  std::vector<std::string> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }
  // Waits until the events end with want (or 20 s).
  bool wait_for(std::size_t count) {
    for (int i = 0; i < 400; ++i) {
      if (events().size() >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

 private:
  static std::string name(const kube::Object& o) { return (*o)["metadata"]["name"]; }
  void push(std::string e) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(e));
  }
  std::mutex mutex_;
  std::vector<std::string> events_;
};

json node(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}};
}

std::vector<std::string> tail(std::vector<std::string> v, std::size_t from) {
  return {v.begin() + static_cast<long>(std::min(from, v.size())), v.end()};
}

TEST(Informer, ListsInPagesThenWatchesAddsUpdatesAndDeletes) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  for (const char* n : {"n1", "n2", "n3", "n4", "n5", "n6", "n7"})
    client.create("/api/v1/nodes", node(n));

  kube::InformerOptions options;
  options.page_size = 3;
  // Each listed object is stored and delivered as its page comes, not once the list is whole:
  // a list of thousands never holds all their trees at once. (Declared before the informer,
  // whose thread writes it until stopped.)
  std::vector<std::size_t> stored_at_add;
  Recorder recorder;
  kube::Informer informer(client, kube::Resource::nodes(), options);
  kube::InformerHandler handler = recorder.handler();
  handler.on_add = [&informer, &stored_at_add, add = handler.on_add](const kube::Object& o,
                                                                     bool initial) {
    stored_at_add.push_back(informer.size());
    add(o, initial);
  };
  informer.set_handler(handler);
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(std::chrono::seconds(20)));
  EXPECT_EQ(informer.size(), 7u);
  EXPECT_EQ(stored_at_add, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(informer.stats().pages, 3);  // 3 + 3 + 1
  EXPECT_EQ(informer.stats().lists, 1);
  EXPECT_EQ(recorder.events(),
            (std::vector<std::string>{"add-initial:n1", "add-initial:n2", "add-initial:n3",
                                      "add-initial:n4", "add-initial:n5", "add-initial:n6",
                                      "add-initial:n7"}));

  client.create("/api/v1/nodes", node("n8"));
  client.patch("/api/v1/nodes/n3", {{"metadata", {{"labels", {{"zone", "a"}}}}}},
               kube::PatchType::Merge);
  client.remove("/api/v1/nodes/n5");
  ASSERT_TRUE(recorder.wait_for(10));
  EXPECT_EQ(tail(recorder.events(), 7),
            (std::vector<std::string>{"add:n8", "update:n3", "delete:n5"}));
  EXPECT_EQ(informer.size(), 7u);
  ASSERT_NE(informer.get("n3"), nullptr);
  EXPECT_EQ((*informer.get("n3"))["metadata"]["labels"]["zone"], "a");
  EXPECT_EQ(informer.get("n5"), nullptr);
  EXPECT_EQ(informer.stats().lists, 1);  // no relist was needed
  informer.stop();
}

TEST(Informer, ACutWatchResumesFromItsResourceVersionWithoutRelisting) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  client.create("/api/v1/nodes", node("a"));
  kube::Informer informer(client, kube::Resource::nodes());
  Recorder recorder;
  informer.set_handler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(std::chrono::seconds(20)));

  informer.pause();  // the connection drops; changes happen while it is away
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  client.create("/api/v1/nodes", node("b"));
  client.remove("/api/v1/nodes/a");
  informer.resume();
  ASSERT_TRUE(recorder.wait_for(3));
  // The watch from the old resourceVersion replays what was missed, in order.
  EXPECT_EQ(recorder.events(), (std::vector<std::string>{"add-initial:a", "add:b", "delete:a"}));
  EXPECT_EQ(informer.stats().lists, 1);
  EXPECT_EQ(informer.stats().gone, 0);
}

TEST(Informer, GoneAfterACompactionRelistsAndDeliversVanishedObjectsAsDeletions) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  client.create("/api/v1/nodes", node("kept"));
  client.create("/api/v1/nodes", node("doomed"));
  kube::Informer informer(client, kube::Resource::nodes());
  Recorder recorder;
  informer.set_handler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(std::chrono::seconds(20)));
  const std::string old_version = informer.last_resource_version();

  informer.pause();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  client.remove("/api/v1/nodes/doomed");
  client.create("/api/v1/nodes", node("newcomer"));
  // The history the informer would need is compacted away, and a restarted API server's watch
  // cache starts after it: its watch from old_version can only get 410 Gone.
  plane->stop_apiserver();
  plane->compact_etcd();
  plane->start_apiserver();
  informer.resume();

  ASSERT_TRUE(recorder.wait_for(4)) << ::testing::PrintToString(recorder.events());
  EXPECT_GE(informer.stats().gone, 1);
  EXPECT_EQ(informer.stats().lists, 2);
  EXPECT_EQ(tail(recorder.events(), 2),
            (std::vector<std::string>{"add:newcomer", "delete-unknown:doomed"}));
  EXPECT_NE(informer.get("kept"), nullptr);
  EXPECT_EQ(informer.get("doomed"), nullptr);
  EXPECT_NE(informer.last_resource_version(), old_version);
}

TEST(Informer, ReconnectsAfterTheApiServerRestartsAndCatchesUp) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  client.create("/api/v1/nodes", node("before"));
  kube::Informer informer(client, kube::Resource::nodes());
  Recorder recorder;
  informer.set_handler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(std::chrono::seconds(20)));

  plane->stop_apiserver();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the informer retries meanwhile
  plane->start_apiserver();
  client.create("/api/v1/nodes", node("after"));
  ASSERT_TRUE(recorder.wait_for(2)) << ::testing::PrintToString(recorder.events());
  EXPECT_EQ(recorder.events(), (std::vector<std::string>{"add-initial:before", "add:after"}));
  EXPECT_GE(informer.stats().failures, 1);
  EXPECT_EQ(informer.size(), 2u);
}

TEST(Informer, AFieldSelectorKeepsOnlyMatchingObjectsAndAnObjectLeavingItIsDeleted) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  client.create("/api/v1/nodes", node("n"));
  const json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                    {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "pause"}}})}}}};
  client.create("/api/v1/namespaces/default/pods", pod);
  kube::InformerOptions options;
  options.field_selector = "spec.nodeName=";  // unassigned pods only
  kube::Informer informer(client, kube::Resource::pods(), options);
  Recorder recorder;
  informer.set_handler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(std::chrono::seconds(20)));
  EXPECT_NE(informer.get("default/p"), nullptr);

  client.create("/api/v1/namespaces/default/pods/p/binding",
                {{"apiVersion", "v1"},
                 {"kind", "Binding"},
                 {"metadata", {{"name", "p"}}},
                 {"target", {{"kind", "Node"}, {"name", "n"}}}});
  ASSERT_TRUE(recorder.wait_for(2));
  EXPECT_EQ(recorder.events(), (std::vector<std::string>{"add-initial:p", "delete:p"}));
  EXPECT_EQ(informer.size(), 0u);
}

}  // namespace
}  // namespace schedhost::testing
