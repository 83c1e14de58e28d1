// From a parsed file and a catalog to the plugins each profile runs: the default profile, the
// merge cases of spec §1.4, every validation error (exact text) and the warnings.
#include "config/profile_resolver.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_parser.hpp"
#include "config_test_support.hpp"

namespace schedhost::config {
namespace {

using E = ExtensionPoint;
using testing::default_catalog;
using testing::input_error_of;
using testing::names_at;
using testing::points;
using testing::weights_at;
using Names = std::vector<std::string>;
using Weights = std::vector<std::pair<std::string, int>>;

constexpr const char* kProfileHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n";

// The default catalog plus a few third-party plugins.
PluginCatalog catalog_with_extras() {
  PluginCatalog catalog = default_catalog();
  catalog.emplace("GpuFit", points({E::Filter, E::Score, E::NormalizeScore}));
  catalog.emplace("Gang", points({E::QueueSort, E::PreFilter, E::Permit, E::PostBind}));
  catalog.emplace("FifoSort", points({E::QueueSort}));
  catalog.emplace("Audit", points({E::PostBind}));
  return catalog;
}

Resolution resolve(const std::string& body, const PluginCatalog& catalog = catalog_with_extras()) {
  return resolve_profiles(parse_configuration(kProfileHeader + body, "profile.yaml"), catalog);
}

// By value: callers often pass a temporary Resolution.
Profile only_profile(const Resolution& r) {
  EXPECT_EQ(r.configuration.profiles.size(), 1u);
  return r.configuration.profiles.at(0);
}

std::string resolve_error(const std::string& body,
                          const PluginCatalog& catalog = catalog_with_extras()) {
  return input_error_of([&] { resolve(body, catalog); });
}

// Upstream v1.35's default filters.
const Names kDefaultFilters = {"NodeUnschedulable",  "NodeName",          "TaintToleration",
                               "NodeAffinity",       "NodePorts",         "NodeResourcesFit",
                               "VolumeRestrictions", "NodeVolumeLimits",  "VolumeBinding",
                               "VolumeZone",         "PodTopologySpread", "InterPodAffinity"};

const Weights kDefaultScores = {{"TaintToleration", 3},
                                {"NodeAffinity", 2},
                                {"NodeResourcesFit", 1},
                                {"VolumeBinding", 1},
                                {"PodTopologySpread", 2},
                                {"InterPodAffinity", 2},
                                {"NodeResourcesBalancedAllocation", 1},
                                {"ImageLocality", 1}};

TEST(ProfileResolver, DefaultProfileRunsUpstreamDefaultsInOrder) {
  auto r = resolve("", default_catalog());
  EXPECT_TRUE(r.warnings.empty());
  const Profile& p = only_profile(r);
  EXPECT_EQ(p.scheduler_name, "default-scheduler");
  EXPECT_EQ(names_at(p, E::PreEnqueue), Names{"SchedulingGates"});
  EXPECT_EQ(names_at(p, E::QueueSort), Names{"PrioritySort"});
  EXPECT_EQ(names_at(p, E::PreFilter),
            (Names{"NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions",
                   "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
                   "InterPodAffinity", "DynamicResources"}));
  EXPECT_EQ(names_at(p, E::Filter), kDefaultFilters);
  EXPECT_EQ(names_at(p, E::PostFilter), (Names{"DynamicResources", "DefaultPreemption"}));
  EXPECT_EQ(names_at(p, E::PreScore),
            (Names{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
                   "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(weights_at(p, E::Score), kDefaultScores);
  EXPECT_EQ(names_at(p, E::Reserve), Names{"VolumeBinding"});
  EXPECT_EQ(names_at(p, E::Permit), Names{});
  EXPECT_EQ(names_at(p, E::PreBind), Names{"VolumeBinding"});
  EXPECT_EQ(names_at(p, E::Bind), Names{"DefaultBinder"});
  EXPECT_EQ(names_at(p, E::PostBind), Names{});
  // Only the configurable points are recorded; the paired ones follow from them.
  for (auto point : {E::PreFilterExtensions, E::NormalizeScore, E::Unreserve}) {
    EXPECT_TRUE(p.enabled_at(point).empty());
  }
  // Weights are for Score only; defaults carry no location.
  EXPECT_EQ(p.enabled_at(E::Filter).at(2).weight, 0);
  EXPECT_FALSE(p.enabled_at(E::Filter).at(2).location.known());
}

TEST(ProfileResolver, DisablingOneDefaultInMultiPointRemovesItEverywhere) {
  const Profile& p = only_profile(
      resolve("profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: NodeAffinity}]\n"));
  EXPECT_EQ(names_at(p, E::PreFilter),
            (Names{"NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
                   "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity",
                   "DynamicResources"}));
  Weights scores = kDefaultScores;
  scores.erase(scores.begin() + 1);
  EXPECT_EQ(weights_at(p, E::Score), scores);
  EXPECT_EQ(names_at(p, E::Filter).size(), kDefaultFilters.size() - 1);
}

TEST(ProfileResolver, DisablingAtOnePointKeepsThePluginElsewhere) {
  const Profile& p = only_profile(
      resolve("profiles:\n- plugins:\n    score:\n      disabled: [{name: ImageLocality},"
              " {name: NodeResourcesBalancedAllocation}]\n"));
  EXPECT_EQ(weights_at(p, E::Score), (Weights{{"TaintToleration", 3},
                                              {"NodeAffinity", 2},
                                              {"NodeResourcesFit", 1},
                                              {"VolumeBinding", 1},
                                              {"PodTopologySpread", 2},
                                              {"InterPodAffinity", 2}}));
  // PreScore still has it: upstream disables per extension point.
  EXPECT_EQ(names_at(p, E::PreScore).back(), "NodeResourcesBalancedAllocation");
}

TEST(ProfileResolver, StarThenEnableTakesThePointOver) {
  const Profile& p =
      only_profile(resolve("profiles:\n"
                           "- plugins:\n"
                           "    score:\n"
                           "      disabled: [{name: '*'}]\n"
                           "      enabled:\n"
                           "      - {name: ImageLocality, weight: 5}\n"
                           "      - {name: GpuFit}\n"));
  EXPECT_EQ(weights_at(p, E::Score), (Weights{{"ImageLocality", 5}, {"GpuFit", 1}}));
  EXPECT_EQ(p.enabled_at(E::Score).at(0).location.to_string(), "profile.yaml:8:16");
  // Other points keep their multiPoint plugins.
  EXPECT_EQ(names_at(p, E::Filter), kDefaultFilters);
}

TEST(ProfileResolver, StarInMultiPointThenEnableASubset) {
  const Profile& p = only_profile(
      resolve("profiles:\n"
              "- plugins:\n"
              "    multiPoint:\n"
              "      disabled: [{name: '*'}]\n"
              "      enabled: [{name: PrioritySort}, {name: NodeName}, {name: TaintToleration},"
              " {name: DefaultBinder}]\n"));
  EXPECT_EQ(names_at(p, E::QueueSort), Names{"PrioritySort"});
  EXPECT_EQ(names_at(p, E::Filter), (Names{"NodeName", "TaintToleration"}));
  EXPECT_EQ(names_at(p, E::PreScore), Names{"TaintToleration"});
  // Re-enabled without a weight: the default weight is gone, so it is 1.
  EXPECT_EQ(weights_at(p, E::Score), (Weights{{"TaintToleration", 1}}));
  EXPECT_EQ(names_at(p, E::Bind), Names{"DefaultBinder"});
  EXPECT_TRUE(names_at(p, E::PreEnqueue).empty());
  EXPECT_TRUE(names_at(p, E::PostFilter).empty());
}

TEST(ProfileResolver, ReEnablingADefaultAtScoreMovesItFirstWithTheNewWeight) {
  const Profile p = only_profile(resolve(
      "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourcesFit, weight: 5}]\n"));
  EXPECT_EQ(weights_at(p, E::Score), (Weights{{"NodeResourcesFit", 5},
                                              {"TaintToleration", 3},
                                              {"NodeAffinity", 2},
                                              {"VolumeBinding", 1},
                                              {"PodTopologySpread", 2},
                                              {"InterPodAffinity", 2},
                                              {"NodeResourcesBalancedAllocation", 1},
                                              {"ImageLocality", 1}}));
  EXPECT_EQ(p.enabled_at(E::Score).at(0).location.to_string(), "profile.yaml:6:24");
  // Only Score is overridden; Filter keeps the default order.
  EXPECT_EQ(names_at(p, E::Filter), kDefaultFilters);
}

TEST(ProfileResolver, ReEnablingADefaultInMultiPointReplacesItInPlace) {
  const Profile& p = only_profile(
      resolve("profiles:\n- plugins:\n    multiPoint:\n"
              "      enabled: [{name: TaintToleration, weight: 10}, {name: GpuFit, weight: 4}]\n"));
  Weights scores = kDefaultScores;
  scores[0].second = 10;
  scores.emplace_back("GpuFit", 4);
  EXPECT_EQ(weights_at(p, E::Score), scores);
  Names filters = kDefaultFilters;
  filters.push_back("GpuFit");
  EXPECT_EQ(names_at(p, E::Filter), filters);
}

TEST(ProfileResolver, ExplicitScoreWeightBeatsMultiPointWeight) {
  const Profile& p =
      only_profile(resolve("profiles:\n- plugins:\n"
                           "    multiPoint:\n      enabled: [{name: GpuFit, weight: 4}]\n"
                           "    score:\n      enabled: [{name: GpuFit, weight: 9}]\n"));
  EXPECT_EQ(weights_at(p, E::Score).front(), (std::pair<std::string, int>{"GpuFit", 9}));
  EXPECT_EQ(weights_at(p, E::Score).size(), kDefaultScores.size() + 1);
}

TEST(ProfileResolver, UserPluginsAtAPointRunAfterTheMultiPointOnes) {
  const Profile& p =
      only_profile(resolve("profiles:\n- plugins:\n"
                           "    filter:\n      enabled: [{name: GpuFit}]\n"
                           "    postBind:\n      enabled: [{name: Audit}]\n"));
  Names filters = kDefaultFilters;
  filters.push_back("GpuFit");
  EXPECT_EQ(names_at(p, E::Filter), filters);
  EXPECT_EQ(names_at(p, E::PostBind), Names{"Audit"});
  // Enabled at filter only: it does not score.
  EXPECT_EQ(weights_at(p, E::Score), kDefaultScores);
}

TEST(ProfileResolver, MultiPointPluginCanBeDisabledAtOnePoint) {
  const Profile& p =
      only_profile(resolve("profiles:\n- plugins:\n"
                           "    multiPoint:\n      enabled: [{name: Gang}]\n"
                           "    queueSort:\n      disabled: [{name: PrioritySort}]\n"
                           "    permit:\n      disabled: [{name: Gang}]\n"));
  EXPECT_EQ(names_at(p, E::QueueSort), Names{"Gang"});
  EXPECT_EQ(names_at(p, E::PreFilter).back(), "Gang");
  EXPECT_TRUE(names_at(p, E::Permit).empty());
  EXPECT_EQ(names_at(p, E::PostBind), Names{"Gang"});
}

TEST(ProfileResolver, ZeroWeightBecomesOneAndNegativeIsKept) {
  const Profile& p =
      only_profile(resolve("profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: '*'}]\n"
                           "      enabled: [{name: PrioritySort}, {name: DefaultBinder},"
                           " {name: ImageLocality, weight: 0}, {name: GpuFit, weight: -2}]\n"));
  EXPECT_EQ(weights_at(p, E::Score), (Weights{{"ImageLocality", 1}, {"GpuFit", -2}}));
}

TEST(ProfileResolver, SampleFileWithTwoProfiles) {
  const std::string path =
      std::string(SCHEDHOST_SOURCE_DIR) + "/tests/config/data/two-profiles.yaml";
  auto r = resolve_profiles(load_configuration(path), catalog_with_extras());
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  const auto& profiles = r.configuration.profiles;
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(weights_at(profiles[0], E::Score), kDefaultScores);
  EXPECT_EQ(profiles[0].args_for("DefaultPreemption"),
            nlohmann::json::parse(R"({"minCandidateNodesPercentage": 20,
                                      "minCandidateNodesAbsolute": 50})"));
  EXPECT_EQ(weights_at(profiles[1], E::Score), (Weights{{"NodeResourcesFit", 3},
                                                        {"TaintToleration", 3},
                                                        {"NodeAffinity", 2},
                                                        {"VolumeBinding", 1},
                                                        {"PodTopologySpread", 2},
                                                        {"InterPodAffinity", 2},
                                                        {"ImageLocality", 1},
                                                        {"GpuFit", 5}}));
  EXPECT_EQ(profiles[1].args_for("GpuFit"),
            nlohmann::json::parse(R"({"minFreeMemory": "16Gi", "exclusive": true})"));
  EXPECT_EQ(profiles[1].args_for("NodeResourcesFit")["scoringStrategy"]["resources"][1],
            nlohmann::json::parse(R"({"name": "nvidia.com/gpu", "weight": 5})"));
  EXPECT_EQ(r.configuration.parallelism, 8);
}

// v1beta3 (gone from kube-scheduler since v1.29) still works, read as v1, with one warning line
// naming the file and position.
TEST(ProfileResolver, V1beta3ResolvesLikeV1WithADeprecationWarning) {
  const std::string path = std::string(SCHEDHOST_SOURCE_DIR) + "/tests/config/data/minimal-v1.yaml";
  auto v1 = resolve_profiles(load_configuration(path), default_catalog());
  EXPECT_TRUE(v1.warnings.empty());
  auto v1beta3 =
      resolve_profiles(parse_configuration("apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                                           "kind: KubeSchedulerConfiguration\n",
                                           "old.yaml"),
                       default_catalog());
  EXPECT_EQ(v1.configuration.profiles.at(0).enabled, v1beta3.configuration.profiles.at(0).enabled);
  EXPECT_THAT(v1beta3.warnings,
              ::testing::ElementsAre(
                  "old.yaml:1:13: apiVersion kubescheduler.config.k8s.io/v1beta3 is deprecated "
                  "(kube-scheduler reads only kubescheduler.config.k8s.io/v1 since v1.29): "
                  "schedhost reads it as kubescheduler.config.k8s.io/v1, whose defaults are the "
                  "same (v1 also lets a profile set percentageOfNodesToScore); change the "
                  "apiVersion to kubescheduler.config.k8s.io/v1"));
}

// --- warnings ------------------------------------------------------------------------------------

TEST(ProfileResolver, MissingDefaultPluginsAreSkippedWithAWarning) {
  PluginCatalog catalog = default_catalog();
  catalog.erase("NodeName");
  catalog.erase("ImageLocality");
  auto r = resolve("profiles:\n- schedulerName: s\n", catalog);
  EXPECT_EQ(r.warnings,
            (std::vector<std::string>{
                "profile.yaml:4:3: profile \"s\": 2 default plugins are not installed, so they are "
                "skipped: \"NodeName\", \"ImageLocality\": put their .so files in a "
                "--plugin-dir, or disable them in multiPoint"}));
  const Profile& p = only_profile(r);
  EXPECT_EQ(names_at(p, E::Filter).size(), kDefaultFilters.size() - 1);
  EXPECT_EQ(weights_at(p, E::Score).back(),
            (std::pair<std::string, int>{"NodeResourcesBalancedAllocation", 1}));
}

TEST(ProfileResolver, DisabledMissingDefaultsAreNotWarnedAbout) {
  PluginCatalog catalog = default_catalog();
  catalog.erase("NodeName");
  auto r = resolve("profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: NodeName}]\n",
                   catalog);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(ProfileResolver, UnusedPluginConfigIsAWarning) {
  auto r =
      resolve("profiles:\n- pluginConfig:\n  - name: GpuFit\n    args: {a: 1}\n  - name: Audit\n");
  EXPECT_EQ(
      r.warnings,
      (std::vector<std::string>{
          "profile.yaml:5:11: profile \"default-scheduler\": pluginConfig for plugin "
          "\"GpuFit\" is ignored: the profile does not enable \"GpuFit\"; enable it or remove "
          "the entry",
          "profile.yaml:7:11: profile \"default-scheduler\": pluginConfig for plugin "
          "\"Audit\" is ignored: the profile does not enable \"Audit\"; enable it or remove "
          "the entry"}));
}

// --- errors --------------------------------------------------------------------------------------

TEST(ProfileResolver, UnknownPluginIsAnError) {
  EXPECT_EQ(resolve_error("profiles:\n- plugins:\n    filter:\n      enabled: [{name: Foo}]\n"),
            "profile.yaml:6:24: plugin \"Foo\" is not installed: put its .so in a --plugin-dir, or "
            "remove it");
  EXPECT_EQ(resolve_error("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n"
                          "      - name: Foo\n"),
            "profile.yaml:7:15: plugin \"Foo\" is not installed: put its .so in a --plugin-dir, or "
            "remove it");
}

TEST(ProfileResolver, ADefaultTheUserNamesMustBeInstalled) {
  PluginCatalog catalog = default_catalog();
  catalog.erase("NodeResourcesFit");
  EXPECT_EQ(resolve_error("profiles:\n- plugins:\n    score:\n"
                          "      enabled: [{name: NodeResourcesFit, weight: 2}]\n",
                          catalog),
            "profile.yaml:6:24: plugin \"NodeResourcesFit\" is not installed: put its .so in a "
            "--plugin-dir, or remove it");
}

TEST(ProfileResolver, PluginAtAPointItDoesNotImplementIsAnError) {
  EXPECT_EQ(resolve_error("profiles:\n- plugins:\n    filter:\n      enabled: [{name: Audit}]\n"),
            "profile.yaml:6:24: plugin \"Audit\" does not implement Filter: remove it from filter "
            "or use multiPoint");
  EXPECT_EQ(resolve_error("profiles:\n- plugins:\n    preEnqueue:\n"
                          "      enabled: [{name: ImageLocality}]\n"),
            "profile.yaml:6:24: plugin \"ImageLocality\" does not implement PreEnqueue: remove it "
            "from preEnqueue or use multiPoint");
}

TEST(ProfileResolver, PluginTwiceAtAPointIsAnError) {
  EXPECT_EQ(resolve_error("profiles:\n- plugins:\n    filter:\n      enabled:\n"
                          "      - name: GpuFit\n      - name: GpuFit\n"),
            "profile.yaml:8:15: plugin \"GpuFit\" is enabled twice in filter (first at "
            "profile.yaml:7:15): remove one of them");
  EXPECT_EQ(resolve_error("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n"
                          "      - name: GpuFit\n      - name: GpuFit\n"),
            "profile.yaml:8:15: plugin \"GpuFit\" is enabled twice in multiPoint (first at "
            "profile.yaml:7:15): remove one of them");
}

TEST(ProfileResolver, QueueSortMustBeExactlyOne) {
  EXPECT_EQ(resolve_error("profiles:\n- schedulerName: s\n  plugins:\n    multiPoint:\n"
                          "      disabled: [{name: PrioritySort}]\n"),
            "profile.yaml:4:3: profile \"s\" has no queueSort plugin: enable exactly one in "
            "queueSort or multiPoint (the default is PrioritySort)");
  EXPECT_EQ(resolve_error("profiles:\n- schedulerName: s\n  plugins:\n    queueSort:\n"
                          "      enabled: [{name: FifoSort}]\n"),
            "profile.yaml:7:24: profile \"s\" has 2 queueSort plugins (\"PrioritySort\", "
            "\"FifoSort\"): keep exactly one and disable the others in queueSort");
}

TEST(ProfileResolver, MissingDefaultQueueSortFailsAfterItsWarning) {
  PluginCatalog catalog = default_catalog();
  catalog.erase("PrioritySort");
  EXPECT_EQ(resolve_error("", catalog),
            "profile.yaml: profile \"default-scheduler\" has no queueSort plugin: enable exactly "
            "one in queueSort or multiPoint (the default is PrioritySort)");
}

TEST(ProfileResolver, BindPluginIsRequired) {
  EXPECT_EQ(resolve_error("profiles:\n- schedulerName: s\n  plugins:\n    bind:\n"
                          "      disabled: [{name: '*'}]\n"),
            "profile.yaml:4:3: profile \"s\" has no bind plugin: enable one in bind or multiPoint "
            "(the default is DefaultBinder)");
}

TEST(ProfileResolver, QueueSortMustMatchAcrossProfiles) {
  EXPECT_EQ(resolve_error("profiles:\n"
                          "- schedulerName: a\n"
                          "- schedulerName: b\n"
                          "  plugins:\n"
                          "    queueSort:\n"
                          "      disabled: [{name: '*'}]\n"
                          "      enabled: [{name: FifoSort}]\n"),
            "profile.yaml:9:24: profile \"b\" uses queueSort plugin \"FifoSort\" but profile \"a\" "
            "uses \"PrioritySort\": every profile must use the same queueSort plugin");
  EXPECT_EQ(resolve_error("profiles:\n"
                          "- schedulerName: a\n"
                          "- schedulerName: b\n"
                          "  pluginConfig:\n"
                          "  - name: PrioritySort\n"
                          "    args: {x: 1}\n"),
            "profile.yaml:7:11: profile \"b\" gives queueSort plugin \"PrioritySort\" other args "
            "than profile \"a\": every profile must use the same queueSort args");
}

TEST(ProfileResolver, ProfileNamesMustBeSetAndUnique) {
  EXPECT_EQ(resolve_error("profiles:\n- schedulerName: a\n- plugins: {}\n"),
            "profile.yaml:5:3: profiles[1] has no schedulerName: set a unique schedulerName (only "
            "a lone profile defaults to \"default-scheduler\")");
  EXPECT_EQ(resolve_error("profiles:\n- schedulerName: \"\"\n"),
            "profile.yaml:4:18: profiles[0] has no schedulerName: set a unique schedulerName (only "
            "a lone profile defaults to \"default-scheduler\")");
  EXPECT_EQ(resolve_error("profiles:\n- schedulerName: a\n- schedulerName: b\n"
                          "- schedulerName: a\n"),
            "profile.yaml:6:18: profile \"a\" is defined twice (first at profile.yaml:4:18): give "
            "each profile a unique schedulerName");
}

TEST(ProfileResolver, ValueRangesAreChecked) {
  EXPECT_EQ(resolve_error("parallelism: 0\n"),
            "profile.yaml:3:14: parallelism 0 is not valid: set an integer greater than zero (the "
            "default is 16)");
  EXPECT_EQ(resolve_error("percentageOfNodesToScore: 101\n"),
            "profile.yaml:3:27: percentageOfNodesToScore 101 is not in the valid range [0-100]: "
            "set a percentage from 0 to 100 (0 means adaptive)");
  EXPECT_EQ(resolve_error("percentageOfNodesToScore: -1\n"),
            "profile.yaml:3:27: percentageOfNodesToScore -1 is not in the valid range [0-100]: "
            "set a percentage from 0 to 100 (0 means adaptive)");
  EXPECT_EQ(resolve_error("podInitialBackoffSeconds: 0\n"),
            "profile.yaml:3:27: podInitialBackoffSeconds 0 is not valid: set a number of seconds "
            "greater than 0 (the default is 1)");
  EXPECT_EQ(resolve_error("podInitialBackoffSeconds: 30\n"),
            "profile.yaml:3:27: podMaxBackoffSeconds 10 is less than podInitialBackoffSeconds 30: "
            "set podMaxBackoffSeconds greater than or equal to podInitialBackoffSeconds");
  EXPECT_EQ(input_error_of([] {
              resolve_profiles(parse_configuration("apiVersion: kubescheduler.config.k8s.io/v1\n"
                                                   "kind: KubeSchedulerConfiguration\n"
                                                   "profiles:\n- schedulerName: a\n"
                                                   "  percentageOfNodesToScore: 200\n",
                                                   "profile.yaml"),
                               default_catalog());
            }),
            "profile.yaml:5:29: profile \"a\": percentageOfNodesToScore 200 is not in the valid "
            "range [0-100]: set a percentage from 0 to 100, or remove it to use the global value");
}

TEST(ProfileResolver, AConfigurationBuiltWithoutProfilesIsRejected) {
  SchedulerConfiguration c;
  c.file = "built.yaml";
  EXPECT_EQ(input_error_of([&] { resolve_profiles(c, default_catalog()); }),
            "built.yaml: the configuration has no profile: add one under profiles");
}

TEST(ProfileResolver, BoundaryValuesAreAccepted) {
  EXPECT_NO_THROW(
      resolve("parallelism: 1\npercentageOfNodesToScore: 100\n"
              "podInitialBackoffSeconds: 10\n"));
  EXPECT_NO_THROW(resolve("percentageOfNodesToScore: 0\n"));
}

}  // namespace
}  // namespace schedhost::config
