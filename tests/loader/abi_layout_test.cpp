// The host's knowledge of ABI 1.0 sizes, and reading structs of another minor's size.
#include <gtest/gtest.h>

#include "loader/abi_layout.hpp"

namespace schedhost::loader {
namespace {

TEST(AbiLayout, OneDotZeroSizesAreTheHeaderSizesOfThisMajor) {
  // 1.1, 1.2, 1.4 and 1.5 appended to the host table only; 1.3 to the vtable too
  // (events_to_register and queueing_hint), and 1.6 (sign_pod and pre_bind_pre_flight): the
  // other structs a plugin fills in keep their 1.0 sizes. 1.7 added action bits, no field; 1.8
  // appended to the host table and to schedhost_cluster_event_t, which the host fills in; 1.9 to
  // the host table and to the plugin descriptor (the declared resources and metrics).
  static_assert(SCHEDHOST_ABI_MINOR == 9, "update: a later minor only makes structs longer");
  EXPECT_EQ(sizeof(schedhost_library_t), kLibrarySize_1_0);
  EXPECT_EQ(sizeof(schedhost_plugin_descriptor_t),
            kPluginDescriptorSize_1_0 + 2 * sizeof(void*) + 2 * sizeof(size_t));
  EXPECT_EQ(offsetof(schedhost_plugin_descriptor_t, resources), kPluginDescriptorSize_1_0);
  EXPECT_EQ(sizeof(schedhost_plugin_vtable_t), kPluginVtableSize_1_0 + 4 * sizeof(void*));
  EXPECT_EQ(offsetof(schedhost_plugin_vtable_t, events_to_register), kPluginVtableSize_1_0);
  EXPECT_EQ(sizeof(schedhost_state_ops_t), kStateOpsSize_1_0);
}

schedhost_code_t some_filter(void*, schedhost_call_t*, const schedhost_cycle_state_t*,
                             const schedhost_pod_t*, const schedhost_node_t*) {
  return SCHEDHOST_SUCCESS;
}
void some_post_bind(void*, schedhost_call_t*, schedhost_cycle_state_t*, const schedhost_pod_t*,
                    schedhost_str_t) {}

TEST(AbiLayout, AShorterTableReadsItsMissingTailAsNull) {
  // A table as an older minor would have filled it: only up to and including `filter`.
  schedhost_plugin_vtable_t older{};
  older.filter = &some_filter;
  older.post_bind = &some_post_bind;  // beyond the declared size: must not be read
  const auto declared = static_cast<std::uint32_t>(offsetof(schedhost_plugin_vtable_t, filter) +
                                                   sizeof(older.filter));
  const auto copy = copy_struct_prefix(&older, declared);
  EXPECT_EQ(copy.filter, &some_filter);
  EXPECT_EQ(copy.post_bind, nullptr);
  EXPECT_EQ(copy.get_extension, nullptr);
  EXPECT_EQ(copy.events_to_register, nullptr);
  EXPECT_EQ(copy.queueing_hint, nullptr);
  EXPECT_EQ(copy.sign_pod, nullptr);
  EXPECT_EQ(copy.pre_bind_pre_flight, nullptr);
}

TEST(AbiLayout, ALongerTableIsReadOnlyUpToOurSize) {
  struct Longer {
    schedhost_plugin_vtable_t known;
    void* future;
  } longer{};
  longer.known.filter = &some_filter;
  longer.future = &longer;
  const auto copy = copy_struct_prefix(&longer.known, static_cast<std::uint32_t>(sizeof longer));
  EXPECT_EQ(copy.filter, &some_filter);
}

}  // namespace
}  // namespace schedhost::loader
