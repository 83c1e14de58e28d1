// InterPodAffinity: the real built-in .so driven hook by hook, with the cases of upstream's unit
// tests (kubernetes 1.28 pkg/scheduler/framework/plugins/interpodaffinity filtering_test.go and
// scoring_test.go): PreFilter skip and parse errors, Filter verdicts, codes and reasons on one and
// on several nodes, namespaces and namespaceSelector, AddPod/RemovePod on a cloned state,
// normalized scores and the messages args are refused with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inter_pod_affinity/ipa_test_support.hpp"

namespace schedhost {
namespace {

using namespace testing::ipa;  // NOLINT(google-build-using-namespace): test builders
using testing::Cycle;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Json;
using testing::PluginHarness;
using ::testing::StartsWith;

using PodPtr = std::shared_ptr<const cluster::Pod>;
using NodePtr = std::shared_ptr<const cluster::Node>;
using NsPtr = std::shared_ptr<const cluster::Namespace>;

const Labels kPodLabel = {{"service", "securityscan"}};
const Labels kPodLabel2 = {{"security", "S1"}};
const Labels kLabels1 = {{"region", "r1"}, {"zone", "z11"}};

struct Verdict {
  std::string node;
  schedhost_code_t code = kSuccess;
  const char* reason = nullptr;
};

class InterPodAffinityTest : public ::testing::Test {
 protected:
  // PreFilter then Filter on each node; a PreFilter Skip expects every verdict Success.
  void check_filter(const char* name, const PodPtr& incoming, const std::vector<NodePtr>& nodes,
                    const std::vector<PodPtr>& existing, const std::vector<Verdict>& verdicts,
                    schedhost_code_t pre_filter_code = kSuccess,
                    const std::vector<NsPtr>& namespaces = {}) {
    SCOPED_TRACE(name);
    auto plugin = harness_.create("InterPodAffinity", "{}");
    Cycle cycle(*plugin, snapshot(nodes, existing, namespaces), incoming);
    const auto pre = cycle.pre_filter();
    EXPECT_EQ(pre.code, pre_filter_code);
    EXPECT_THAT(pre.reasons, IsEmpty());
    EXPECT_EQ(pre.node_names, std::nullopt);
    if (pre.code != kSuccess) return;
    for (const Verdict& v : verdicts) {
      SCOPED_TRACE(v.node);
      const auto out = cycle.filter(v.node);
      EXPECT_EQ(out.code, v.code);
      if (v.reason != nullptr) {
        EXPECT_THAT(out.reasons, ElementsAre(v.reason));
      } else {
        EXPECT_THAT(out.reasons, IsEmpty());
      }
    }
  }

  void check_single(const char* name, const PodPtr& incoming, const std::vector<PodPtr>& existing,
                    schedhost_code_t code, const char* reason = nullptr,
                    schedhost_code_t pre_filter_code = kSuccess,
                    const Labels& node_labels = kLabels1) {
    check_filter(name, incoming, {node("node1", node_labels)}, existing, {{"node1", code, reason}},
                 pre_filter_code);
  }

  // PreScore, Score on every node, NormalizeScore; the normalized scores in node order.
  void check_scores(const char* name, const PodPtr& incoming, const std::vector<NodePtr>& nodes,
                    const std::vector<PodPtr>& existing, const std::vector<std::int64_t>& want,
                    const std::string& args = "{}", const std::vector<NsPtr>& namespaces = {}) {
    SCOPED_TRACE(name);
    auto plugin = harness_.create("InterPodAffinity", args);
    Cycle cycle(*plugin, snapshot(nodes, existing, namespaces), incoming);
    const auto out = cycle.scores();
    EXPECT_EQ(out.code, kSuccess);
    EXPECT_THAT(out.reasons, IsEmpty());
    EXPECT_EQ(out.scores, want);
  }

  testing::Outcome pre_score(const char* name, const PodPtr& incoming,
                             const std::vector<NodePtr>& nodes, const std::vector<PodPtr>& existing,
                             const std::string& args = "{}",
                             const std::vector<NsPtr>& namespaces = {}) {
    SCOPED_TRACE(name);
    auto plugin = harness_.create("InterPodAffinity", args);
    Cycle cycle(*plugin, snapshot(nodes, existing, namespaces), incoming);
    return cycle.pre_score();
  }

  PluginHarness harness_{"inter_pod_affinity.so"};
};

// -- Filter on one node (filtering_test.go TestRequiredAffinitySingleNode) -----------------------

TEST_F(InterPodAffinityTest, SingleNodeAffinity) {
  check_single("no required terms and no existing pods: PreFilter skips", pod("p", {}), {},
               kSuccess, nullptr, kSkip);
  check_single("affinity In matches the existing pod",
               pod("p", kPodLabel2,
                   {.required = {term(in("service", {"securityscan", "value2"}), "region")}}),
               {pod("e", kPodLabel, {}, "node1")}, kSuccess);
  check_single(
      "affinity NotIn matches the existing pod",
      pod("p", kPodLabel2,
          {.required = {term(selector({expr("service", "NotIn", {"securityscan3", "value3"})}),
                             "region")}}),
      {pod("e", kPodLabel, {}, "node1")}, kSuccess);
  check_single("affinity limited to another namespace",
               pod("p", kPodLabel2,
                   {.required = {term(in("service", {"securityscan", "value2"}), "region",
                                      {{"namespaces", {"DiffNameSpace"}}})}}),
               {pod("e", kPodLabel, {}, "node1", "ns")}, kUU, kReasonAffinity);
  check_single("affinity whose selector matches no existing pod",
               pod("p", kPodLabel2,
                   {.required = {term(in("service", {"antivirusscan", "value2"}), "region")}}),
               {pod("e", kPodLabel, {}, "node1")}, kUU, kReasonAffinity);
  check_single("several affinity terms with different operators, all matched",
               pod("p", kPodLabel2,
                   {.required = {term(selector({expr("service", "Exists"),
                                                expr("wrongkey", "DoesNotExist")}),
                                      "region"),
                                 term(selector({expr("service", "In", {"securityscan"}),
                                                expr("service", "NotIn", {"WrongValue"})}),
                                      "region")}}),
               {pod("e", kPodLabel, {}, "node1")}, kSuccess);
  check_single("the requirements of a selector are ANDed",
               pod("p", kPodLabel2,
                   {.required = {term(selector({expr("service", "Exists"),
                                                expr("service", "In", {"WrongValue"})}),
                                      "region")}}),
               {pod("e", kPodLabel, {}, "node1")}, kUU, kReasonAffinity);
  check_single("affinity and anti-affinity both satisfied",
               pod("p", kPodLabel2,
                   {.required = {term(in("service", {"securityscan", "value2"}), "region")},
                    .required_anti = {term(in("service", {"antivirusscan", "value2"}), "node")}}),
               {pod("e", kPodLabel, {}, "node1")}, kSuccess);
  check_single("affinity, anti-affinity and the existing pod's anti-affinity satisfied",
               pod("p", kPodLabel2,
                   {.required = {term(in("service", {"securityscan", "value2"}), "region")},
                    .required_anti = {term(in("service", {"antivirusscan", "value2"}), "node")}}),
               {pod("e", kPodLabel,
                    {.required_anti = {term(in("service", {"antivirusscan"}), "node")}}, "node1")},
               kSuccess);
  check_single("anti-affinity matches the existing pod in the zone",
               pod("p", kPodLabel2,
                   {.required = {term(in("service", {"securityscan", "value2"}), "region")},
                    .required_anti = {term(in("service", {"securityscan", "value2"}), "zone")}}),
               {pod("e", kPodLabel, {}, "node1")}, kU, kReasonAnti);
  check_single("the existing pod's anti-affinity matches the incoming pod (symmetry)",
               pod("p", kPodLabel, {.required = {term(in("service", {"securityscan"}), "region")}}),
               {pod("e", kPodLabel,
                    {.required_anti = {term(in("service", {"securityscan"}), "zone")}}, "node1")},
               kU, kReasonExisting);
}

TEST_F(InterPodAffinityTest, SingleNodeFirstPodOfAGroupAndExistingAntiAffinity) {
  const Affinity self = {.required = {term(in("service", {"securityscan"}), "region")}};
  check_single("no pod matches anywhere, the pod matches its own term", pod("p", kPodLabel, self),
               {}, kSuccess);
  check_single("no pod matches, but the node lacks the topology key", pod("p", kPodLabel, self), {},
               kUU, kReasonAffinity, kSuccess, {{"zone", "z11"}});
  check_single("no pod matches and the pod does not match its own term", pod("p", kPodLabel2, self),
               {}, kUU, kReasonAffinity);
  check_single(
      "no terms of its own: the existing pod's anti-affinity is respected", pod("p", kPodLabel),
      {pod("e", {}, {.required_anti = {term(in("service", {"securityscan"}), "zone")}}, "node1")},
      kU, kReasonExisting);
  check_single(
      "no terms of its own, the existing pod's anti-affinity does not match: PreFilter skips",
      pod("p", kPodLabel),
      {pod(
          "e", {},
          {.required_anti = {term(selector({expr("service", "NotIn", {"securityscan"})}), "zone")}},
          "node1")},
      kSuccess, nullptr, kSkip);
  check_single(
      "both pods' anti-affinity match each other",
      pod("p", kPodLabel, {.required_anti = {term(in("service", {"securityscan"}), "zone")}}),
      {pod("e", kPodLabel, {.required_anti = {term(in("service", {"securityscan"}), "zone")}},
           "node1")},
      kU, kReasonAnti);
  check_single(
      "the existing pod's anti-affinity names a key the node lacks", pod("p", kPodLabel),
      {pod("e", {}, {.required_anti = {term(in("service", {"securityscan"}), "invalid-key")}},
           "node1")},
      kSuccess, nullptr, kSkip);

  // Another pod matching on a different node of the same topology: the affinity count is not
  // empty, so a node of another domain fails even though the pod matches itself.
  check_filter("first-pod exception only when nothing matches", pod("p", kPodLabel, self),
               {node("n1", {{"region", "r1"}}), node("n2", {{"region", "r2"}})},
               {pod("e", kPodLabel, {}, "n1")}, {{"n1", kSuccess}, {"n2", kUU, kReasonAffinity}});
}

TEST_F(InterPodAffinityTest, PreFilterRefusesTermsThatDoNotParse) {
  auto plugin = harness_.create("InterPodAffinity", "{}");
  {
    Cycle cycle(
        *plugin, snapshot({node("node1", kLabels1)}, {}),
        pod("p", kPodLabel, {.required = {term(in("service", {"{{.bad-value.}}"}), "region")}}));
    const auto pre = cycle.pre_filter();
    EXPECT_EQ(pre.code, kUU);
    ASSERT_EQ(pre.reasons.size(), 1u);
    EXPECT_THAT(pre.reasons[0],
                StartsWith("parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "
                           "\"{{.bad-value.}}\": a valid label must be an empty string"));
  }
  {
    Cycle cycle(*plugin, snapshot({node("node1", kLabels1)}, {}),
                pod("p", kPodLabel,
                    {.required_anti = {term(selector({expr("service", "Foo", {"a"})}), "zone")}}));
    const auto pre = cycle.pre_filter();
    EXPECT_EQ(pre.code, kUU);
    EXPECT_THAT(pre.reasons, ElementsAre("parsing pod: requiredAntiAffinityTerms: \"Foo\" is not "
                                         "a valid label selector operator"));
  }
  {
    // Filter without PreFilter's state is an internal error, as upstream's getPreFilterState.
    Cycle cycle(*plugin, snapshot({node("node1", kLabels1)}, {}), pod("p", kPodLabel));
    const auto out = cycle.filter("node1");
    EXPECT_EQ(out.code, kError);
    EXPECT_THAT(out.reasons, ElementsAre("error reading \"PreFilterInterPodAffinity\" from "
                                         "cycleState: not found"));
  }
}

// -- Filter on several nodes (TestRequiredAffinityMultipleNodes) ---------------------------------

const std::vector<NodePtr>& three_nodes() {
  static const std::vector<NodePtr> nodes = {
      node("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "h1"}}),
      node("nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "h2"}}),
      node("nodeC", {{"region", "r2"}, {"zone", "z3"}, {"hostname", "h3"}})};
  return nodes;
}

TEST_F(InterPodAffinityTest, MultipleNodes) {
  check_filter("affinity: every node of the matching pod's region",
               pod("p", {}, {.required = {term(in("foo", {"bar"}), "region")}}), three_nodes(),
               {pod("e", {{"foo", "bar"}}, {}, "nodeA")},
               {{"nodeA"}, {"nodeB"}, {"nodeC", kUU, kReasonAffinity}});
  check_filter("anti-affinity: no node of the matching pod's region",
               pod("p", {}, {.required_anti = {term(in("foo", {"abc"}), "region")}}), three_nodes(),
               {pod("e", {{"foo", "abc"}}, {}, "nodeA")},
               {{"nodeA", kU, kReasonAnti}, {"nodeB", kU, kReasonAnti}, {"nodeC"}});
  check_filter("anti-affinity: any term matching a pod counts",
               pod("p", {},
                   {.required_anti = {term(in("foo", {"nomatch"}), "region"),
                                      term(in("foo", {"abc"}), "zone")}}),
               three_nodes(), {pod("e", {{"foo", "abc"}}, {}, "nodeA")},
               {{"nodeA", kU, kReasonAnti}, {"nodeB"}, {"nodeC"}});
  const Affinity both = {
      .required = {term(in("foo", {"bar"}), "zone"), term(in("bar", {"foo"}), "region")}};
  const std::vector<PodPtr> split = {pod("x", {{"foo", "bar"}}, {}, "nodeA"),
                                     pod("y", {{"bar", "foo"}}, {}, "nodeB")};
  check_filter("affinity: all terms must match the same pod", pod("p", {}, both), three_nodes(),
               split,
               {{"nodeA", kUU, kReasonAffinity},
                {"nodeB", kUU, kReasonAffinity},
                {"nodeC", kUU, kReasonAffinity}});
  check_filter("affinity: no single pod matches, but the pod matches all its own terms",
               pod("p", {{"foo", "bar"}, {"bar", "foo"}}, both), three_nodes(), split,
               {{"nodeA"}, {"nodeB"}, {"nodeC"}});
  check_filter(
      "existing pod's anti-affinity: its zone only", pod("p", {{"service", "securityscan"}}),
      three_nodes(),
      {pod("e", {}, {.required_anti = {term(in("service", {"securityscan"}), "zone")}}, "nodeA")},
      {{"nodeA", kU, kReasonExisting}, {"nodeB"}, {"nodeC"}});
  check_filter(
      "existing pod's anti-affinity: its region", pod("p", {{"service", "securityscan"}}),
      three_nodes(),
      {pod("e", {}, {.required_anti = {term(in("service", {"securityscan"}), "region")}}, "nodeC")},
      {{"nodeA"}, {"nodeB"}, {"nodeC", kU, kReasonExisting}});
  check_filter("affinity on a key only some nodes have",
               pod("p", {}, {.required = {term(in("foo", {"bar"}), "rack")}}),
               {node("n1", {{"rack", "a"}}), node("n2", {{"rack", "a"}}), node("n3", {})},
               {pod("e", {{"foo", "bar"}}, {}, "n1")},
               {{"n1"}, {"n2"}, {"n3", kUU, kReasonAffinity}});
}

// -- namespaces and namespaceSelector -----------------------------------------------------------

const std::vector<NsPtr>& team_namespaces() {
  static const std::vector<NsPtr> namespaces = {
      ns("team1-a", {{"team", "team1"}}), ns("team1-b", {{"team", "team1"}}),
      ns("team2", {{"team", "team2"}}),   ns("plain"),
      ns("prod-ns", {{"env", "prod"}}),   ns("dev-ns", {{"env", "dev"}})};
  return namespaces;
}

TEST_F(InterPodAffinityTest, NamespaceSelectorOfTheIncomingPod) {
  const std::vector<PodPtr> web = {pod("w1", {{"app", "web"}}, {}, "nodeA", "team1-a"),
                                   pod("w2", {{"app", "web"}}, {}, "nodeB", "team2"),
                                   pod("w3", {{"app", "web"}}, {}, "nodeC", "ghost")};
  auto anti = [](Json extra) {
    return Affinity{.required_anti = {term(in("app", {"web"}), "hostname", std::move(extra))}};
  };
  check_filter("namespaceSelector team=team1",
               pod("p", {}, anti({{"namespaceSelector", in("team", {"team1"})}}), "", "app"),
               three_nodes(), web, {{"nodeA", kU, kReasonAnti}, {"nodeB"}, {"nodeC"}}, kSuccess,
               team_namespaces());
  check_filter("namespaceSelector {} matches every namespace, even one without an object",
               pod("p", {}, anti({{"namespaceSelector", Json::object()}}), "", "app"),
               three_nodes(), web,
               {{"nodeA", kU, kReasonAnti}, {"nodeB", kU, kReasonAnti}, {"nodeC", kU, kReasonAnti}},
               kSuccess, team_namespaces());
  check_filter(
      "namespaces and namespaceSelector are ORed",
      pod("p", {}, anti({{"namespaces", {"team2"}}, {"namespaceSelector", in("team", {"team1"})}}),
          "", "app"),
      three_nodes(), web, {{"nodeA", kU, kReasonAnti}, {"nodeB", kU, kReasonAnti}, {"nodeC"}},
      kSuccess, team_namespaces());
  check_filter("a selector lists only Namespace objects: none for ghost",
               pod("p", {}, anti({{"namespaceSelector", selector({expr("team", "DoesNotExist")})}}),
                   "", "app"),
               three_nodes(),
               {pod("w1", {{"app", "web"}}, {}, "nodeA", "ghost"),
                pod("w2", {{"app", "web"}}, {}, "nodeB", "plain")},
               {{"nodeA"}, {"nodeB", kU, kReasonAnti}, {"nodeC"}}, kSuccess, team_namespaces());
  check_filter("neither namespaces nor selector: the pod's own namespace",
               pod("p", {}, anti(Json::object()), "", "team2"), three_nodes(), web,
               {{"nodeA"}, {"nodeB", kU, kReasonAnti}, {"nodeC"}}, kSuccess, team_namespaces());
  check_filter("affinity with namespaceSelector",
               pod("p", {},
                   {.required = {term(in("app", {"web"}), "region",
                                      {{"namespaceSelector", in("team", {"team2"})}})}},
                   "", "app"),
               three_nodes(), web, {{"nodeA"}, {"nodeB"}, {"nodeC", kUU, kReasonAffinity}},
               kSuccess, team_namespaces());
}

TEST_F(InterPodAffinityTest, NamespaceSelectorOfExistingPodsMatchesTheIncomingPodsNamespace) {
  const std::vector<PodPtr> guard = {
      pod("g", {},
          {.required_anti = {term(in("app", {"db"}), "hostname",
                                  {{"namespaceSelector", in("env", {"prod"})}})}},
          "nodeA", "other")};
  check_filter("incoming pod in a prod namespace", pod("p", {{"app", "db"}}, {}, "", "prod-ns"),
               three_nodes(), guard, {{"nodeA", kU, kReasonExisting}, {"nodeB"}, {"nodeC"}},
               kSuccess, team_namespaces());
  check_filter("incoming pod in a dev namespace", pod("p", {{"app", "db"}}, {}, "", "dev-ns"),
               three_nodes(), guard, {}, kSkip, team_namespaces());
  check_filter("incoming pod in a namespace without an object",
               pod("p", {{"app", "db"}}, {}, "", "x"), three_nodes(), guard, {}, kSkip,
               team_namespaces());
}

// -- AddPod / RemovePod ---------------------------------------------------------------------------

TEST_F(InterPodAffinityTest, AddPodAndRemovePodUpdateTheClonedState) {
  auto plugin = harness_.create("InterPodAffinity", "{}");
  const PodPtr incoming = pod("p", {{"app", "web"}},
                              {.required = {term(in("tier", {"cache"}), "region")},
                               .required_anti = {term(in("app", {"web"}), "hostname")}});
  const PodPtr cache_c = pod("cache-c", {{"tier", "cache"}}, {}, "nodeC");
  Cycle cycle(*plugin, snapshot(three_nodes(), {cache_c}), incoming);
  ASSERT_EQ(cycle.pre_filter().code, kSuccess);
  const cluster::Snapshot& snap = cycle.snapshot();

  auto filter = [&](framework::CycleState& state, const std::string& node) {
    framework::Call call(&snap);
    state.set_read_only(true);
    const schedhost_code_t code =
        plugin->vtable().filter(plugin->self(), call.handle(), state.handle(),
                                testing::pod_handle(*incoming), testing::node_handle(snap, node));
    state.set_read_only(false);
    return std::make_pair(code, call.reasons());
  };
  auto change = [&](framework::CycleState& state, const PodPtr& other, const std::string& node,
                    bool add) {
    framework::Call call(&snap);
    auto hook = add ? plugin->vtable().add_pod : plugin->vtable().remove_pod;
    return hook(plugin->self(), call.handle(), state.handle(), testing::pod_handle(*incoming),
                testing::pod_handle(*other), testing::node_handle(snap, node));
  };
  using Result = std::pair<schedhost_code_t, std::vector<std::string>>;
  const Result ok{kSuccess, {}};
  const Result affinity{kUU, {kReasonAffinity}};
  const Result anti{kU, {kReasonAnti}};
  const Result existing{kU, {kReasonExisting}};

  EXPECT_EQ(filter(cycle.state(), "nodeA"), affinity);
  EXPECT_EQ(filter(cycle.state(), "nodeC"), ok);

  std::unique_ptr<framework::CycleState> clone = cycle.state().clone();
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(change(*clone, pod("cache-a", {{"tier", "cache"}}), "nodeA", true), kSuccess);
  EXPECT_EQ(filter(*clone, "nodeA"), ok);
  EXPECT_EQ(filter(*clone, "nodeB"), ok);
  EXPECT_EQ(filter(cycle.state(), "nodeA"), affinity);  // the original is untouched

  EXPECT_EQ(change(*clone, pod("web-c", {{"app", "web"}}), "nodeC", true), kSuccess);
  EXPECT_EQ(filter(*clone, "nodeC"), anti);
  EXPECT_EQ(
      change(*clone, pod("guard-b", {}, {.required_anti = {term(in("app", {"web"}), "hostname")}}),
             "nodeB", true),
      kSuccess);
  EXPECT_EQ(filter(*clone, "nodeB"), existing);

  EXPECT_EQ(change(*clone, pod("web-c", {{"app", "web"}}), "nodeC", false), kSuccess);
  EXPECT_EQ(change(*clone, cache_c, "nodeC", false), kSuccess);
  EXPECT_EQ(filter(*clone, "nodeC"), affinity);  // region r2 has no cache pod any more
  EXPECT_EQ(filter(*clone, "nodeA"), ok);
  EXPECT_EQ(filter(cycle.state(), "nodeC"), ok);
}

// -- Scoring (scoring_test.go TestPreferredAffinity and ...WithHardPodAffinitySymmetricWeight) ---

const Labels kS1 = {{"security", "S1"}};
const Labels kS2 = {{"security", "S2"}};
const Labels kChina = {{"region", "China"}};
const Labels kIndia = {{"region", "India"}};
const Labels kJapan = {{"region", "Japan"}};
const Labels kChinaAz1 = {{"region", "China"}, {"az", "az1"}};
const Labels kAz1 = {{"az", "az1"}};
const Labels kAz2 = {{"az", "az2"}};
const Json kStayWithS1InRegion = weighted(5, term(in("security", {"S1"}), "region"));
const Json kStayWithS2InRegion = weighted(6, term(in("security", {"S2"}), "region"));
const Json kAwayFromS1InAz = weighted(5, term(in("security", {"S1"}), "az"));
const Json kHardAffinity = term(in("security", {"S1", "value2"}), "region");

TEST_F(InterPodAffinityTest, PreferredAffinity) {
  EXPECT_EQ(pre_score("no terms anywhere", pod("p", {}), {node("n1", kChina), node("n2", kIndia)},
                      {pod("e", kS1, {}, "n1")})
                .code,
            kSkip);
  check_scores("matching pods in the node's region score highest",
               pod("p", kS1, {.preferred = {kStayWithS1InRegion}}),
               {node("n1", kChina), node("n2", kIndia), node("n3", kJapan)},
               {pod("a", kS1, {}, "n1"), pod("b", kS2, {}, "n2"), pod("c", {}, {}, "n3")},
               {100, 0, 0});
  check_scores("every node of the matching region scores the same",
               pod("p", kS1, {.preferred = {kStayWithS1InRegion}}),
               {node("n1", kChina), node("n2", kChinaAz1), node("n3", kIndia)},
               {pod("a", kS1, {}, "n1")}, {100, 100, 0});
  check_scores("more matching pods in a region score higher",
               pod("p", kS1, {.preferred = {kStayWithS2InRegion}}),
               {node("n1", kChina), node("n2", kChinaAz1), node("n3", kIndia), node("n4", kJapan)},
               {pod("a", kS2, {}, "n1"), pod("b", kS2, {}, "n2"), pod("c", kS2, {}, "n3"),
                pod("d", kS1, {}, "n3")},
               {100, 100, 50, 0});
  check_scores("anti-affinity: nodes without matching pods score highest",
               pod("p", kS1, {.preferred_anti = {kAwayFromS1InAz}}),
               {node("n1", kAz1), node("n2", kAz2)},
               {pod("a", kS1, {}, "n1"), pod("b", kS2, {}, "n2")}, {0, 100});
  check_scores("affinity and anti-affinity together, float truncation",
               pod("p", kS1,
                   {.preferred = {weighted(8, term(in("security", {"S1"}), "region"))},
                    .preferred_anti = {weighted(5, term(in("security", {"S2"}), "az"))}}),
               {node("n1", {{"region", "China"}, {"az", "az1"}}),
                node("n2", {{"region", "China"}, {"az", "az2"}}),
                node("n3", {{"region", "India"}, {"az", "az1"}})},
               {pod("a", kS1, {}, "n1"), pod("b", kS2, {}, "n2"), pod("c", kS2, {}, "n3"),
                pod("d", kS2, {}, "n1")},
               // region China +8; az1 -10, az2 -5: n1 -2, n2 3, n3 -10 -> 100*8/13 = 61.5
               {61, 100, 0});
  check_scores("pods on a node without labels contribute nothing",
               pod("p", kS1, {.preferred = {kStayWithS1InRegion}}),
               {node("n1", {}), node("n2", kChina), node("n3", kIndia)},
               {pod("a", kS1, {}, "n1"), pod("b", kS1, {}, "n3")}, {0, 0, 100});
}

TEST_F(InterPodAffinityTest, ExistingPodsTermsAndHardPodAffinityWeight) {
  const std::vector<NodePtr> nodes = {node("n1", kChina), node("n2", kIndia)};
  check_scores("symmetry of existing pods' preferred affinity", pod("p", kS1), nodes,
               {pod("a", kS2, {.preferred = {kStayWithS1InRegion}}, "n1"),
                pod("b", kS2, {.preferred = {kStayWithS2InRegion}}, "n2")},
               {100, 0});
  check_scores("symmetry of existing pods' preferred anti-affinity", pod("p", kS1),
               {node("n1", kAz1), node("n2", kAz2)},
               {pod("a", kS2, {.preferred_anti = {kAwayFromS1InAz}}, "n1")}, {0, 100});
  const std::vector<NodePtr> three = {node("n1", kChina), node("n2", kChinaAz1),
                                      node("n3", kIndia)};
  const std::vector<PodPtr> hard = {pod("a", kS2, {.required = {kHardAffinity}}, "n1")};
  check_scores("existing pods' required affinity weighs hardPodAffinityWeight (default 1)",
               pod("p", kS1), three, hard, {100, 100, 0});
  check_scores("hardPodAffinityWeight 7", pod("p", kS1), three, hard, {100, 100, 0},
               R"({"hardPodAffinityWeight":7})");
  EXPECT_EQ(pre_score("hardPodAffinityWeight 0 ignores them", pod("p", kS1), three, hard,
                      R"({"hardPodAffinityWeight":0})")
                .code,
            kSkip);
  // hard weight 10 at China vs a preferred anti-affinity of 5 at az1 and the pod's own preference.
  check_scores(
      "hard weight against preferred terms", pod("p", kS1), three,
      {pod("a", kS2, {.required = {kHardAffinity}}, "n1"),
       pod("b", kS2, {.preferred_anti = {weighted(5, term(in("security", {"S1"}), "az"))}}, "n2")},
      // China +10, az1 -5: n1 10, n2 5, n3 0
      {100, 50, 0}, R"({"hardPodAffinityWeight":10})");
  EXPECT_EQ(
      pre_score("ignorePreferredTermsOfExistingPods without own preferred terms", pod("p", kS1),
                nodes, {pod("a", kS2, {.preferred = {kStayWithS1InRegion}}, "n1")},
                R"({"ignorePreferredTermsOfExistingPods":true})")
          .code,
      kSkip);
  check_scores("ignorePreferredTermsOfExistingPods with own preferred terms still counts theirs",
               pod("p", kS1, {.preferred = {kStayWithS2InRegion}}), nodes,
               {pod("a", kS2, {.preferred = {kStayWithS1InRegion}}, "n1"), pod("b", kS2, {}, "n2")},
               // China +5 (a's term) +6 (a matches) = 11; India +6
               {100, 0}, R"({"ignorePreferredTermsOfExistingPods":true})");
}

TEST_F(InterPodAffinityTest, ScoringNamespacesAndErrors) {
  check_scores(
      "incoming pod's namespaceSelector",
      pod("p", kS1,
          {.preferred = {weighted(5, term(in("security", {"S1"}), "region",
                                          {{"namespaceSelector", in("team", {"team1"})}}))}},
          "", "app"),
      {node("n1", kChina), node("n2", kIndia), node("n3", kJapan)},
      {pod("a", kS1, {}, "n1", "team1-a"), pod("b", kS1, {}, "n2", "team2"),
       pod("c", kS1, {}, "n3", "app")},
      {100, 0, 0}, "{}", team_namespaces());
  const std::vector<PodPtr> existing = {
      pod("a", {},
          {.preferred = {weighted(5, term(in("security", {"S1"}), "region",
                                          {{"namespaceSelector", in("env", {"prod"})}}))}},
          "n1", "other")};
  check_scores("existing pod's namespaceSelector matches the incoming pod's namespace",
               pod("p", kS1, {}, "", "prod-ns"), {node("n1", kChina), node("n2", kIndia)}, existing,
               {100, 0}, "{}", team_namespaces());
  EXPECT_EQ(
      pre_score("existing pod's namespaceSelector does not match", pod("p", kS1, {}, "", "dev-ns"),
                {node("n1", kChina), node("n2", kIndia)}, existing, "{}", team_namespaces())
          .code,
      kSkip);
  const auto bad = pre_score(
      "a preferred term that does not parse",
      pod("p", kS1,
          {.preferred = {weighted(5, term(selector({expr("security", "Foo")}), "region"))}}),
      {node("n1", kChina)}, {});
  EXPECT_EQ(bad.code, kError);
  EXPECT_THAT(bad.reasons, ElementsAre("failed to parse pod: preferredAffinityTerms: \"Foo\" is "
                                       "not a valid label selector operator"));
  const auto none =
      pre_score("no nodes", pod("p", kS1, {.preferred = {kStayWithS1InRegion}}), {}, {});
  EXPECT_EQ(none.code, kSkip);
}

// -- Args -----------------------------------------------------------------------------------------

TEST_F(InterPodAffinityTest, Args) {
  EXPECT_EQ(harness_.create_error("InterPodAffinity", "{}"), "<no error>");
  EXPECT_EQ(harness_.create_error(
                "InterPodAffinity",
                R"({"hardPodAffinityWeight":100,"ignorePreferredTermsOfExistingPods":false})"),
            "<no error>");
  EXPECT_EQ(harness_.create_error("InterPodAffinity", R"({"hardPodAffinityWeight":0})"),
            "<no error>");
  EXPECT_EQ(harness_.create_error("InterPodAffinity", R"({"hardPodAffinityWeight":101})"),
            "plugin \"InterPodAffinity\": hardPodAffinityWeight: Invalid value: 101: not in valid "
            "range [0, 100]");
  EXPECT_EQ(harness_.create_error("InterPodAffinity", R"({"hardPodAffinityWeight":-1})"),
            "plugin \"InterPodAffinity\": hardPodAffinityWeight: Invalid value: -1: not in valid "
            "range [0, 100]");
  EXPECT_EQ(harness_.create_error("InterPodAffinity", R"({"hardPodAffinityWeight":"1"})"),
            "plugin \"InterPodAffinity\": hardPodAffinityWeight must be an integer, got \"1\"");
  EXPECT_EQ(
      harness_.create_error("InterPodAffinity", R"({"ignorePreferredTermsOfExistingPods":"yes"})"),
      "plugin \"InterPodAffinity\": ignorePreferredTermsOfExistingPods must be true or false, "
      "got \"yes\"");
  EXPECT_EQ(harness_.create_error("InterPodAffinity", R"({"hardPodAffinityWieght":1})"),
            "plugin \"InterPodAffinity\": unknown field \"hardPodAffinityWieght\": "
            "InterPodAffinity args have hardPodAffinityWeight and "
            "ignorePreferredTermsOfExistingPods");
}

}  // namespace
}  // namespace schedhost
