// RequestLoop against the real API server: many writes in flight on one multiplexed connection
// all arrive and are answered, and an error answer carries the server's Status.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <set>

#include "kube/request_loop.hpp"
#include "live/control_plane.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;

json config_map(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"n", name}}}};
}

TEST(LiveRequestLoop, ThreeHundredWritesInFlightAllArriveAndErrorsCarryTheStatus) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  kube::RequestLoop loop(client, {.max_in_flight = 16});
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<long> codes;
  const std::string path = "/api/v1/namespaces/default/configmaps";
  for (int i = 0; i < 300; ++i) {
    loop.submit("POST", path, config_map("cm-" + std::to_string(i)).dump(), "application/json",
                [&](kube::Response r) {
                  std::lock_guard lock(mutex);
                  codes.push_back(r.code);
                  changed.notify_all();
                });
  }
  {
    std::unique_lock lock(mutex);
    changed.wait_for(lock, std::chrono::seconds(60), [&] { return codes.size() == 300; });
    ASSERT_EQ(codes.size(), 300u);
    EXPECT_EQ(std::count(codes.begin(), codes.end(), 201), 300);
  }
  std::set<std::string> names;
  const json list = client.get(path);
  for (const json& item : list["items"])
    names.insert(item["metadata"]["name"].get<std::string>());
  for (int i = 0; i < 300; ++i)
    EXPECT_EQ(names.count("cm-" + std::to_string(i)), 1u) << i;

  // The same name again: 409 AlreadyExists, as the server's Status says.
  kube::Response again;
  bool answered = false;
  loop.submit("POST", path, config_map("cm-7").dump(), "application/json", [&](kube::Response r) {
    std::lock_guard lock(mutex);
    again = std::move(r);
    answered = true;
    changed.notify_all();
  });
  std::unique_lock lock(mutex);
  changed.wait_for(lock, std::chrono::seconds(30), [&] { return answered; });
  ASSERT_TRUE(answered);
  const kube::ApiError e = kube::ApiClient::error_of("POST", path, again);
  EXPECT_EQ(e.code(), 409);
  EXPECT_EQ(e.reason(), "AlreadyExists");
  EXPECT_EQ(e.message(), "configmaps \"cm-7\" already exists");
  EXPECT_EQ(loop.in_flight(), 0u);
}

}  // namespace
}  // namespace schedhost::testing
