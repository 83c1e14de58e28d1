// record_event's checks (ABI 1.9), through a real plugin library in process: the types, reasons
// and messages the host takes, what reaches the framework's sink, and the calls that have none.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <mutex>
#include <string>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "cluster/pod.hpp"
#include "config/scheduler_configuration.hpp"
#include "framework/framework.hpp"
#include "framework/plugin_events.hpp"
#include "framework/plugin_exerciser.hpp"
#include "framework/plugin_instance.hpp"
#include "loader/plugin_registry.hpp"

namespace schedhost::plugin_events_test {
namespace {

using nlohmann::json;

const std::string kFixture =
    std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_events/plugin_events_fixture.so";

struct Seen {
  std::string pod, plugin, type, reason, message, hook;
  bool has_node = false;
  bool operator==(const Seen&) const = default;
};

class Collected : public framework::PluginEvents {
 public:
  void record(const cluster::Pod& pod, std::string_view plugin, std::string_view type,
              std::string_view reason, std::string_view message,
              const framework::EventSite& site) override {
    const std::lock_guard lock(mutex_);
    seen.push_back({pod.key(), std::string(plugin), std::string(type), std::string(reason),
                    std::string(message), std::string(site.hook), site.node != nullptr});
  }
  std::vector<Seen> seen;

 private:
  std::mutex mutex_;
};

class RecordEvent : public ::testing::Test {
 protected:
  RecordEvent() { registry_.load_file(kFixture); }

  // A profile whose only plugin is EventProbe, at PreFilter, recording `events`.
  std::unique_ptr<framework::Framework> probe(const json& events) {
    config::Profile profile;
    profile.scheduler_name = "default-scheduler";
    profile.enabled[static_cast<std::size_t>(ExtensionPoint::PreFilter)].push_back(
        {"EventProbe", 0, {}});
    profile.plugin_args["EventProbe"] = {{"events", events}};
    return std::make_unique<framework::Framework>(profile, registry_);
  }

  // EventProbe's answer for each event: "accepted" or "refused".
  std::vector<std::string> answers(const framework::Framework& fw) {
    framework::CycleContext cycle = fw.new_cycle();
    return fw.run_pre_filter(cycle, pod_).status.reasons;
  }

  loader::PluginRegistry registry_;
  const cluster::Pod pod_{
      json{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", "p"}, {"namespace", "default"}, {"uid", "u1"}}},
           {"spec", {{"containers", json::array()}}}}};
};

TEST_F(RecordEvent, TypeIsNormalOrWarningAndReasonUpperCamelCase) {
  const std::string longest(128, 'A');
  auto fw = probe(json::array({
      {"Normal", "Placed", "placed"},
      {"Warning", "GangTimeout", "the gang timed out"},
      {"Info", "Placed", "another type"},
      {"normal", "Placed", "types are case-sensitive"},
      {"", "Placed", "no type"},
      {"Warning", "", "no reason"},
      {"Warning", "Bad Reason", "a space"},
      {"Warning", "Bad-Reason", "a dash"},
      {"Warning", "Bad_Reason", "an underscore"},
      {"Warning", "Caf\xc3\xa9", "not ASCII"},
      {"Warning", longest, "128 bytes"},
      {"Warning", longest + "A", "129 bytes"},
      {"Normal", "V2Ready", ""},
  }));
  Collected sink;
  fw->set_plugin_events(&sink);
  EXPECT_EQ(answers(*fw),
            (std::vector<std::string>{"accepted", "accepted", "refused", "refused", "refused",
                                      "refused", "refused", "refused", "refused", "refused",
                                      "accepted", "refused", "accepted"}));
  EXPECT_EQ(sink.seen,
            (std::vector<Seen>{
                {"default/p", "EventProbe", "Normal", "Placed", "placed", "PreFilter", false},
                {"default/p", "EventProbe", "Warning", "GangTimeout", "the gang timed out",
                 "PreFilter", false},
                {"default/p", "EventProbe", "Warning", longest, "128 bytes", "PreFilter", false},
                {"default/p", "EventProbe", "Normal", "V2Ready", "", "PreFilter", false},
            }));
}

TEST_F(RecordEvent, AMessageIsCutAt1024BytesOnACharacterBoundary) {
  const std::string exact(1024, 'x');
  const std::string before_e(1023, 'a');  // then e-acute, 2 bytes: 1023..1024 would split it
  auto fw = probe(json::array({
      {"Normal", "Exact", exact},
      {"Normal", "Longer", exact + "yz"},
      {"Normal", "Split", before_e + "\xc3\xa9" + "tail"},
  }));
  Collected sink;
  fw->set_plugin_events(&sink);
  EXPECT_EQ(answers(*fw), (std::vector<std::string>{"accepted", "accepted", "accepted"}));
  ASSERT_EQ(sink.seen.size(), 3u);
  EXPECT_EQ(sink.seen[0].message, exact);
  EXPECT_EQ(sink.seen[1].message, exact);
  EXPECT_EQ(sink.seen[2].message, before_e);
}

TEST_F(RecordEvent, WithoutASinkNothingIsRecorded) {
  auto fw = probe(json::array({{"Normal", "Placed", "placed"}}));
  EXPECT_EQ(answers(*fw), (std::vector<std::string>{"refused"}));
}

// sign_pod's calls have no sink: a signature is computed, not an occasion.
TEST_F(RecordEvent, SignPodMayNotRecord) {
  auto fw = probe(json::array({{"Normal", "Placed", "placed"}}));
  Collected sink;
  fw->set_plugin_events(&sink);
  ASSERT_TRUE(fw->signs_pods());
  const std::optional<std::string> signature = fw->sign_pod(pod_);
  ASSERT_TRUE(signature.has_value());
  EXPECT_EQ(json::parse(*signature).at("probe/recorded"), false) << *signature;
  EXPECT_TRUE(sink.seen.empty());
  // The same framework's PreFilter does record.
  EXPECT_EQ(answers(*fw), (std::vector<std::string>{"accepted"}));
  EXPECT_EQ(sink.seen.size(), 1u);
}

// `schedhost exercise` has a sink too: the events are collected (and logged) with their hook and
// node, and the host's checks apply.
TEST_F(RecordEvent, TheExerciserCollectsThem) {
  const cluster::Cluster c = cluster::parse_cluster_text(
      "apiVersion: v1\nkind: Node\nmetadata: {name: big-1, labels: {size: big}}\n"
      "status: {allocatable: {cpu: '4', pods: '110'}}\n---\n"
      "apiVersion: v1\nkind: Node\nmetadata: {name: small-1, labels: {size: small}}\n"
      "status: {allocatable: {cpu: '4', pods: '110'}}\n",
      "cluster.yaml");
  const cluster::Snapshot snapshot = c.snapshot();
  const loader::PluginDefinition* eventful = registry_.find("Eventful");
  ASSERT_NE(eventful, nullptr);
  const auto instance = framework::PluginInstance::create(*eventful, "{}");
  const framework::ExerciseResult r = framework::exercise_plugin(*instance, snapshot, pod_, {});
  ASSERT_TRUE(r.pre_filter.has_value());
  EXPECT_TRUE(r.pre_filter->ok()) << r.pre_filter->message();  // Info and "" were refused
  ASSERT_EQ(r.events.size(), 1u);
  const framework::ExercisedEvent& e = r.events.front();
  EXPECT_EQ(e.hook, "Filter");
  EXPECT_EQ(e.node, "small-1");
  EXPECT_EQ(e.pod, "default/p");
  EXPECT_EQ(e.type, "Warning");
  EXPECT_EQ(e.reason, "NodeTooSmall");
  EXPECT_EQ(e.message, "node small-1 is too small for default/p");
}

}  // namespace
}  // namespace schedhost::plugin_events_test
