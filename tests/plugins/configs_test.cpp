// The example files in configs/: the profiles parse and resolve against the installed plugins
// (warnings only for upstream defaults that are not built yet), resolve to exactly the plugin
// lists configs/README.md describes, the cluster file loads, and the two example plugins place the
// example's GPU pods where the README says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "config/config_parser.hpp"
#include "config/config_test_support.hpp"
#include "config/profile_resolver.hpp"
#include "plugin_harness.hpp"

namespace schedhost {
namespace {

using config::PluginCatalog;
using config::Profile;
using config::Resolution;
using config::testing::names_at;
using config::testing::weights_at;
using E = ExtensionPoint;
using Names = std::vector<std::string>;
using Weights = std::vector<std::pair<std::string, int>>;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string example(const std::string& file) {
  return std::string(SCHEDHOST_SOURCE_DIR) + "/configs/" + file;
}

// Every plugin in the built-in plugin directory and the examples one (as `make run` loads them).
class InstalledPlugins {
 public:
  InstalledPlugins() {
    registry_.load_directories(
        {{testing::builtin_plugin_dir(), true}, {testing::example_plugin_dir(), false}});
    for (const auto& failure : registry_.failures())
      ADD_FAILURE() << failure.path << ": " << failure.message;
    for (const loader::PluginDefinition* def : registry_.plugins())
      catalog_.emplace(def->name, def->points);
  }
  const PluginCatalog& catalog() const { return catalog_; }
  const loader::PluginRegistry& registry() const { return registry_; }

 private:
  loader::PluginRegistry registry_;
  PluginCatalog catalog_;
};

// The installed plugins plus every upstream default, as if all of them were built.
PluginCatalog complete_catalog(const PluginCatalog& installed) {
  PluginCatalog catalog = config::testing::default_catalog();
  for (const auto& [name, points] : installed)
    catalog.insert_or_assign(name, points);
  return catalog;
}

const Profile& profile(const Resolution& r, const std::string& scheduler_name) {
  const Profile* p = r.configuration.find_profile(scheduler_name);
  if (p == nullptr) throw std::runtime_error("no profile " + scheduler_name);
  return *p;
}

std::vector<std::string> profile_names(const Resolution& r) {
  std::vector<std::string> names;
  for (const Profile& p : r.configuration.profiles)
    names.push_back(p.scheduler_name);
  return names;
}

// Keeps the entries whose plugin is in the catalog.
template <class List, class Name>
List installed_only(List list, const PluginCatalog& catalog, Name name_of) {
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const auto& e) { return catalog.count(name_of(e)) == 0; }),
             list.end());
  return list;
}

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
const Names kGpuFilters = {"SamplePlugin", "ExampleFilter"};
Weights gpu_scores() {
  Weights scores = kDefaultScores;
  scores.emplace_back("SamplePlugin", 10);
  return scores;
}

// The gpu-scheduler profile of scheduler-config.yaml and sample-profile.yaml, resolved.
void expect_gpu_profile(const Profile& p, const PluginCatalog& catalog) {
  EXPECT_EQ(names_at(p, E::Filter), kGpuFilters);
  EXPECT_EQ(weights_at(p, E::Score),
            installed_only(gpu_scores(), catalog, [](const auto& e) { return e.first; }));
  EXPECT_EQ(names_at(p, E::QueueSort),
            installed_only(Names{"PrioritySort"}, catalog, [](const auto& e) { return e; }));
  EXPECT_EQ(names_at(p, E::Bind),
            installed_only(Names{"DefaultBinder"}, catalog, [](const auto& e) { return e; }));
  EXPECT_EQ(p.args_for("SamplePlugin"),
            nlohmann::json::parse(
                R"({"threshold": 90, "whitelistZones": ["zone-a"], "enableDebugLog": false})"));
  EXPECT_EQ(p.args_for("ExampleFilter"), nlohmann::json::object());
}

// A warning about an upstream default plugin that is not built yet; nothing else is expected.
void expect_only_missing_default_warnings(const Resolution& r) {
  const std::regex several_missing(
      R"(.*/configs/[a-z-]+\.yaml:[0-9]+:[0-9]+: profile "(default|gpu)-scheduler": [0-9]+ )"
      R"(default plugins are not installed, so they are skipped: "[A-Za-z]+"(, "[A-Za-z]+")*: )"
      R"(put their \.so files in a --plugin-dir, or disable them in multiPoint)");
  const std::regex one_missing(
      R"(.*/configs/[a-z-]+\.yaml:[0-9]+:[0-9]+: profile "(default|gpu)-scheduler": default )"
      R"(plugin "[A-Za-z]+" is not installed, so it is skipped: put its \.so in a --plugin-dir, )"
      R"(or disable it in multiPoint)");
  for (const std::string& w : r.warnings) {
    EXPECT_TRUE(std::regex_match(w, several_missing) || std::regex_match(w, one_missing)) << w;
  }
}

TEST(ExampleConfigs, SchedulerConfigResolvesAgainstTheInstalledPlugins) {
  const InstalledPlugins installed;
  ASSERT_EQ(installed.catalog().count("SamplePlugin"), 1u);
  ASSERT_EQ(installed.catalog().count("ExampleFilter"), 1u);
  const Resolution r = config::resolve_profiles(
      config::load_configuration(example("scheduler-config.yaml")), installed.catalog());
  EXPECT_EQ(r.configuration.api_version, "kubescheduler.config.k8s.io/v1");
  EXPECT_THAT(profile_names(r), ElementsAre("default-scheduler", "gpu-scheduler"));
  expect_only_missing_default_warnings(r);
  expect_gpu_profile(profile(r, "gpu-scheduler"), installed.catalog());
  const Profile& d = profile(r, "default-scheduler");
  EXPECT_EQ(names_at(d, E::Filter),
            installed_only(kDefaultFilters, installed.catalog(), [](const auto& e) { return e; }));
  EXPECT_EQ(weights_at(d, E::Score), installed_only(kDefaultScores, installed.catalog(),
                                                    [](const auto& e) { return e.first; }));
  EXPECT_TRUE(d.plugin_args.empty());
}

TEST(ExampleConfigs, SchedulerConfigWithEveryDefaultPluginBuilt) {
  const InstalledPlugins installed;
  const PluginCatalog catalog = complete_catalog(installed.catalog());
  const Resolution r = config::resolve_profiles(
      config::load_configuration(example("scheduler-config.yaml")), catalog);
  EXPECT_THAT(r.warnings, IsEmpty());
  const Profile& gpu = profile(r, "gpu-scheduler");
  EXPECT_EQ(names_at(gpu, E::Filter), kGpuFilters);
  EXPECT_EQ(weights_at(gpu, E::Score), gpu_scores());
  // Only the filters are replaced: the other points keep upstream's defaults.
  const Profile& d = profile(r, "default-scheduler");
  for (E point : {E::PreEnqueue, E::QueueSort, E::PreFilter, E::PostFilter, E::PreScore, E::Reserve,
                  E::Permit, E::PreBind, E::Bind, E::PostBind}) {
    EXPECT_EQ(names_at(gpu, point), names_at(d, point)) << to_string(point);
  }
  EXPECT_EQ(names_at(d, E::Filter), kDefaultFilters);
  EXPECT_EQ(weights_at(d, E::Score), kDefaultScores);
}

TEST(ExampleConfigs, TheStandaloneProfilesMatchTheCombinedOne) {
  const InstalledPlugins installed;
  for (const PluginCatalog& catalog :
       {installed.catalog(), complete_catalog(installed.catalog())}) {
    const Resolution combined = config::resolve_profiles(
        config::load_configuration(example("scheduler-config.yaml")), catalog);

    const Resolution def = config::resolve_profiles(
        config::load_configuration(example("default-profile.yaml")), catalog);
    expect_only_missing_default_warnings(def);
    EXPECT_THAT(profile_names(def), ElementsAre("default-scheduler"));
    EXPECT_EQ(profile(def, "default-scheduler").enabled,
              profile(combined, "default-scheduler").enabled);

    const Resolution sample = config::resolve_profiles(
        config::load_configuration(example("sample-profile.yaml")), catalog);
    expect_only_missing_default_warnings(sample);
    EXPECT_THAT(profile_names(sample), ElementsAre("gpu-scheduler"));
    expect_gpu_profile(profile(sample, "gpu-scheduler"), catalog);
    for (E point : kAllExtensionPoints) {
      EXPECT_EQ(weights_at(profile(sample, "gpu-scheduler"), point),
                weights_at(profile(combined, "gpu-scheduler"), point))
          << to_string(point);
    }
  }
}

TEST(ExampleConfigs, ClusterFileLoads) {
  const cluster::Cluster c = cluster::load_cluster(example("cluster.yaml"));
  Names nodes;
  for (const auto& n : c.nodes)
    nodes.push_back(n->name());
  EXPECT_EQ(nodes,
            (Names{"worker-gpu-1", "worker-gpu-2", "worker-gpu-3", "worker-cpu-1", "gpu-node-3"}));
  std::vector<std::pair<std::string, std::string>> running;
  for (const auto& p : c.running_pods)
    running.emplace_back(p->key(), p->node_name());
  EXPECT_THAT(running, ElementsAre(std::pair{"default/web-0", "worker-gpu-1"},
                                   std::pair{"ml/inference-0", "worker-gpu-2"},
                                   std::pair{"ml/render-0", "worker-gpu-3"},
                                   std::pair{"default/cache-0", "worker-cpu-1"}));
  std::vector<std::pair<std::string, std::string>> pending;
  for (const auto& p : c.pending_pods)
    pending.emplace_back(p->key(), p->scheduler_name());
  EXPECT_THAT(pending, ElementsAre(std::pair{"prod/train-prod", "gpu-scheduler"},
                                   std::pair{"dev/train-dev", "gpu-scheduler"},
                                   std::pair{"prod/train-big", "gpu-scheduler"},
                                   std::pair{"dev/notebook-dev", "gpu-scheduler"},
                                   std::pair{"default/web-1", "default-scheduler"},
                                   std::pair{"default/api-1", "default-scheduler"},
                                   std::pair{"batch/batch-1", "volcano"}));
  EXPECT_THAT(c.finished_pods, IsEmpty());
  EXPECT_THAT(c.ignored, IsEmpty());
}

// What one node made of a pod under the gpu-scheduler filters: the rejecting plugin's reason, or
// SamplePlugin's score.
struct Verdict {
  std::string reason;  // empty when the node passed
  std::int64_t score = -1;
  bool operator==(const Verdict&) const = default;
};
void PrintTo(const Verdict& v, std::ostream* os) {
  *os << (v.reason.empty() ? "score " + std::to_string(v.score) : v.reason);
}

// The example's GPU pods, through the two example plugins only (the upstream defaults the profile
// keeps are not built yet): filters in profile order, the first rejection wins, the best
// SamplePlugin score is chosen, and the snapshot is updated before the next pod.
TEST(ExampleConfigs, TheGpuPodsLandWhereTheReadmeSays) {
  const InstalledPlugins installed;
  const Resolution r = config::resolve_profiles(
      config::load_configuration(example("scheduler-config.yaml")), installed.catalog());
  const Profile& gpu = profile(r, "gpu-scheduler");
  auto sample = framework::PluginInstance::create(*installed.registry().find("SamplePlugin"),
                                                  gpu.args_for("SamplePlugin").dump());
  auto example_filter = framework::PluginInstance::create(
      *installed.registry().find("ExampleFilter"), gpu.args_for("ExampleFilter").dump());
  const framework::PluginInstance* filters[] = {sample.get(), example_filter.get()};

  const cluster::Cluster c = cluster::load_cluster(example("cluster.yaml"));
  cluster::Snapshot snapshot = c.snapshot();
  std::map<std::string, std::map<std::string, Verdict>> verdicts;
  std::map<std::string, std::string> placed;
  for (const auto& pod : c.pending_pods) {
    if (pod->scheduler_name() != "gpu-scheduler") continue;
    std::optional<std::pair<std::int64_t, std::string>> best;
    for (const cluster::NodeInfo& node : snapshot.node_infos()) {
      Verdict v;
      for (const framework::PluginInstance* f : filters) {
        const testing::Outcome out = testing::run_filter(*f, snapshot, *pod, node.name());
        if (out.code != SCHEDHOST_SUCCESS) {
          v.reason = f->name() + ": " + (out.reasons.empty() ? "" : out.reasons[0]);
          break;
        }
      }
      if (v.reason.empty()) {
        v.score = testing::run_score(*sample, snapshot, *pod, node.name()).score;
        if (!best || v.score > best->first) best.emplace(v.score, node.name());
      }
      verdicts[pod->name()][node.name()] = v;
    }
    placed[pod->name()] = best ? best->second : "<unschedulable>";
    if (best) snapshot.assume(*pod, best->second);
  }

  const Verdict no_label{"SamplePlugin: node(s) didn't have label gpu-type=nvidia"};
  const Verdict no_gpu{"SamplePlugin: Insufficient nvidia.com/gpu"};
  const Verdict not_worker{"ExampleFilter: node name does not contain 'worker'"};
  auto score = [](std::int64_t s) { return Verdict{"", s}; };
  using Nodes = std::map<std::string, Verdict>;
  // prod, zone-a: 75 + 20 beats zone-b's 88; worker-gpu-3 is over the threshold (93% >= 90).
  EXPECT_EQ(verdicts["train-prod"], (Nodes{{"worker-gpu-1", score(95)},
                                           {"worker-gpu-2", score(88)},
                                           {"worker-gpu-3", score(0)},
                                           {"worker-cpu-1", no_label},
                                           {"gpu-node-3", not_worker}}));
  // not prod: no bonus, and worker-gpu-1 now has 3 of 8 cpus requested (37%).
  EXPECT_EQ(verdicts["train-dev"], (Nodes{{"worker-gpu-1", score(63)},
                                          {"worker-gpu-2", score(88)},
                                          {"worker-gpu-3", score(0)},
                                          {"worker-cpu-1", no_label},
                                          {"gpu-node-3", not_worker}}));
  // 4 GPUs: only gpu-node-3 has them, and its name lacks "worker".
  EXPECT_EQ(verdicts["train-big"], (Nodes{{"worker-gpu-1", no_gpu},
                                          {"worker-gpu-2", no_gpu},
                                          {"worker-gpu-3", no_gpu},
                                          {"worker-cpu-1", no_label},
                                          {"gpu-node-3", not_worker}}));
  // worker-gpu-2's GPUs are all taken now.
  EXPECT_EQ(verdicts["notebook-dev"], (Nodes{{"worker-gpu-1", score(63)},
                                             {"worker-gpu-2", no_gpu},
                                             {"worker-gpu-3", score(0)},
                                             {"worker-cpu-1", no_label},
                                             {"gpu-node-3", not_worker}}));
  EXPECT_EQ(placed, (std::map<std::string, std::string>{{"train-prod", "worker-gpu-1"},
                                                        {"train-dev", "worker-gpu-2"},
                                                        {"train-big", "<unschedulable>"},
                                                        {"notebook-dev", "worker-gpu-1"}}));
}

}  // namespace
}  // namespace schedhost
