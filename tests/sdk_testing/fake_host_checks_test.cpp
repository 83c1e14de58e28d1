// The fake host's checks of a library (as the host's loader), of hooks a plugin lacks, and of an
// older host emulated by a shorter host API table: hand-written C descriptors, no wrapper.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <stdexcept>
#include <string>

namespace {

using namespace schedhost::testing;

schedhost_code_t tiny_create(const schedhost_host_api_t* api, const schedhost_host_t*,
                             schedhost_str_t, schedhost_call_t*, void** out_self) {
  // Remembers whether the host it was created by has namespace support (a 1.0 function).
  static bool has_namespaces;
  has_namespaces = api->struct_size >= offsetof(schedhost_host_api_t, namespace_label_at) +
                                           sizeof(api->namespace_label_at);
  *out_self = &has_namespaces;
  return SCHEDHOST_SUCCESS;
}
void tiny_destroy(void*) {}
schedhost_code_t tiny_filter(void* self, schedhost_call_t*, const schedhost_cycle_state_t*,
                             const schedhost_pod_t*, const schedhost_node_t*) {
  return *static_cast<bool*>(self) ? SCHEDHOST_SUCCESS : SCHEDHOST_UNSCHEDULABLE;
}

schedhost_plugin_vtable_t tiny_vtable() {
  schedhost_plugin_vtable_t v{};
  v.struct_size = sizeof v;
  v.create = &tiny_create;
  v.destroy = &tiny_destroy;
  v.filter = &tiny_filter;
  return v;
}
const schedhost_plugin_vtable_t kVtable = tiny_vtable();
const schedhost_plugin_descriptor_t kTiny = {sizeof(schedhost_plugin_descriptor_t), "Tiny",
                                             "filter only", &kVtable};
const schedhost_plugin_descriptor_t* const kPlugins[] = {&kTiny};

schedhost_library_t library(std::uint32_t major, std::uint32_t min_host_minor) {
  return {SCHEDHOST_LIBRARY_MAGIC,
          sizeof(schedhost_library_t),
          major,
          0,
          min_host_minor,
          "tiny",
          "1.0.0",
          nullptr,
          nullptr,
          nullptr,
          1,
          kPlugins};
}

std::string load_error(const schedhost_library_t& lib) {
  try {
    FakeHost host(&lib);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(FakeHostChecks, RefusesAnotherMajorOrANewerMinor) {
  EXPECT_EQ(load_error(library(2, 0)), "built for plugin ABI 2.0, this host has ABI 1.2");
  EXPECT_EQ(load_error(library(1, 5)), "needs plugin ABI 1.5 or newer, this host has ABI 1.2");
  EXPECT_EQ(load_error(library(1, 0)), "");
}

TEST(FakeHostChecks, AHookThePluginLacksIsALogicError) {
  const schedhost_library_t lib = library(1, 0);
  FakeHost host(&lib);
  host.add_node(FakeNode("n"));
  FakePlugin plugin = host.create("Tiny");
  EXPECT_EQ(plugin.extension_points(), std::vector<std::string>{"Filter"});
  FakeCycleState state;
  try {
    plugin.score(state, FakePod("p"), "n");
    FAIL() << "score ran on a plugin without Score";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "plugin \"Tiny\" does not implement Score");
  }
}

TEST(FakeHostChecks, AShorterTableEmulatesAnOlderHost) {
  const schedhost_library_t lib = library(1, 0);
  FakeHost host(&lib);
  host.add_node(FakeNode("n"));
  FakeCycleState state;
  EXPECT_EQ(host.create("Tiny").filter(state, FakePod("p"), "n").code, schedhost::Code::Success);
  host.set_api_struct_size(offsetof(schedhost_host_api_t, namespace_count));
  EXPECT_EQ(host.create("Tiny").filter(state, FakePod("p"), "n").code,
            schedhost::Code::Unschedulable);
}

TEST(FakeHostChecks, TheTableIsCompleteForThisAbi) {
  FakeHost host;
  const schedhost_host_api_t* api = host.api();
  EXPECT_EQ(api->struct_size, sizeof(schedhost_host_api_t));
  EXPECT_EQ(api->abi_major, SCHEDHOST_ABI_MAJOR);
  EXPECT_EQ(api->abi_minor, SCHEDHOST_ABI_MINOR);
  // Every function of ABI 1.0 but the preemption ones (NULL in the fake host), and 1.1's and 1.2's.
  EXPECT_NE(api->log, nullptr);
  EXPECT_NE(api->node_json, nullptr);
  EXPECT_NE(api->waiting_pod_reject, nullptr);
  EXPECT_NE(api->namespace_label_at, nullptr);
  EXPECT_NE(api->snapshot_nodes_with_pods_count, nullptr);
  EXPECT_NE(api->snapshot_nodes_with_pods_at, nullptr);
  EXPECT_NE(api->snapshot_id, nullptr);
  EXPECT_NE(api->snapshot_revision, nullptr);
  EXPECT_NE(api->snapshot_change_at, nullptr);
}

}  // namespace
