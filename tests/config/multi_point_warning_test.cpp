// Issue 15, item 1 (the host's part): a plugin the user enables in multiPoint that ends up at no
// extension point of a profile is a warning naming the profile, the plugin and its file (upstream
// allows it silently; it is usually a plugin whose hooks are misspelt or all disabled).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "config_test_support.hpp"

namespace schedhost::config::multi_point_warning_test {

using E = ExtensionPoint;
using testing::default_catalog;
using testing::names_at;
using testing::points;

PluginCatalog catalog() {
  PluginCatalog c = default_catalog();
  c.emplace("GpuFilter", points({E::Filter}));
  c.emplace("GpuPolicy", points({E::Filter, E::Score, E::NormalizeScore}));
  // Only hooks multiPoint does not expand to (the loader refuses such a library; a catalog can
  // still hold it).
  c.emplace("Hookless", points({E::NormalizeScore}));
  return c;
}

PluginOrigins origins() {
  PluginOrigins o;
  o.files = {{"GpuFilter", "/plugins/gpu.so"}, {"GpuPolicy", "/plugins/gpu.so"}};
  return o;
}

// The multiPoint entry's name is on line 8, column 19.
std::vector<std::string> warnings(const std::string& multi_point_name, const std::string& rest,
                                  const PluginOrigins& o = origins()) {
  const std::string text =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - schedulerName: gpu\n"
      "    plugins:\n"
      "      multiPoint:\n"
      "        enabled:\n"
      "          - name: " +
      multi_point_name + "\n" + rest;
  return resolve_profiles(parse_configuration(text, "profile.yaml"), catalog(), o).warnings;
}

TEST(MultiPointWarning, APluginWhoseEveryPointIsDisabledRunsNowhere) {
  EXPECT_EQ(
      warnings("GpuFilter", "      filter:\n        disabled:\n          - name: GpuFilter\n"),
      (std::vector<std::string>{
          "profile.yaml:8:19: profile \"gpu\": multiPoint plugin \"GpuFilter\" "
          "(/plugins/gpu.so) implements none of the hooks multiPoint expands to in this "
          "profile, so it runs at no extension point: it implements Filter, which the "
          "profile disables (filter); enable it there, or remove it from multiPoint"}));
  EXPECT_EQ(warnings("GpuPolicy",
                     "      filter:\n        disabled:\n          - name: '*'\n"
                     "      score:\n        disabled:\n          - name: GpuPolicy\n"),
            (std::vector<std::string>{
                "profile.yaml:8:19: profile \"gpu\": multiPoint plugin \"GpuPolicy\" "
                "(/plugins/gpu.so) implements none of the hooks multiPoint expands to in this "
                "profile, so it runs at no extension point: it implements Filter, Score, which "
                "the profile disables (filter, score); enable it there, or remove it from "
                "multiPoint"}));
}

TEST(MultiPointWarning, APluginWithNoHookMultiPointExpandsTo) {
  EXPECT_EQ(warnings("Hookless", "", {}),
            (std::vector<std::string>{
                "profile.yaml:8:19: profile \"gpu\": multiPoint plugin \"Hookless\" implements "
                "none of the hooks multiPoint expands to (PreEnqueue, QueueSort, PreFilter, "
                "Filter, PostFilter, PreScore, Score, Reserve, Permit, PreBind, Bind, PostBind), "
                "so it runs at no extension point: check the names of its hooks, or remove it "
                "from multiPoint"}));
}

TEST(MultiPointWarning, NoWarningWhenThePluginRunsSomewhere) {
  EXPECT_EQ(warnings("GpuPolicy", "      filter:\n        disabled:\n          - name: '*'\n"),
            std::vector<std::string>{});
  // Listed at the point it was disabled at through '*': it runs there.
  EXPECT_EQ(warnings("GpuFilter",
                     "      filter:\n        disabled:\n          - name: '*'\n"
                     "        enabled:\n          - name: GpuFilter\n"),
            std::vector<std::string>{});
}

TEST(MultiPointWarning, DefaultPluginsLeftWithoutAPointAreNotWarnedAbout) {
  // '*' at filter leaves NodeUnschedulable, NodeName, ... (Filter only) at no point: the user
  // asked for that.
  EXPECT_EQ(warnings("GpuFilter",
                     "      filter:\n        disabled:\n          - name: '*'\n"
                     "        enabled:\n          - name: GpuFilter\n"),
            std::vector<std::string>{});
}

}  // namespace schedhost::config::multi_point_warning_test
