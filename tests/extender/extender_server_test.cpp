// schedhost extender in process: the HTTP server on a free loopback port, real ExtenderArgs
// POSTed with cpp-httplib's client, and the exact answers of the example plugins SamplePlugin
// (C++) and ExampleFilter (C), with the nodes in the request (nodeCacheCapable: false) or named
// and read from a node cache (true); bad requests; plugins that throw.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <string>
#include <vector>

#include "cluster/snapshot.hpp"
#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "extender/cluster_source.hpp"
#include "extender/extender_server.hpp"
#include "loader/plugin_registry.hpp"
#include "serving/tls_identity.hpp"
#include "support/fixtures.hpp"

namespace schedhost::extender_test {

using extender::ExtenderMetrics;
using extender::ExtenderServer;
using extender::ExtenderService;
using nlohmann::json;
using ::testing::ElementsAre;

// SamplePlugin and ExampleFilter replace every default filter and score; SamplePlugin's score
// counts twice (a weighted total of 0..200, mapped to 0..10 as total / 20). The other profiles
// fault: Thrower throws in PreFilter, AnnotationThrower in Filter on an annotated pod.
const char* const kProfiles = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: gpu-scheduler
  plugins:
    preFilter: {disabled: [{name: '*'}]}
    filter:
      disabled: [{name: '*'}]
      enabled: [{name: SamplePlugin}, {name: ExampleFilter}]
    preScore: {disabled: [{name: '*'}]}
    score:
      disabled: [{name: '*'}]
      enabled: [{name: SamplePlugin, weight: 2}]
  pluginConfig:
  - name: SamplePlugin
    args: {threshold: 90, whitelistZones: [zone-a]}
- schedulerName: thrower
  plugins:
    preFilter: {disabled: [{name: '*'}], enabled: [{name: Thrower}]}
    filter: {disabled: [{name: '*'}], enabled: [{name: Thrower}]}
- schedulerName: filter-thrower
  plugins:
    preFilter: {disabled: [{name: '*'}]}
    filter: {disabled: [{name: '*'}], enabled: [{name: ExampleFilter}, {name: AnnotationThrower}]}
- schedulerName: node-affinity
  plugins:
    preFilter: {disabled: [{name: '*'}], enabled: [{name: NodeAffinity}]}
    filter: {disabled: [{name: '*'}], enabled: [{name: NodeAffinity}]}
)";

json node(const std::string& name, const std::string& cpu, const std::string& gpus,
          const json& labels) {
  json resources = {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}};
  if (!gpus.empty()) resources["nvidia.com/gpu"] = gpus;
  json l = labels;
  l["kubernetes.io/hostname"] = name;
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", l}}},
          {"status", {{"allocatable", resources}, {"capacity", resources}}}};
}

// worker-gpu-a passes both filters; worker-gpu-b has no free GPU (Unschedulable); worker-plain
// lacks the gpu-type label (UnschedulableAndUnresolvable); gpu-node passes SamplePlugin but not
// ExampleFilter, whose name test is Unschedulable.
std::vector<json> nodes() {
  return {node("worker-gpu-a", "4", "2",
               {{"gpu-type", "nvidia"}, {"topology.kubernetes.io/zone", "zone-a"}}),
          node("worker-gpu-b", "4", "0",
               {{"gpu-type", "nvidia"}, {"topology.kubernetes.io/zone", "zone-b"}}),
          node("worker-plain", "4", "", json::object()),
          node("gpu-node", "4", "1",
               {{"gpu-type", "nvidia"}, {"topology.kubernetes.io/zone", "zone-b"}}),
          node("worker-gpu-c", "4", "1",
               {{"gpu-type", "nvidia"}, {"topology.kubernetes.io/zone", "zone-b"}})};
}

json pod(const std::string& name, const std::string& ns, const std::string& cpu,
         const std::string& gpus, const std::string& node_name = {}) {
  json requests = {{"cpu", cpu}};
  if (!gpus.empty()) requests["nvidia.com/gpu"] = gpus;
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}}},
            {"spec",
             {{"containers", json::array({{{"name", "c"},
                                           {"image", "registry.k8s.io/pause:3.10"},
                                           {"resources", {{"requests", requests}}}}})}}}};
  if (!node_name.empty()) p["spec"]["nodeName"] = node_name;
  return p;
}

// A node cache that does not change: nodes() with a running pod on worker-gpu-a that requests
// 1400m of its 4 cpus (35%) and 1 of its 2 GPUs.
class FixedCluster final : public extender::ClusterSource {
 public:
  FixedCluster() {
    std::vector<std::shared_ptr<const cluster::Node>> built;
    for (json& n : nodes())
      built.push_back(std::make_shared<const cluster::Node>(std::move(n)));
    snapshot_ = cluster::Snapshot(built, {std::make_shared<const cluster::Pod>(pod(
                                             "running", "default", "1400m", "1", "worker-gpu-a"))});
  }
  cluster::Snapshot& refresh() override { return snapshot_; }
  // A pod the informers reported (serve's cache changes between requests like this).
  void add_running(const json& p) { snapshot_.add_pod(std::make_shared<const cluster::Pod>(p)); }

 private:
  cluster::Snapshot snapshot_;
};

// The built-in and example plugins, and the two throwing fixtures, copied into a directory of
// their own (the fixture directory holds plugins that crash or hang when loaded).
class Plugins {
 public:
  Plugins() {
    const std::string fixtures = std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_validator/";
    faulty_.copy_in(fixtures + "plugin_validator_thrower.so", "thrower.so");
    faulty_.copy_in(fixtures + "plugin_validator_annotation_thrower.so", "annotation_thrower.so");
    registry_.load_directories({{testing::builtin_plugin_dir(), true},
                                {testing::example_plugin_dir(), false},
                                {faulty_.path(), false}});
    for (const auto& failure : registry_.failures())
      ADD_FAILURE() << failure.path << ": " << failure.message;
    config::PluginCatalog catalog;
    for (const loader::PluginDefinition* def : registry_.plugins())
      catalog.emplace(def->name, def->points);
    configuration_ =
        config::resolve_profiles(config::parse_configuration(kProfiles, "profiles.yaml"), catalog)
            .configuration;
  }
  const loader::PluginRegistry& registry() const { return registry_; }
  const config::SchedulerConfiguration& configuration() const { return configuration_; }

 private:
  testing::ScratchDir faulty_;
  loader::PluginRegistry registry_;
  config::SchedulerConfiguration configuration_;
};

// One profile served on a free loopback port, with or without the fixed node cache.
class Extender {
 public:
  Extender(const Plugins& plugins, const std::string& profile, bool with_cache)
      : service_(plugins.configuration(), *plugins.configuration().find_profile(profile),
                 plugins.registry(), with_cache ? &cache_ : nullptr),
        server_(server_options(), service_, metrics_, nullptr),
        client_("127.0.0.1", server_.port()) {}

  httplib::Result post(const std::string& path, const std::string& body) {
    return client_.Post(path.c_str(), body, "application/json");
  }
  httplib::Result get(const std::string& path) { return client_.Get(path.c_str()); }
  FixedCluster& cache() { return cache_; }

 private:
  static extender::ExtenderServerOptions server_options() {
    extender::ExtenderServerOptions o;
    o.bind_address = "127.0.0.1";
    o.port = 0;
    return o;
  }
  FixedCluster cache_;
  ExtenderMetrics metrics_;
  ExtenderService service_;
  ExtenderServer server_;
  httplib::Client client_;
};

std::string nodes_args(const json& p) {
  return json{{"Pod", p}, {"Nodes", {{"items", nodes()}}}, {"NodeNames", nullptr}}.dump();
}

std::string names_args(const json& p, const std::vector<std::string>& names) {
  return json{{"Pod", p}, {"Nodes", nullptr}, {"NodeNames", names}}.dump();
}

const std::vector<std::string> kNames = {"worker-gpu-a", "worker-gpu-b", "worker-plain",
                                         "gpu-node",     "worker-gpu-c", "ghost"};

class ExtenderServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { plugins_ = new Plugins(); }
  static void TearDownTestSuite() {
    delete plugins_;
    plugins_ = nullptr;
  }
  static Plugins* plugins_;
};
Plugins* ExtenderServerTest::plugins_ = nullptr;

TEST_F(ExtenderServerTest, FilterAnswersTheNodesOfTheRequestThatPassAndWhyTheOthersFail) {
  Extender extender(*plugins_, "gpu-scheduler", false);
  const auto r = extender.post("/filter", nodes_args(pod("p", "default", "500m", "1")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(
      r->body,
      R"({"Nodes":{"items":[)" + nodes()[0].dump() + "," + nodes()[4].dump() +
          R"(]},"NodeNames":null,"FailedNodes":{"gpu-node":"node name does not contain 'worker'","worker-gpu-b":"Insufficient nvidia.com/gpu"},"FailedAndUnresolvableNodes":{"worker-plain":"node(s) didn't have label gpu-type=nvidia"},"Error":""})");
}

// A urlPrefix with a path (http://host:8888/scheduler) reaches the same verbs.
TEST_F(ExtenderServerTest, TheVerbsAreServedUnderAnyPathPrefix) {
  Extender extender(*plugins_, "gpu-scheduler", false);
  const std::string args = nodes_args(pod("p", "default", "500m", "1"));
  const auto plain = extender.post("/filter", args);
  const auto prefixed = extender.post("/scheduler/v1/filter", args);
  ASSERT_TRUE(plain && prefixed);
  EXPECT_EQ(prefixed->status, 200);
  EXPECT_EQ(prefixed->body, plain->body);
  const auto unknown = extender.post("/scheduler/bind", args);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

TEST_F(ExtenderServerTest, FilterOfNodesInTheRequestCountsThePodsTheCacheHasOnThem) {
  // Two GPUs wanted: worker-gpu-a has two, but the cache's running pod holds one of them.
  Extender without(*plugins_, "gpu-scheduler", false);
  Extender with(*plugins_, "gpu-scheduler", true);
  const std::string args = nodes_args(pod("p", "default", "500m", "2"));
  const auto a = without.post("/filter", args);
  const auto b = with.post("/filter", args);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(json::parse(a->body)["FailedNodes"],
            json({{"gpu-node", "Insufficient nvidia.com/gpu"},
                  {"worker-gpu-b", "Insufficient nvidia.com/gpu"},
                  {"worker-gpu-c", "Insufficient nvidia.com/gpu"}}));
  EXPECT_EQ(json::parse(b->body)["FailedNodes"],
            json({{"gpu-node", "Insufficient nvidia.com/gpu"},
                  {"worker-gpu-a", "Insufficient nvidia.com/gpu"},
                  {"worker-gpu-b", "Insufficient nvidia.com/gpu"},
                  {"worker-gpu-c", "Insufficient nvidia.com/gpu"}}));
  EXPECT_EQ(json::parse(a->body)["Nodes"]["items"].size(), 1u);
  EXPECT_EQ(json::parse(b->body)["Nodes"]["items"], json::array());
}

TEST_F(ExtenderServerTest, ANodeSentAgainChangedIsReadAgain) {
  // The extender keeps the node objects of recent requests by their text: the same text is not
  // parsed again, a changed one is.
  Extender extender(*plugins_, "gpu-scheduler", false);
  const json p = pod("p", "default", "500m", "1");
  ASSERT_TRUE(extender.post("/filter", nodes_args(p)));
  std::vector<json> changed = nodes();
  changed[0]["metadata"]["labels"].erase("gpu-type");
  const auto r = extender.post(
      "/filter", json{{"Pod", p}, {"Nodes", {{"items", changed}}}, {"NodeNames", nullptr}}.dump());
  ASSERT_TRUE(r);
  const json result = json::parse(r->body);
  EXPECT_EQ(result["Nodes"]["items"], json::array({changed[4]}));
  EXPECT_EQ(result["FailedAndUnresolvableNodes"],
            json({{"worker-gpu-a", "node(s) didn't have label gpu-type=nvidia"},
                  {"worker-plain", "node(s) didn't have label gpu-type=nvidia"}}));
}

// A Nodes request sent again reuses the snapshot built for the last one, unless the node cache
// changed in between: then the pods it now has on a node count.
TEST_F(ExtenderServerTest, TheSameNodesRequestAfterTheCacheChangedSeesTheChange) {
  Extender extender(*plugins_, "gpu-scheduler", true);
  const std::string args = nodes_args(pod("p", "default", "500m", "1"));
  auto passing = [&] {
    const auto r = extender.post("/filter", args);
    std::vector<std::string> names;
    if (!r) return names;
    const json answer = json::parse(r->body);
    for (const json& n : answer["Nodes"]["items"])
      names.push_back(n["metadata"]["name"].get<std::string>());
    return names;
  };
  EXPECT_THAT(passing(), ElementsAre("worker-gpu-a", "worker-gpu-c"));
  EXPECT_THAT(passing(), ElementsAre("worker-gpu-a", "worker-gpu-c"));
  extender.cache().add_running(pod("late", "default", "100m", "1", "worker-gpu-c"));
  EXPECT_THAT(passing(), ElementsAre("worker-gpu-a"));
}

// Node names are read without building a DOM when they are plain; escapes and wrong types take
// the full parser, with the same answers and messages.
TEST_F(ExtenderServerTest, NodeNamesWithEscapesOrWrongTypesAreReadAsJsonIs) {
  Extender extender(*plugins_, "gpu-scheduler", true);
  const std::string pod_json = pod("p", "default", "500m", "1").dump();
  const auto escaped = extender.post(
      "/filter", R"({"Pod":)" + pod_json + R"(,"NodeNames":["worker-gpu-a","gpu-node"]})");
  ASSERT_TRUE(escaped);
  EXPECT_EQ(json::parse(escaped->body)["NodeNames"], json::array({"worker-gpu-a"}));
  const auto number =
      extender.post("/filter", R"({"Pod":)" + pod_json + R"(,"NodeNames":["worker-gpu-a",7]})");
  ASSERT_TRUE(number);
  EXPECT_EQ(number->status, 400);
  EXPECT_EQ(number->body,
            "bad filter request: ExtenderArgs.NodeNames[1] must be a string, got number\n");
}

TEST_F(ExtenderServerTest, FilterOfNodeNamesAnswersNamesFromTheNodeCache) {
  Extender extender(*plugins_, "gpu-scheduler", true);
  const auto r = extender.post("/filter", names_args(pod("p", "default", "500m", "1"), kNames));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(
      r->body,
      R"({"Nodes":null,"NodeNames":["worker-gpu-a","worker-gpu-c"],"FailedNodes":{"ghost":"node is not in the extender's node cache: it has not reached the extender's informer yet, or the extender watches another API server","gpu-node":"node name does not contain 'worker'","worker-gpu-b":"Insufficient nvidia.com/gpu"},"FailedAndUnresolvableNodes":{"worker-plain":"node(s) didn't have label gpu-type=nvidia"},"Error":""})");
}

TEST_F(ExtenderServerTest, NodeNamesWithoutANodeCacheAnswerAnErrorNamingTheFix) {
  Extender extender(*plugins_, "gpu-scheduler", false);
  const auto filter = extender.post("/filter", names_args(pod("p", "default", "1", "1"), kNames));
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->status, 200);
  const std::string why =
      "this extender has no node cache, so it cannot serve a NodeNames request "
      "(nodeCacheCapable: true): start `schedhost extender` with --kubeconfig (or in a pod, "
      "in-cluster), or set nodeCacheCapable: false in kube-scheduler's extender entry";
  EXPECT_EQ(
      filter->body,
      R"({"Nodes":null,"NodeNames":null,"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":")" +
          why + R"("})");
  const auto prioritize =
      extender.post("/prioritize", names_args(pod("p", "default", "1", "1"), kNames));
  ASSERT_TRUE(prioritize);
  EXPECT_EQ(prioritize->status, 400);
  EXPECT_EQ(prioritize->body, "bad prioritize request: " + why + "\n");
}

TEST_F(ExtenderServerTest, PrioritizeMapsTheWeightedScoresToZeroToTen) {
  // SamplePlugin: 100 - requested cpu %, +20 for a prod pod in zone-a, clamped to 100, x2 (its
  // weight); the answer is total / (2 x 10), rounded down.
  Extender extender(*plugins_, "gpu-scheduler", false);
  const auto r = extender.post("/prioritize", nodes_args(pod("p", "prod", "1", "1")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(
      r->body,
      R"([{"Host":"worker-gpu-a","Score":10},{"Host":"worker-gpu-b","Score":10},{"Host":"worker-plain","Score":10},{"Host":"gpu-node","Score":10},{"Host":"worker-gpu-c","Score":10}])");

  // With the cache, worker-gpu-a has 35% of its cpu requested: 65 (8 with the prod bonus, 85/10).
  Extender cached(*plugins_, "gpu-scheduler", true);
  const auto d = cached.post("/prioritize", names_args(pod("p", "default", "1", "1"), kNames));
  const auto p = cached.post("/prioritize", names_args(pod("p", "prod", "1", "1"), kNames));
  ASSERT_TRUE(d && p);
  EXPECT_EQ(
      d->body,
      R"([{"Host":"worker-gpu-a","Score":6},{"Host":"worker-gpu-b","Score":10},{"Host":"worker-plain","Score":10},{"Host":"gpu-node","Score":10},{"Host":"worker-gpu-c","Score":10},{"Host":"ghost","Score":0}])");
  EXPECT_EQ(
      p->body,
      R"([{"Host":"worker-gpu-a","Score":8},{"Host":"worker-gpu-b","Score":10},{"Host":"worker-plain","Score":10},{"Host":"gpu-node","Score":10},{"Host":"worker-gpu-c","Score":10},{"Host":"ghost","Score":0}])");
}

TEST_F(ExtenderServerTest, PreFilterNarrowingFailsTheNodesLeftOutAsUnresolvable) {
  json p = pod("p", "default", "1", "");
  p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms",
       json::array({{{"matchFields", json::array({{{"key", "metadata.name"},
                                                   {"operator", "In"},
                                                   {"values", {"worker-gpu-b"}}}})}}})}};
  Extender extender(*plugins_, "node-affinity", false);
  const auto r = extender.post("/filter", nodes_args(p));
  ASSERT_TRUE(r);
  const json result = json::parse(r->body);
  EXPECT_EQ(result["Nodes"]["items"].size(), 1u);
  EXPECT_EQ(result["Nodes"]["items"][0]["metadata"]["name"], "worker-gpu-b");
  EXPECT_EQ(result["FailedNodes"], json::object());
  const std::string why = "node is filtered out by the prefilter result";
  EXPECT_EQ(result["FailedAndUnresolvableNodes"], json({{"gpu-node", why},
                                                        {"worker-gpu-a", why},
                                                        {"worker-gpu-c", why},
                                                        {"worker-plain", why}}));
}

TEST_F(ExtenderServerTest, APluginThatThrowsIsAnErrorInTheAnswerNotACrash) {
  Extender pre_filter(*plugins_, "thrower", false);
  const std::string args = nodes_args(pod("p", "default", "1", ""));
  const auto filter = pre_filter.post("/filter", args);
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->status, 200);
  EXPECT_EQ(
      filter->body,
      R"({"Nodes":null,"NodeNames":null,"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":"running PreFilter plugin \"Thrower\": boom in PreFilter"})");
  const auto prioritize = pre_filter.post("/prioritize", args);
  ASSERT_TRUE(prioritize);
  EXPECT_EQ(prioritize->status, 500);
  EXPECT_EQ(prioritize->body,
            "prioritize failed: running PreFilter plugin \"Thrower\": boom in PreFilter\n");

  json annotated = pod("p", "default", "1", "");
  annotated["metadata"]["annotations"] = {{"example.com/explode", "yes"}};
  Extender in_filter(*plugins_, "filter-thrower", false);
  const auto r = in_filter.post("/filter", nodes_args(annotated));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(
      r->body,
      R"({"Nodes":null,"NodeNames":null,"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":"running \"AnnotationThrower\" filter plugin: boom on p"})");
  // The server still answers.
  const auto again = in_filter.post("/filter", nodes_args(pod("q", "default", "1", "")));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
  EXPECT_EQ(json::parse(again->body)["FailedNodes"],
            json({{"gpu-node", "node name does not contain 'worker'"}}));
}

TEST_F(ExtenderServerTest, BadRequestsAreRefusedWithOneLine) {
  Extender extender(*plugins_, "gpu-scheduler", false);
  struct Case {
    std::string method, path, body;
    int code;
    std::string answer;
  };
  const std::vector<Case> cases = {
      {"GET", "/filter", "", 405, "GET /filter: the extender verbs take POST\n"},
      {"POST", "/bind", "{}", 404,
       "unknown verb \"bind\": this extender serves POST /filter and POST /prioritize\n"},
      {"GET", "/nothing", "", 404,
       "GET /nothing: not found: this extender serves POST /filter and POST /prioritize, GET "
       "/healthz, /livez, /readyz and /metrics\n"},
      {"POST", "/filter", "{\"Pod\": ", 400,
       "bad filter request: the request body is not JSON (parse error at line 1, column 9: syntax "
       "error while parsing value - unexpected end of input; expected '[', '{', or a literal): "
       "send ExtenderArgs, {\"Pod\": {...}, \"Nodes\": {...} or \"NodeNames\": [...]}\n"},
      {"POST", "/filter", "[]", 400,
       "bad filter request: the request body must be an ExtenderArgs object, got array\n"},
      {"POST", "/prioritize", R"({"Nodes": {"items": []}})", 400,
       "bad prioritize request: ExtenderArgs.Pod is missing or not an object: send the pod to "
       "schedule as {\"Pod\": {...}}\n"},
      {"POST", "/filter", R"({"Pod": {}, "Nodes": {"items": []}, "NodeNames": []})", 400,
       "bad filter request: ExtenderArgs has both Nodes and NodeNames: send NodeNames when the "
       "extender entry says nodeCacheCapable: true, Nodes otherwise\n"},
      {"POST", "/filter", R"({"Pod": {}, "NodeNames": ["a", 1]})", 400,
       "bad filter request: ExtenderArgs.NodeNames[1] must be a string, got number\n"},
      {"POST", "/filter",
       R"({"Pod": {"metadata": {"name": "p"}}, "Nodes": {"items": [{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "lots"}}}]}})",
       400,
       "bad filter request: ExtenderArgs.Nodes.items[0]: status.allocatable.cpu \"lots\" is not a "
       "valid quantity: use a number with an optional suffix such as 500m or 2\n"},
  };
  for (const Case& c : cases) {
    const auto r = c.method == "GET" ? extender.get(c.path) : extender.post(c.path, c.body);
    ASSERT_TRUE(r) << c.path;
    EXPECT_EQ(r->status, c.code) << c.method << " " << c.path << " " << c.body;
    EXPECT_EQ(r->body, c.answer) << c.method << " " << c.path << " " << c.body;
  }
}

TEST_F(ExtenderServerTest, HealthAndMetricsAreServed) {
  Extender extender(*plugins_, "gpu-scheduler", false);
  ASSERT_TRUE(extender.post("/filter", nodes_args(pod("p", "default", "1", "1"))));
  ASSERT_TRUE(extender.post("/prioritize", "nope"));
  const auto health = extender.get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok");
  const auto metrics = extender.get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("schedhost_extender_requests_total{code=\"200\",verb=\"filter\"} 1"),
            std::string::npos)
      << metrics->body;
  EXPECT_NE(
      metrics->body.find("schedhost_extender_requests_total{code=\"400\",verb=\"prioritize\"} 1"),
      std::string::npos);
  EXPECT_NE(
      metrics->body.find("schedhost_extender_request_duration_seconds_count{verb=\"filter\"} 1"),
      std::string::npos);
}

TEST_F(ExtenderServerTest, ServesHttpsWithATlsIdentity) {
  // enableHTTPS: true in kube-scheduler's entry: the same answers over TLS.
  const config::Profile& profile = *plugins_->configuration().find_profile("gpu-scheduler");
  ExtenderService service(plugins_->configuration(), profile, plugins_->registry(), nullptr);
  ExtenderMetrics metrics;
  extender::ExtenderServerOptions options;
  options.bind_address = "127.0.0.1";
  options.port = 0;
  options.tls = std::make_unique<serving::TlsIdentity>(serving::self_signed_identity("127.0.0.1"));
  ExtenderServer server(std::move(options), service, metrics, nullptr);
  EXPECT_TRUE(server.https());
  httplib::SSLClient client("127.0.0.1", server.port());
  client.enable_server_certificate_verification(false);  // self-signed, made for this test
  const auto r =
      client.Post("/prioritize", nodes_args(pod("p", "default", "1", "1")), "application/json");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)[0], json({{"Host", "worker-gpu-a"}, {"Score", 10}}));
  httplib::Client plain("127.0.0.1", server.port());
  EXPECT_FALSE(plain.Get("/healthz"));  // no plain HTTP on an HTTPS port
}

}  // namespace schedhost::extender_test
