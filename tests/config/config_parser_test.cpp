// Strict parsing: defaults, accepted versions, upstream-only fields, and the exact one-line error
// for every kind of bad input.
#include "config/config_parser.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_support.hpp"

namespace schedhost::config {
namespace {

using testing::input_error_of;

constexpr const char* kHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
    "kind: KubeSchedulerConfiguration\n";

SchedulerConfiguration parse(const std::string& body) {
  return parse_configuration(kHeader + body, "profile.yaml");
}

std::string parse_error(const std::string& text) {
  return input_error_of([&] { parse_configuration(text, "profile.yaml"); });
}

std::string body_error(const std::string& body) {
  return parse_error(kHeader + body);
}

TEST(ConfigParser, MinimalFileGetsUpstreamDefaults) {
  auto c = parse("");
  EXPECT_EQ(c.api_version, "kubescheduler.config.k8s.io/v1beta3");
  EXPECT_EQ(c.file, "profile.yaml");
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_EQ(c.percentage_of_nodes_to_score, std::nullopt);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 1);
  EXPECT_EQ(c.pod_max_backoff_seconds, 10);
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "default-scheduler");
  EXPECT_EQ(c.profiles[0].plugins, std::nullopt);
  EXPECT_TRUE(c.profiles[0].plugin_args.empty());
  EXPECT_EQ(c.profiles[0].location.to_string(), "profile.yaml");
  EXPECT_TRUE(c.upstream_only_fields.empty());
}

TEST(ConfigParser, ReadsTopLevelFieldsWithLocations) {
  auto c = parse(
      "parallelism: 8\n"
      "percentageOfNodesToScore: 30\n"
      "podInitialBackoffSeconds: 2\n"
      "podMaxBackoffSeconds: 20\n");
  EXPECT_EQ(c.parallelism, 8);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 30);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 2);
  EXPECT_EQ(c.pod_max_backoff_seconds, 20);
  EXPECT_EQ(c.location_of("parallelism").to_string(), "profile.yaml:3:14");
  EXPECT_EQ(c.location_of("podMaxBackoffSeconds").to_string(), "profile.yaml:6:23");
  EXPECT_EQ(c.location_of("profiles").to_string(), "profile.yaml");
}

TEST(ConfigParser, ExplicitZeroPercentageIsKept) {
  EXPECT_EQ(parse("percentageOfNodesToScore: 0\n").percentage_of_nodes_to_score, 0);
}

TEST(ConfigParser, NullValuesMeanNotSet) {
  auto c = parse("parallelism: ~\nprofiles:\nextenders: null\n");
  EXPECT_EQ(c.parallelism, 16);
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "default-scheduler");
}

TEST(ConfigParser, EmptyProfileListGetsTheDefaultProfile) {
  auto c = parse("profiles: []\n");
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "default-scheduler");
}

TEST(ConfigParser, LoneUnnamedProfileIsDefaultScheduler) {
  auto c = parse("profiles:\n- plugins: {}\n");
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "default-scheduler");
  EXPECT_EQ(c.profiles[0].location.to_string(), "profile.yaml:4:3");
  EXPECT_EQ(c.profiles[0].plugins, PluginSets{});
}

TEST(ConfigParser, SeveralProfilesAreNotNamedByDefault) {
  auto c = parse("profiles:\n- schedulerName: a\n- plugins: {}\n");
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "a");
  EXPECT_EQ(c.profiles[0].scheduler_name_location.to_string(), "profile.yaml:4:18");
  EXPECT_EQ(c.profiles[1].scheduler_name, "");
}

TEST(ConfigParser, ExplicitEmptyNameIsNotDefaulted) {
  EXPECT_EQ(parse("profiles:\n- schedulerName: \"\"\n").profiles[0].scheduler_name, "");
}

TEST(ConfigParser, ReadsPluginSetsInOrderWithWeightsAndLocations) {
  auto c = parse(
      "profiles:\n"
      "  - schedulerName: gpu\n"
      "    plugins:\n"
      "      multiPoint:\n"
      "        enabled:\n"
      "          - name: GpuFit\n"
      "            weight: 4\n"
      "          - {name: NodeName}\n"
      "        disabled:\n"
      "          - name: '*'\n"
      "      score:\n"
      "        disabled: [{name: ImageLocality, weight: 3}]\n");
  ASSERT_EQ(c.profiles.size(), 1u);
  const Profile& p = c.profiles[0];
  EXPECT_EQ(p.scheduler_name, "gpu");
  EXPECT_EQ(p.location.to_string(), "profile.yaml:4:5");
  ASSERT_TRUE(p.plugins.has_value());
  const PluginSet& multi = (*p.plugins)[ConfigExtensionPoint::MultiPoint];
  ASSERT_EQ(multi.enabled.size(), 2u);
  EXPECT_EQ(multi.enabled[0],
            (PluginReference{"GpuFit", 4, SourceLocation{"profile.yaml", 8, 19}, false}));
  EXPECT_EQ(multi.enabled[1],
            (PluginReference{"NodeName", std::nullopt, SourceLocation{"profile.yaml", 10, 20}}));
  ASSERT_EQ(multi.disabled.size(), 1u);
  EXPECT_EQ(multi.disabled[0].name, "*");
  const PluginSet& score = (*p.plugins)[ConfigExtensionPoint::Score];
  ASSERT_EQ(score.disabled.size(), 1u);
  EXPECT_EQ(score.disabled[0].name, "ImageLocality");
  EXPECT_EQ(score.disabled[0].weight, 3);
  EXPECT_TRUE((*p.plugins)[ConfigExtensionPoint::Filter].enabled.empty());
}

TEST(ConfigParser, AcceptsV1AndItsPerProfilePercentage) {
  auto c = parse_configuration(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- schedulerName: fast\n"
      "  percentageOfNodesToScore: 20\n",
      "v1.yaml");
  EXPECT_EQ(c.api_version, "kubescheduler.config.k8s.io/v1");
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].percentage_of_nodes_to_score, 20);
  EXPECT_EQ(c.profiles[0].percentage_location.to_string(), "v1.yaml:5:29");
}

TEST(ConfigParser, PerProfilePercentageIsOnlyInV1) {
  EXPECT_EQ(body_error("profiles:\n- schedulerName: fast\n  percentageOfNodesToScore: 20\n"),
            "profile.yaml:5:3: field \"percentageOfNodesToScore\" in profile \"fast\" exists only "
            "in kubescheduler.config.k8s.io/v1: set the top-level percentageOfNodesToScore, or "
            "use apiVersion: kubescheduler.config.k8s.io/v1");
}

TEST(ConfigParser, KeepsUpstreamOnlyFieldsAsJson) {
  auto c = parse(
      "leaderElection:\n"
      "  leaderElect: false\n"
      "  leaseDuration: 15s\n"
      "clientConnection:\n"
      "  kubeconfig: /etc/kubernetes/scheduler.conf\n"
      "  qps: 50\n"
      "  burst: 100\n"
      "enableProfiling: true\n"
      "enableContentionProfiling: false\n"
      "delayCacheUntilActive: true\n"
      "healthzBindAddress: 0.0.0.0:10251\n"
      "metricsBindAddress: 0.0.0.0:10251\n"
      "extenders:\n"
      "- urlPrefix: http://127.0.0.1:8888/\n"
      "  filterVerb: filter\n"
      "  weight: 5\n"
      "  enableHTTPS: false\n"
      "  tlsConfig: {insecure: true}\n"
      "  managedResources:\n"
      "  - name: example.com/foo\n"
      "    ignoredByScheduler: true\n");
  const auto& f = c.upstream_only_fields;
  EXPECT_EQ(f.at("leaderElection"),
            nlohmann::json::parse(R"({"leaderElect": false, "leaseDuration": "15s"})"));
  EXPECT_EQ(f.at("clientConnection"),
            nlohmann::json::parse(
                R"({"kubeconfig": "/etc/kubernetes/scheduler.conf", "qps": 50.0, "burst": 100})"));
  EXPECT_EQ(f.at("enableProfiling"), true);
  EXPECT_EQ(f.at("enableContentionProfiling"), false);
  EXPECT_EQ(f.at("delayCacheUntilActive"), true);
  EXPECT_EQ(f.at("healthzBindAddress"), "0.0.0.0:10251");
  EXPECT_EQ(f.at("metricsBindAddress"), "0.0.0.0:10251");
  EXPECT_EQ(f.at("extenders"), nlohmann::json::parse(R"([{
      "urlPrefix": "http://127.0.0.1:8888/", "filterVerb": "filter", "weight": 5,
      "enableHTTPS": false, "tlsConfig": {"insecure": true},
      "managedResources": [{"name": "example.com/foo", "ignoredByScheduler": true}]}])"));
}

TEST(ConfigParser, UpstreamOnlyFieldsAreStrictToo) {
  EXPECT_EQ(
      body_error("leaderElection:\n  leaderElection: true\n"),
      "profile.yaml:4:3: unknown field \"leaderElection\" in leaderElection: remove it or fix "
      "its spelling (known fields: leaderElect, leaseDuration, renewDeadline, retryPeriod, "
      "resourceLock, resourceName, resourceNamespace)");
  EXPECT_EQ(
      body_error("leaderElection:\n  leaseDurations: 15s\n"),
      "profile.yaml:4:3: unknown field \"leaseDurations\" in leaderElection: remove it or fix "
      "its spelling (did you mean \"leaseDuration\"?)");
  EXPECT_EQ(body_error("clientConnection:\n  burst: lots\n"),
            "profile.yaml:4:10: clientConnection.burst must be an integer, got the string "
            "\"lots\": write a whole number");
  EXPECT_EQ(body_error("extenders:\n- urlPrefix: x\n  tlsConfig: {insecure: yes}\n"),
            "profile.yaml:5:25: extenders[0].tlsConfig.insecure must be true or false, got the "
            "string \"yes\": write true or false without quotes");
}

// --- args -> JSON ----------------------------------------------------------------------------

TEST(ConfigParser, PluginArgsBecomeFaithfulJson) {
  auto c = parse(
      "profiles:\n"
      "- pluginConfig:\n"
      "  - name: NodeResourcesFit\n"
      "    args:\n"
      "      scoringStrategy:\n"
      "        type: MostAllocated\n"
      "        resources:\n"
      "        - {name: cpu, weight: 3}\n"
      "        - name: nvidia.com/gpu\n"
      "          weight: -1\n"
      "      ignoredResources: []\n"
      "  - name: Quantities\n"
      "    args:\n"
      "      cpu: 100m\n"
      "      memory: 1Gi\n"
      "      quoted: \"2\"\n"
      "      single: '0x10'\n"
      "      plain: 2\n"
      "      hex: 0x10\n"
      "      octal: 0o17\n"
      "      float: 2.5\n"
      "      exponent: 1e3\n"
      "      big: 18446744073709551615\n"
      "      yes: yes\n"
      "      on: \"true\"\n"
      "      flag: true\n"
      "      Off: FALSE\n"
      "      nothing: ~\n"
      "      forced: !!str 42\n"
      "      nested: {list: [1, \"1\", {deep: [true, null]}]}\n"
      "  - name: NoArgs\n"
      "  - name: NullArgs\n"
      "    args: null\n"
      "  - name: EmptyArgs\n"
      "    args: {}\n");
  const Profile& p = c.profiles.at(0);
  EXPECT_EQ(p.plugin_args.at("NodeResourcesFit").dump(),
            R"({"ignoredResources":[],"scoringStrategy":{"resources":[{"name":"cpu","weight":3},)"
            R"({"name":"nvidia.com/gpu","weight":-1}],"type":"MostAllocated"}})");
  const auto& q = p.plugin_args.at("Quantities");
  EXPECT_EQ(q.dump(), R"({"Off":false,"big":18446744073709551615,"cpu":"100m","exponent":1000.0,)"
                      R"("flag":true,"float":2.5,"forced":"42","hex":16,"memory":"1Gi",)"
                      R"("nested":{"list":[1,"1",{"deep":[true,null]}]},"nothing":null,"octal":15,)"
                      R"("on":"true","plain":2,"quoted":"2","single":"0x10","yes":"yes"})");
  EXPECT_TRUE(q.at("plain").is_number_integer());
  EXPECT_TRUE(q.at("big").is_number_unsigned());
  EXPECT_TRUE(q.at("exponent").is_number_float());
  EXPECT_EQ(p.plugin_args.at("NoArgs"), nlohmann::json::object());
  EXPECT_EQ(p.plugin_args.at("NullArgs"), nlohmann::json::object());
  EXPECT_EQ(p.plugin_args.at("EmptyArgs"), nlohmann::json::object());
  EXPECT_EQ(p.args_for("NotConfigured"), nlohmann::json::object());
  EXPECT_EQ(p.plugin_config_locations.at("Quantities").to_string(), "profile.yaml:14:11");
}

TEST(ConfigParser, ArgsMustBeAMapping) {
  EXPECT_EQ(body_error("profiles:\n- pluginConfig:\n  - name: Foo\n    args: [1, 2]\n"),
            "profile.yaml:6:11: args of plugin \"Foo\" must be a mapping of fields, got a list: "
            "write the args as `field: value` lines under args");
}

TEST(ConfigParser, ArgsThatJsonCannotHoldAreErrors) {
  EXPECT_EQ(body_error("profiles:\n- pluginConfig:\n  - name: Foo\n    args: {x: .inf}\n"),
            "profile.yaml:6:15: args of plugin \"Foo\": .inf cannot be represented in JSON: use a "
            "finite number");
  EXPECT_EQ(body_error("profiles:\n- pluginConfig:\n  - name: Foo\n    args: {x: 1, x: 2}\n"),
            "profile.yaml:6:18: args of plugin \"Foo\": key \"x\" appears twice in the same "
            "mapping: keep only one");
  EXPECT_EQ(body_error("profiles:\n- pluginConfig:\n  - name: Foo\n    args: {x: !!int abc}\n"),
            "profile.yaml:6:15: args of plugin \"Foo\": \"abc\" is not a valid !!int: remove the "
            "tag or fix the value");
}

TEST(ConfigParser, DuplicatePluginConfigIsAnError) {
  EXPECT_EQ(body_error("profiles:\n"
                       "- schedulerName: s\n"
                       "  pluginConfig:\n"
                       "  - name: Foo\n"
                       "    args: {a: 1}\n"
                       "  - name: Foo\n"),
            "profile.yaml:8:11: pluginConfig for plugin \"Foo\" appears twice in profile \"s\" "
            "(first at profile.yaml:6:11): merge the args into one entry");
}

// --- wrong version, kind, structure ------------------------------------------------------------

TEST(ConfigParser, RejectsOtherApiVersions) {
  EXPECT_EQ(parse_error("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                        "kind: KubeSchedulerConfiguration\n"),
            "profile.yaml:1:13: apiVersion \"kubescheduler.config.k8s.io/v1beta2\" is not "
            "supported: use kubescheduler.config.k8s.io/v1 (or the older "
            "kubescheduler.config.k8s.io/v1beta3)");
  EXPECT_EQ(parse_error("kind: KubeSchedulerConfiguration\n"),
            "profile.yaml:1:1: the configuration has no apiVersion: add `apiVersion: "
            "kubescheduler.config.k8s.io/v1`");
}

TEST(ConfigParser, RejectsOtherKinds) {
  EXPECT_EQ(parse_error("apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\nspec: {}\n"),
            "profile.yaml:2:7: kind \"Pod\" is not supported: use KubeSchedulerConfiguration (this "
            "file configures the scheduler; clusters go in --cluster)");
  EXPECT_EQ(parse_error("apiVersion: kubescheduler.config.k8s.io/v1\n"),
            "profile.yaml:1:1: the configuration has no kind: add `kind: "
            "KubeSchedulerConfiguration`");
}

TEST(ConfigParser, RejectsUnknownFields) {
  EXPECT_EQ(body_error("Parallelism: 4\n"),
            "profile.yaml:3:1: unknown field \"Parallelism\" in KubeSchedulerConfiguration: remove "
            "it or fix its spelling (did you mean \"parallelism\"?)");
  EXPECT_EQ(body_error("profiles:\n- schedulerName: s\n  plugins:\n    filter:\n      enabled:\n"
                       "      - name: Foo\n        wieght: 2\n"),
            "profile.yaml:9:9: unknown field \"wieght\" in plugin \"Foo\": remove it or fix its "
            "spelling (did you mean \"weight\"?)");
  EXPECT_EQ(
      body_error("profiles:\n- schedulerName: s\n  plugins:\n    normalizeScore: {}\n"),
      "profile.yaml:6:5: unknown field \"normalizeScore\" in plugins of profile \"s\": remove "
      "it or fix its spelling (known fields: preEnqueue, queueSort, preFilter, filter, "
      "postFilter, preScore, score, reserve, permit, preBind, bind, postBind, multiPoint)");
  EXPECT_EQ(body_error("profiles:\n- name: s\n"),
            "profile.yaml:4:3: unknown field \"name\" in profiles[0]: remove it or fix its "
            "spelling (known fields: schedulerName, plugins, pluginConfig, "
            "percentageOfNodesToScore)");
}

TEST(ConfigParser, RejectsWrongTypes) {
  EXPECT_EQ(body_error("parallelism: \"16\"\n"),
            "profile.yaml:3:14: parallelism must be an integer, got the string \"16\": write the "
            "number without quotes");
  EXPECT_EQ(body_error("parallelism: 2.5\n"),
            "profile.yaml:3:14: parallelism must be an integer, got 2.5: write a whole number");
  EXPECT_EQ(body_error("parallelism: 3000000000\n"),
            "profile.yaml:3:14: parallelism 3000000000 is out of range: use a value from "
            "-2147483648 to 2147483647");
  EXPECT_EQ(body_error("profiles: {schedulerName: x}\n"),
            "profile.yaml:3:11: profiles must be a list, got a mapping: write its entries as `- ` "
            "items");
  EXPECT_EQ(body_error("profiles:\n- schedulerName: [a]\n"),
            "profile.yaml:4:18: schedulerName of profiles[0] must be a single value, got a list: "
            "write it as text on the same line");
  EXPECT_EQ(body_error("profiles:\n- schedulerName: s\n  plugins:\n    score:\n      enabled:\n"
                       "      - name: Foo\n        weight: high\n"),
            "profile.yaml:9:17: weight of plugin \"Foo\" must be an integer, got the string "
            "\"high\": write a whole number");
  EXPECT_EQ(
      body_error("profiles:\n- schedulerName: s\n  plugins:\n    score:\n      enabled: Foo\n"),
      "profile.yaml:7:16: plugins.score.enabled of profile \"s\" must be a list, got the "
      "string \"Foo\": write its entries as `- ` items");
  EXPECT_EQ(body_error("profiles:\n- schedulerName: s\n  plugins: [filter]\n"),
            "profile.yaml:5:12: plugins of profile \"s\" must be a mapping of fields, got a list: "
            "write its fields as `name: value` lines");
  EXPECT_EQ(body_error("enableProfiling: \"true\"\n"),
            "profile.yaml:3:18: enableProfiling must be true or false, got the string \"true\": "
            "write true or false without quotes");
}

TEST(ConfigParser, RejectsRepeatedFields) {
  EXPECT_EQ(body_error("parallelism: 4\nparallelism: 8\n"),
            "profile.yaml:4:1: field \"parallelism\" appears twice in KubeSchedulerConfiguration "
            "(first at line 3): keep only one");
}

TEST(ConfigParser, RejectsInvalidPluginNames) {
  EXPECT_EQ(body_error("profiles:\n"
                       "- schedulerName: default-scheduler\n"
                       "  plugins:\n"
                       "    filter:\n"
                       "      enabled:\n"
                       "      - name: Sample_Plugin\n"),
            "profile.yaml:8:15: plugin \"Sample_Plugin\" is not a valid name: must match "
            "^[a-zA-Z][a-zA-Z0-9]*$");
  EXPECT_EQ(body_error("profiles:\n- pluginConfig:\n  - name: 9Lives\n"),
            "profile.yaml:5:11: plugin \"9Lives\" is not a valid name: must match "
            "^[a-zA-Z][a-zA-Z0-9]*$");
  EXPECT_EQ(body_error("profiles:\n- plugins:\n    filter:\n      disabled: [{name: a-b}]\n"),
            "profile.yaml:6:25: plugin \"a-b\" is not a valid name: must match "
            "^[a-zA-Z][a-zA-Z0-9]*$");
}

TEST(ConfigParser, StarIsOnlyForDisabled) {
  EXPECT_EQ(body_error("profiles:\n- plugins:\n    filter:\n      enabled: [{name: '*'}]\n"),
            "profile.yaml:6:24: plugin \"*\" cannot be enabled: \"*\" is only for disabled, where "
            "it turns off every default plugin of that extension point; name the plugin to enable");
}

TEST(ConfigParser, PluginEntriesNeedAName) {
  EXPECT_EQ(body_error("profiles:\n- schedulerName: s\n  plugins:\n    bind:\n      enabled:\n"
                       "      - weight: 2\n"),
            "profile.yaml:8:9: plugins.bind.enabled[0] of profile \"s\" has no name: add `name: "
            "<PluginName>`");
  EXPECT_EQ(body_error("profiles:\n- pluginConfig:\n  - args: {}\n"),
            "profile.yaml:5:5: pluginConfig[0] of profiles[0] has no name: add `name: "
            "<PluginName>`");
}

TEST(ConfigParser, V1RejectsTheVolumeLimitPluginsV135Removed) {
  const std::string v1 =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
  EXPECT_EQ(parse_error(v1 + "profiles:\n- plugins:\n    filter:\n"
                             "      enabled: [{name: EBSLimits}]\n"),
            "profile.yaml:6:24: plugin \"EBSLimits\" is invalid in "
            "kubescheduler.config.k8s.io/v1: remove it (kube-scheduler v1.35 counts these volumes "
            "in NodeVolumeLimits, through CSI migration)");
  EXPECT_NO_THROW(parse_configuration(
      v1 + "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: GCEPDLimits}]\n",
      "profile.yaml"));
}

TEST(ConfigParser, V1RejectsSelectorSpread) {
  const std::string v1 =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
  EXPECT_EQ(parse_error(v1 + "profiles:\n- plugins:\n    score:\n"
                             "      enabled: [{name: SelectorSpread}]\n"),
            "profile.yaml:6:24: plugin \"SelectorSpread\" is invalid in "
            "kubescheduler.config.k8s.io/v1: remove it (PodTopologySpread spreads pods by "
            "default), or use apiVersion: kubescheduler.config.k8s.io/v1beta3");
  // v1beta3 still knows it; disabling it is fine in both.
  EXPECT_NO_THROW(
      parse("profiles:\n- plugins:\n    score:\n"
            "      enabled: [{name: SelectorSpread}]\n"));
  EXPECT_NO_THROW(parse_configuration(
      v1 + "profiles:\n- plugins:\n    score:\n      disabled: [{name: SelectorSpread}]\n",
      "profile.yaml"));
}

TEST(ConfigParser, ReportsYamlSyntaxErrorsWithPosition) {
  EXPECT_EQ(parse_error("apiVersion: kubescheduler.config.k8s.io/v1\nprofiles: [a\nkind: x\n"),
            "profile.yaml:3:5: the file is not valid YAML (end of sequence flow not found): fix "
            "the syntax here");
  EXPECT_EQ(
      parse_error("apiVersion: v1\n  kind: x\n"),
      "profile.yaml:2:7: the file is not valid YAML (illegal map value): fix the syntax here");
}

TEST(ConfigParser, RejectsEmptyAndMultiDocumentFiles) {
  EXPECT_EQ(parse_error("# nothing\n"),
            "profile.yaml: the file is empty: write a KubeSchedulerConfiguration (apiVersion: "
            "kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration)");
  EXPECT_EQ(parse_error(std::string(kHeader) + "---\n" + kHeader),
            "profile.yaml:4:1: a second YAML document starts here: the file must hold exactly one "
            "KubeSchedulerConfiguration; remove the other documents");
  EXPECT_EQ(parse_error("- a\n"),
            "profile.yaml:1:1: the file must hold a KubeSchedulerConfiguration mapping, got a "
            "list: start it with `apiVersion: kubescheduler.config.k8s.io/v1`");
}

// --- files ---------------------------------------------------------------------------------------

TEST(ConfigParser, LoadsAFile) {
  const std::string path =
      std::string(SCHEDHOST_SOURCE_DIR) + "/tests/config/data/two-profiles.yaml";
  auto c = load_configuration(path);
  EXPECT_EQ(c.file, path);
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "default-scheduler");
  EXPECT_EQ(c.profiles[1].scheduler_name, "gpu-scheduler");
  EXPECT_EQ(c.profiles[1].location.to_string(), path + ":15:5");
}

TEST(ConfigParser, MissingFileIsAnInputError) {
  EXPECT_EQ(input_error_of([] { load_configuration("/nonexistent/profile.yaml"); }),
            "/nonexistent/profile.yaml: cannot read the configuration file (No such file or "
            "directory): check the --config path");
}

}  // namespace
}  // namespace schedhost::config
