// The wrapper never calls a host function beyond the host table's struct_size.
#include <gtest/gtest.h>
#include <schedhost/context.hpp>
#include <schedhost/host.hpp>

#include <cstddef>

#include "framework/plugin_host.hpp"

namespace schedhost {
namespace {

size_t three_waiting(const schedhost_call_t*) {
  return 3;
}
bool allow(schedhost_call_t*, schedhost_str_t) {
  return true;
}

TEST(HostTable, NewerCallbacksAreUsedOnlyWhenTheHostHasThem) {
  schedhost_host_api_t table = *framework::host_api();
  table.waiting_pod_count = &three_waiting;
  table.waiting_pod_allow = &allow;
  Context full(&table, nullptr);
  EXPECT_EQ(full.waiting_pods().size(), 3u);
  EXPECT_TRUE(full.allow_waiting_pod("uid"));

  // The same table as an older host would declare it: it ends before the waiting-pod functions.
  table.struct_size = offsetof(schedhost_host_api_t, waiting_pod_count);
  Context older(&table, nullptr);
  EXPECT_EQ(older.waiting_pods().size(), 0u);
  EXPECT_FALSE(older.allow_waiting_pod("uid"));
  Host host(&table, nullptr);
  EXPECT_FALSE(host.has(&schedhost_host_api_t::waiting_pod_reject));
  EXPECT_TRUE(host.has(&schedhost_host_api_t::state_read));
}

TEST(HostTable, TheHostDeclaresItsVersionAndSize) {
  const schedhost_host_api_t* api = framework::host_api();
  EXPECT_EQ(api->struct_size, sizeof(schedhost_host_api_t));
  EXPECT_EQ(api->abi_major, 1u);
  EXPECT_EQ(api->abi_minor, 9u);
}

TEST(HostTable, AnOlderMinorCanBeEmulatedAndTheCurrentOneRestored) {
  const schedhost_host_api_t* api = framework::host_api();
  EXPECT_FALSE(framework::emulate_host_abi_minor(10));
  EXPECT_EQ(api->abi_minor, 9u);
  ASSERT_TRUE(framework::emulate_host_abi_minor(1));
  EXPECT_EQ(api->abi_minor, 1u);
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, snapshot_id));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::snapshot_change_at));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::snapshot_nodes_with_pods_at));
  ASSERT_TRUE(framework::emulate_host_abi_minor(0));
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, snapshot_nodes_with_pods_count));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::snapshot_nodes_with_pods_at));
  ASSERT_TRUE(framework::emulate_host_abi_minor(2));
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, register_event));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::snapshot_change_at));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::register_event));
  ASSERT_TRUE(framework::emulate_host_abi_minor(3));
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, report_exception));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::register_event));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::report_exception));
  ASSERT_TRUE(framework::emulate_host_abi_minor(4));
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, process_preemption));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::report_exception));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::process_preemption));
  ASSERT_TRUE(framework::emulate_host_abi_minor(5));
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, add_sign_fragment));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::process_preemption));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::add_sign_fragment));
  ASSERT_TRUE(framework::emulate_host_abi_minor(6));
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, object_count));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::add_sign_fragment));
  ASSERT_TRUE(framework::emulate_host_abi_minor(7));  // 1.7 appended constants only
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, object_count));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::object_count));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::feature_enabled));
  // An older host: the plugin's own fallback, whatever it is.
  EXPECT_FALSE(Host(api, nullptr).feature_enabled("MatchLabelKeysInPodTopologySpread", false));
  EXPECT_TRUE(Host(api, nullptr).feature_enabled("StorageCapacityScoring", true));
  ASSERT_TRUE(framework::emulate_host_abi_minor(8));
  EXPECT_EQ(api->struct_size, offsetof(schedhost_host_api_t, object_select));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::feature_enabled));
  EXPECT_FALSE(Host(api, nullptr).has(&schedhost_host_api_t::metric_id));
  EXPECT_FALSE(Host(api, nullptr).metric("anything").declared());
  EXPECT_TRUE(Host(api, nullptr).feature_enabled("MatchLabelKeysInPodTopologySpread", false));
  EXPECT_FALSE(Host(api, nullptr).feature_enabled("StorageCapacityScoring", true));
  EXPECT_FALSE(Host(api, nullptr).feature_enabled("NoSuchGate", true));
  ASSERT_TRUE(framework::emulate_host_abi_minor(9));
  EXPECT_EQ(api->struct_size, sizeof(schedhost_host_api_t));
  EXPECT_TRUE(Host(api, nullptr).has(&schedhost_host_api_t::object_select));
}

}  // namespace
}  // namespace schedhost
