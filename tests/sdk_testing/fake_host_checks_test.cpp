// The fake host's checks of a library (as the host's loader), of hooks a plugin lacks, and of an
// older host emulated by a shorter host API table: hand-written C descriptors, no wrapper.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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
const schedhost_plugin_descriptor_t kTiny = {
    sizeof(schedhost_plugin_descriptor_t), "Tiny", "filter only", &kVtable, nullptr, 0, nullptr, 0};
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
  EXPECT_EQ(load_error(library(2, 0)),
            "built for plugin ABI 2.0, this host has ABI 1.9: rebuild the plugin with the 1.x SDK");
  EXPECT_EQ(load_error(library(1, 10)),
            "needs plugin ABI 1.10 or newer, this host has ABI 1.9: upgrade schedhost, or rebuild "
            "the plugin for ABI 1.9");
  EXPECT_EQ(load_error(library(1, 0)), "");
}

// A library of the given plugins (descriptors built from a name and a vtable).
struct TestLibrary {
  std::vector<schedhost_plugin_descriptor_t> descriptors;
  std::vector<const schedhost_plugin_descriptor_t*> pointers;
  schedhost_library_t lib{};

  TestLibrary(
      std::initializer_list<std::pair<const char*, const schedhost_plugin_vtable_t*>> plugins) {
    for (const auto& [name, vtable] : plugins)
      descriptors.push_back(
          {sizeof(schedhost_plugin_descriptor_t), name, "", vtable, nullptr, 0, nullptr, 0});
    for (const auto& d : descriptors)
      pointers.push_back(&d);
    lib = library(1, 0);
    lib.plugin_count = static_cast<std::uint32_t>(pointers.size());
    lib.plugins = pointers.data();
  }
};

schedhost_code_t tiny_hook(void*, schedhost_call_t*, schedhost_cycle_state_t*,
                           const schedhost_pod_t*, const schedhost_pod_t*,
                           const schedhost_node_t*) {
  return SCHEDHOST_SUCCESS;
}
schedhost_code_t tiny_normalize(void*, schedhost_call_t*, const schedhost_cycle_state_t*,
                                const schedhost_pod_t*, schedhost_node_score_t*, size_t) {
  return SCHEDHOST_SUCCESS;
}
void tiny_unreserve(void*, schedhost_call_t*, schedhost_cycle_state_t*, const schedhost_pod_t*,
                    schedhost_str_t) {}

// The host's loader refuses each of these libraries with exactly this message; so must the
// fake host, so that the author's unit test fails before the cluster does.
TEST(FakeHostChecks, RefusesWhatTheLoaderRefusesWithItsMessage) {
  EXPECT_EQ(load_error(TestLibrary({{"my-filter", &kVtable}}).lib),
            "plugin \"my-filter\" is not a valid name: must match ^[a-zA-Z][a-zA-Z0-9]*$");
  EXPECT_EQ(load_error(TestLibrary({{"9Lives", &kVtable}}).lib),
            "plugin \"9Lives\" is not a valid name: must match ^[a-zA-Z][a-zA-Z0-9]*$");
  EXPECT_EQ(load_error(TestLibrary({{"Tiny", &kVtable}, {"Tiny", &kVtable}}).lib),
            "plugin \"Tiny\" is defined twice in this library");
  EXPECT_EQ(load_error(TestLibrary({}).lib), "library \"tiny\" contains no plugins");

  schedhost_plugin_vtable_t no_hooks = tiny_vtable();
  no_hooks.filter = nullptr;
  EXPECT_EQ(load_error(TestLibrary({{"Tiny", &no_hooks}}).lib),
            "plugin \"Tiny\" implements no extension point");

  schedhost_plugin_vtable_t add_pod_alone = tiny_vtable();
  add_pod_alone.add_pod = &tiny_hook;
  add_pod_alone.remove_pod = &tiny_hook;
  EXPECT_EQ(load_error(TestLibrary({{"Tiny", &add_pod_alone}}).lib),
            "plugin \"Tiny\" implements AddPod/RemovePod without PreFilter and both of them: they "
            "extend PreFilter and come as a pair");

  schedhost_plugin_vtable_t normalize_alone = tiny_vtable();
  normalize_alone.normalize_score = &tiny_normalize;
  EXPECT_EQ(load_error(TestLibrary({{"Tiny", &normalize_alone}}).lib),
            "plugin \"Tiny\" implements NormalizeScore without Score: add Score or drop "
            "NormalizeScore");

  schedhost_plugin_vtable_t unreserve_alone = tiny_vtable();
  unreserve_alone.unreserve = &tiny_unreserve;
  EXPECT_EQ(load_error(TestLibrary({{"Tiny", &unreserve_alone}}).lib),
            "plugin \"Tiny\" implements Unreserve without Reserve: add Reserve or drop Unreserve");

  schedhost_plugin_vtable_t short_table = tiny_vtable();
  short_table.struct_size = 64;
  EXPECT_EQ(load_error(TestLibrary({{"Tiny", &short_table}}).lib),
            "plugin \"Tiny\": schedhost_plugin_vtable_t is 64 bytes, smaller than the 160 bytes "
            "of ABI 1.0: the library is corrupt or not built with the schedhost SDK");
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
  // Every function of ABI 1.0 but the preemption ones (NULL in the fake host), and 1.1's to 1.4's
  // (1.5's process_preemption is a preemption function too).
  EXPECT_NE(api->log, nullptr);
  EXPECT_NE(api->node_json, nullptr);
  EXPECT_NE(api->waiting_pod_reject, nullptr);
  EXPECT_NE(api->namespace_label_at, nullptr);
  EXPECT_NE(api->snapshot_nodes_with_pods_count, nullptr);
  EXPECT_NE(api->snapshot_nodes_with_pods_at, nullptr);
  EXPECT_NE(api->snapshot_id, nullptr);
  EXPECT_NE(api->snapshot_revision, nullptr);
  EXPECT_NE(api->snapshot_change_at, nullptr);
  EXPECT_NE(api->register_event, nullptr);
  EXPECT_NE(api->report_exception, nullptr);
}

}  // namespace
