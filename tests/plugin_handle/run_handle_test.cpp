// The plugin handle (ABI 1.9) in `schedhost run`, with the fixture plugins of
// tests/plugin_handle/fixtures: a custom resource they declare is read from the cluster file,
// listed by label selector, written in PreBind (the writes apply to the run's objects, later
// cycles see them, and the output lists what they left), refused from Filter; two plugins that
// disagree on a resource stop the run; `schedhost plugins` lists what a plugin declares.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::plugin_handle_test {
namespace {

using nlohmann::json;

const std::string kFixtures = std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_handle";

// Two profiles: "reader" filters with WidgetReader, "writer" binds with WidgetWriter's PreBind.
const char* const kProfiles = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: reader
    plugins:
      multiPoint:
        disabled: [{name: '*'}]
      queueSort: {enabled: [{name: PrioritySort}]}
      filter: {enabled: [{name: WidgetReader}]}
      bind: {enabled: [{name: DefaultBinder}]}
  - schedulerName: writer
    plugins:
      multiPoint:
        disabled: [{name: '*'}]
      queueSort: {enabled: [{name: PrioritySort}]}
      preBind: {enabled: [{name: WidgetWriter}]}
      bind: {enabled: [{name: DefaultBinder}]}
)";

std::string widget(const std::string& name, const std::string& ns, const std::string& labels) {
  return "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: " + name +
         ", namespace: " + ns + ", labels: " + labels + "}\nspec: {}\n---\n";
}

// A pending pod of `scheduler`, created `second` seconds into the day (the queue's order).
std::string pod(const std::string& name, const std::string& scheduler, int second,
                const std::string& annotations) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: shop, creationTimestamp: '2026-01-01T00:00:0" + std::to_string(second) +
         "Z', annotations: " + annotations + "}\nspec:\n  schedulerName: " + scheduler +
         "\n  containers: [{name: c, image: pause}]\n---\n";
}

const std::string kCluster =
    "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nstatus: {allocatable: {cpu: '4', "
    "memory: 8Gi, pods: '110'}}\n---\n" +
    widget("w1", "shop", "{size: small, color: red}") + widget("w2", "shop", "{size: large}") +
    widget("doomed", "shop", "{}") + widget("w3", "other", "{size: small}") +
    pod("all", "reader", 1, "{select: ''}") + pod("small", "reader", 2, "{select: 'size=small'}") +
    pod("bad", "reader", 3, "{select: 'size in ('}") +
    pod("refused", "reader", 4, "{write-from-filter: 'yes'}") +
    pod("writer", "writer", 5, "{writes: 'create,status,jsonpatch,conflict,delete'}") +
    pod("after", "reader", 6, "{select: 'size=large'}");

std::map<std::string, json> by_pod(const json& output) {
  std::map<std::string, json> out;
  for (const json& p : output.at("pods"))
    out[p.at("pod").get<std::string>()] = p;
  return out;
}

TEST(PluginHandleRun, DeclaredObjectsAreListedBySelectorWrittenInPreBindAndSeenAfterwards) {
  testing::ScratchDir dir;
  const testing::ProcessResult r = testing::run_schedhost(
      {"run", "--config", dir.write("profiles.yaml", kProfiles), "--cluster",
       dir.write("cluster.yaml", kCluster), "--plugin-dir", kFixtures, "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // the Widgets are a declared resource: read, not warned about
  const json output = json::parse(r.out);
  const auto pods = by_pod(output);
  // The pod's namespace only, ordered by name; the selector as upstream's labels.Parse reads it.
  EXPECT_EQ(pods.at("shop/all").at("message"), "0/1 nodes are available: 1 widgets: doomed w1 w2.");
  EXPECT_EQ(pods.at("shop/small").at("message"), "0/1 nodes are available: 1 widgets: w1.");
  EXPECT_EQ(pods.at("shop/bad").at("result"), "Error");
  EXPECT_EQ(pods.at("shop/bad").at("message"),
            "running \"WidgetReader\" filter plugin: label selector \"size in (\": expected "
            "\")\" at column 10");
  // A write from Filter is refused at the call, and the plugin is told why.
  EXPECT_EQ(pods.at("shop/refused").at("message"),
            "0/1 nodes are available: 1 api_request: refused from Filter: only PreBind, Bind, "
            "PostBind and Unreserve may send requests to the API server (the hooks upstream lets "
            "block); Filter and Score must not wait on it.");
  // The writer's PreBind, answered as the API server answers a custom resource.
  EXPECT_EQ(pods.at("shop/writer").at("result"), "Scheduled");
  const auto wrote = [](const std::string& message) {
    return json{
        {"plugin", "WidgetWriter"}, {"type", "Normal"}, {"reason", "Wrote"}, {"message", message}};
  };
  EXPECT_EQ(pods.at("shop/writer").at("events"),
            json::array({wrote("create 201"), wrote("status 200"), wrote("jsonpatch 200"),
                         wrote("conflict 409"), wrote("delete 200")}));
  // A later cycle sees what the writes made: the new Widget, relabelled large by the JSON patch.
  EXPECT_EQ(pods.at("shop/after").at("message"),
            "0/1 nodes are available: 1 widgets: made-by-writer w2.");
  // What the run's writes left, by resource and key: the deleted one is said to be.
  ASSERT_EQ(output.at("written").size(), 2u) << output.at("written").dump(2);
  const json& deleted = output.at("written").at(0);
  EXPECT_EQ(deleted, json::parse(R"({"resource": "widgets.v1.example.com",
                                     "object": "shop/doomed", "deleted": true})"));
  const json& made = output.at("written").at(1);
  EXPECT_EQ(made.at("object"), "shop/made-by-writer");
  const json& state = made.at("state");
  EXPECT_EQ(state.at("metadata").at("labels"), json::parse(R"({"size": "large"})"));
  EXPECT_EQ(state.at("metadata").at("generation"), 1);  // only metadata and status changed
  EXPECT_EQ(state.at("metadata").at("resourceVersion"), "4");
  EXPECT_EQ(state.at("spec"), json::parse(R"({"node": "node-a"})"));
  EXPECT_EQ(state.at("status"), json::parse(R"({"placed": true})"));
}

// A declared kind's objects must be of the version the plugin reads.
TEST(PluginHandleRun, AnObjectOfAnotherVersionOfADeclaredKindIsOneErrorLine) {
  testing::ScratchDir dir;
  const std::string cluster =
      dir.write("cluster.yaml",
                "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w, namespace: "
                "shop}\n");
  const testing::ProcessResult r =
      testing::run_schedhost({"run", "--config", dir.write("profiles.yaml", kProfiles), "--cluster",
                              cluster, "--plugin-dir", kFixtures});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + cluster +
                       ":1:13: Widget \"shop/w\": apiVersion \"example.com/v2\" is not supported "
                       "for kind Widget: use apiVersion: example.com/v1\n");
}

// No enabled plugin reads Widgets: they are kept as read and said to count for nothing.
TEST(PluginHandleRun, UndeclaredCustomResourcesAreStillOneWarningLine) {
  testing::ScratchDir dir;
  const std::string profile = dir.write(
      "profile.yaml",
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
      "  - schedulerName: default-scheduler\n");
  const std::string cluster = dir.write("cluster.yaml", widget("w1", "shop", "{}"));
  const testing::ProcessResult r = testing::run_schedhost(
      {"run", "--config", profile, "--cluster", cluster, "--plugin-dir", kFixtures});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "warning: " + cluster +
                       ":1:1: Widget \"shop/w1\" is not modelled by schedhost and counted for "
                       "nothing: no scheduling plugin reads this kind\n");
}

TEST(PluginHandleRun, TwoPluginsThatDisagreeOnAResourceStopTheRun) {
  testing::ScratchDir dir;
  std::string profiles = kProfiles;
  profiles.replace(profiles.find("filter: {enabled: [{name: WidgetReader}]}"),
                   std::string("filter: {enabled: [{name: WidgetReader}]}").size(),
                   "filter: {enabled: [{name: WidgetReader}, {name: ClusterWidgets}]}");
  const testing::ProcessResult r =
      testing::run_schedhost({"run", "--config", dir.write("profiles.yaml", profiles), "--cluster",
                              dir.write("cluster.yaml", kCluster), "--plugin-dir", kFixtures});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: plugin \"ClusterWidgets\" declares the resource \"widgets.v1.example.com\" as "
            "kind \"Widget\", cluster-scoped, but plugin \"WidgetReader\" declared it as kind "
            "\"Widget\", namespaced: the plugins must agree on what the resource is\n");
}

TEST(PluginHandleRun, ThePluginListingSaysWhatEachPluginDeclares) {
  const testing::ProcessResult r =
      testing::run_schedhost({"plugins", "--plugin-dir", kFixtures, "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, json> plugins;
  const json listing = json::parse(r.out);  // held: the loop reads into it
  for (const json& p : listing.at("plugins"))
    plugins[p.at("name").get<std::string>()] = p;
  EXPECT_EQ(plugins.at("WidgetWriter").at("resources"),
            json::parse(R"([{"resource": "widgets.v1.example.com", "apiVersion": "example.com/v1",
                             "kind": "Widget", "namespaced": true}])"));
  EXPECT_EQ(plugins.at("WidgetWriter").at("metrics"),
            json::parse(R"([{"name": "schedhost_plugin_writes_total", "type": "counter",
                             "help": "Writes sent"}])"));
  EXPECT_EQ(plugins.at("ClusterWidgets").at("resources").at(0).at("namespaced"), false);
  EXPECT_FALSE(plugins.at("WidgetReader").contains("metrics"));
  EXPECT_FALSE(plugins.at("PrioritySort").contains("resources"));  // a built-in declares none
}

// The same handle from plain C (fixtures/c_handle.c): declarations in the descriptor, then
// object_select, record_event and metric_record from Filter.
const char* const kCounterProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled: [{name: '*'}]
      queueSort: {enabled: [{name: PrioritySort}]}
      filter: {enabled: [{name: WidgetCounter}]}
      bind: {enabled: [{name: DefaultBinder}]}
)";

const std::string kCounterCluster =
    "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nstatus: {allocatable: {cpu: '4', "
    "memory: 8Gi, pods: '110'}}\n---\n" +
    widget("w1", "shop", "{size: small}") + widget("w2", "shop", "{size: small}") +
    pod("some", "default-scheduler", 1, "{select: 'size=small'}") +
    pod("none", "default-scheduler", 2, "{select: 'size=huge'}");

TEST(PluginHandleRun, APluginInCUsesTheHandleThroughTheCAbi) {
  testing::ScratchDir dir;
  const testing::ProcessResult r = testing::run_schedhost(
      {"run", "--config", dir.write("profile.yaml", kCounterProfile), "--cluster",
       dir.write("cluster.yaml", kCounterCluster), "--plugin-dir", kFixtures, "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto pods = by_pod(json::parse(r.out));
  EXPECT_EQ(pods.at("shop/some").at("node"), "node-a");
  EXPECT_EQ(pods.at("shop/some").at("events"),
            json::parse(R"([{"plugin": "WidgetCounter", "type": "Normal",
                             "reason": "WidgetsCounted", "message": "2 widget(s) matched"}])"));
  EXPECT_EQ(pods.at("shop/none").at("message"), "0/1 nodes are available: 1 no widget matched.");
  EXPECT_EQ(pods.at("shop/none").at("events").at(0).at("message"), "0 widget(s) matched");
  // Its counter, as validate reports what the checks' calls recorded (2 pods of the file here).
  const testing::ProcessResult v =
      testing::run_schedhost({"validate", "--plugin", kFixtures + "/plugin_handle_c_fixture.so",
                              "--cluster", dir.file("cluster.yaml")});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  // Each Filter call records one Event and adds one to the counter: the two agree.
  // The first number after the check's name on its line (the table pads the columns).
  const auto number_after = [&](const std::string& check) -> long {
    std::size_t at = v.out.find(check);
    if (at == std::string::npos) return -1;
    at = v.out.find_first_of("0123456789", at + check.size());
    return at == std::string::npos ? -1 : std::stol(v.out.substr(at));
  };
  const long events = number_after("WidgetCounter  record_event");
  EXPECT_GT(events, 0) << v.out;
  EXPECT_EQ(number_after("metric schedhost_plugin_filtered_total"), events) << v.out;
}

}  // namespace
}  // namespace schedhost::plugin_handle_test
