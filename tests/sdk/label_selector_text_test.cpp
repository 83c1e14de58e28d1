// Label selectors in string form: each operator on present and absent keys, combinations,
// whitespace, the empty selector, numeric > and <, and the exact one-line errors.
#include <schedhost/k8s/label_selector_text.hpp>

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace schedhost::k8s {
namespace {

using Labels = std::map<std::string, std::string, std::less<>>;

struct MatchCase {
  std::string selector;
  Labels labels;
  bool matches;
};

std::string describe(const Labels& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels)
    out += (out.size() > 1 ? ", " : "") + k + "=\"" + v + "\"";
  return out + "}";
}

bool matches(const LabelSelectorText& selector, const Labels& labels) {
  return selector.matches([&](std::string_view key) -> std::optional<std::string_view> {
    const auto it = labels.find(key);
    if (it == labels.end()) return std::nullopt;
    return it->second;
  });
}

void expect_matches(const std::vector<MatchCase>& cases) {
  for (const MatchCase& c : cases) {
    SCOPED_TRACE("selector \"" + c.selector + "\" on " + describe(c.labels));
    LabelSelectorText selector;
    ASSERT_NO_THROW(selector = LabelSelectorText::parse(c.selector));
    EXPECT_EQ(matches(selector, c.labels), c.matches);
  }
}

// The message of the std::invalid_argument that parsing throws, or "parsed" when none is.
std::string parse_error(std::string_view text) {
  try {
    LabelSelectorText::parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "parsed";
}

TEST(LabelSelectorText, EqualsMatchesOnlyThatValue) {
  expect_matches({
      {"app=web", {{"app", "web"}}, true},
      {"app=web", {{"app", "db"}}, false},
      {"app=web", {{"app", ""}}, false},
      {"app=web", {}, false},
      {"app=web", {{"other", "web"}}, false},
      {"app==web", {{"app", "web"}}, true},
      {"app==web", {{"app", "WEB"}}, false},
      {"app==web", {}, false},
  });
}

TEST(LabelSelectorText, AnEmptyValueSelectsTheEmptyValueAsUpstream) {
  expect_matches({
      {"app=", {{"app", ""}}, true},
      {"app=", {{"app", "web"}}, false},
      {"app=", {}, false},
      {"app==,tier", {{"app", ""}, {"tier", "x"}}, true},
      {"app!=", {{"app", ""}}, false},
      {"app!=", {{"app", "web"}}, true},
      {"app!=", {}, true},
  });
}

TEST(LabelSelectorText, NotEqualsMatchesAbsentKeysAsUpstream) {
  expect_matches({
      {"env!=prod", {{"env", "prod"}}, false},
      {"env!=prod", {{"env", "dev"}}, true},
      {"env!=prod", {{"env", ""}}, true},
      {"env!=prod", {}, true},
      {"env!=prod", {{"app", "prod"}}, true},
  });
}

TEST(LabelSelectorText, InAndNotInMatchAbsentKeysAsUpstream) {
  expect_matches({
      {"tier in (front,back)", {{"tier", "front"}}, true},
      {"tier in (front,back)", {{"tier", "back"}}, true},
      {"tier in (front,back)", {{"tier", "middle"}}, false},
      {"tier in (front,back)", {{"tier", ""}}, false},
      {"tier in (front,back)", {}, false},
      {"tier in (front)", {{"tier", "front"}}, true},
      {"tier notin (front,back)", {{"tier", "front"}}, false},
      {"tier notin (front,back)", {{"tier", "back"}}, false},
      {"tier notin (front,back)", {{"tier", "middle"}}, true},
      {"tier notin (front,back)", {{"tier", ""}}, true},
      {"tier notin (front,back)", {}, true},
  });
}

TEST(LabelSelectorText, CommasInASetSeparateValuesThatMayBeEmptyAsUpstream) {
  expect_matches({
      {"x in (a,,b)", {{"x", ""}}, true},
      {"x in (a,,b)", {{"x", "b"}}, true},
      {"x in (a,)", {{"x", ""}}, true},
      {"x in (,a)", {{"x", ""}}, true},
      {"x in (,)", {{"x", ""}}, true},
      {"x in (,)", {{"x", "a"}}, false},
      {"x in (a,b)", {{"x", ""}}, false},
      {"x notin (a,)", {{"x", ""}}, false},
      {"x notin (a,)", {{"x", "c"}}, true},
  });
}

TEST(LabelSelectorText, ExistsAndDoesNotExistLookOnlyAtTheKey) {
  expect_matches({
      {"canary", {{"canary", "true"}}, true},
      {"canary", {{"canary", ""}}, true},
      {"canary", {}, false},
      {"canary", {{"canary2", "x"}}, false},
      {"!canary", {{"canary", "true"}}, false},
      {"!canary", {{"canary", ""}}, false},
      {"!canary", {}, true},
      {"!canary", {{"other", "x"}}, true},
  });
}

TEST(LabelSelectorText, GreaterAndLessCompareIntegersNumerically) {
  expect_matches({
      {"version>3", {{"version", "4"}}, true},
      {"version>3", {{"version", "10"}}, true},  // numerically, not as text
      {"version>3", {{"version", "3"}}, false},
      {"version>3", {{"version", "2"}}, false},
      {"version>3", {{"version", "+5"}}, true},  // Go's strconv.ParseInt takes a sign
      {"version>3", {{"version", "004"}}, true},
      {"version>3", {}, false},
      {"version<3", {{"version", "2"}}, true},
      {"version<3", {{"version", "-7"}}, true},
      {"version<3", {{"version", "3"}}, false},
      {"version<3", {{"version", "10"}}, false},
      {"version<3", {}, false},
      {"version>0", {{"version", "9223372036854775807"}}, true},
      {"version<0", {{"version", "-9223372036854775808"}}, true},
  });
}

TEST(LabelSelectorText, GreaterAndLessNeverMatchALabelThatIsNotAnInteger) {
  expect_matches({
      {"version>3", {{"version", "abc"}}, false},
      {"version<3", {{"version", "abc"}}, false},
      {"version>3", {{"version", ""}}, false},
      {"version<3", {{"version", ""}}, false},
      {"version>3", {{"version", "4.5"}}, false},
      {"version<3", {{"version", "1.5"}}, false},
      {"version>3", {{"version", "4a"}}, false},
      {"version>3", {{"version", "0x10"}}, false},
      {"version>3", {{"version", "1_000"}}, false},
      {"version>3", {{"version", "9223372036854775808"}}, false},  // beyond int64
      {"version<3", {{"version", "-9223372036854775809"}}, false},
  });
}

TEST(LabelSelectorText, EveryRequirementMustHold) {
  const std::string all = "app=web,tier in (front,back),!canary,env!=prod,version>3,x";
  const Labels good = {{"app", "web"}, {"tier", "front"}, {"version", "4"}, {"x", ""}};
  const auto with = [&](const std::string& k, const std::string& v) {
    Labels l = good;
    l[k] = v;
    return l;
  };
  const auto without = [&](const std::string& k) {
    Labels l = good;
    l.erase(k);
    return l;
  };
  expect_matches({
      {all, good, true},
      {all, with("env", "dev"), true},
      {all, with("app", "db"), false},
      {all, without("app"), false},
      {all, with("tier", "middle"), false},
      {all, with("canary", "true"), false},
      {all, with("env", "prod"), false},
      {all, with("version", "3"), false},
      {all, with("version", "four"), false},
      {all, without("x"), false},
      {"app=web,app=db", {{"app", "web"}}, false},
      {"app=web,app!=db", {{"app", "web"}}, true},
      {"a,b,c", {{"a", "1"}, {"b", "2"}, {"c", "3"}}, true},
      {"a,b,c", {{"a", "1"}, {"c", "3"}}, false},
  });
}

TEST(LabelSelectorText, WhitespaceAroundTokensIsIgnored) {
  const Labels labels = {{"app", "web"}, {"tier", "back"}, {"version", "5"}};
  expect_matches({
      {"  app = web ,  tier   in ( front , back )\t,\n!canary , version > 3  ", labels, true},
      {"app==web,tier in(front,back),!canary,version>3", labels, true},
      {"app\t!=\tweb", labels, false},
      {"tier notin(back)", labels, false},
      {"\r\napp\r\n", labels, true},
      {"app=web ,tier=front", labels, false},
  });
}

TEST(LabelSelectorText, EmptySelectorSelectsEverything) {
  for (const char* text : {"", " ", "  \t\r\n "}) {
    SCOPED_TRACE(std::string("selector \"") + text + "\"");
    const LabelSelectorText selector = LabelSelectorText::parse(text);
    EXPECT_TRUE(selector.empty());
    EXPECT_TRUE(matches(selector, {}));
    EXPECT_TRUE(matches(selector, {{"app", "web"}}));
  }
  EXPECT_FALSE(LabelSelectorText::parse("app").empty());
  EXPECT_FALSE(LabelSelectorText::parse("!app").empty());
  EXPECT_TRUE(LabelSelectorText().empty());
}

TEST(LabelSelectorText, InAndNotInAreKeywordsOnlyWhereAnOperatorGoes) {
  expect_matches({
      {"in", {{"in", "x"}}, true},
      {"in", {}, false},
      {"!notin", {}, true},
      {"in in (in,notin)", {{"in", "notin"}}, true},
      {"notin notin (in)", {{"notin", "in"}}, false},
      {"notin=in", {{"notin", "in"}}, true},
      {"x in(a),y notin(b)", {{"x", "a"}}, true},
  });
}

TEST(LabelSelectorText, KeysMayHaveADnsSubdomainPrefix) {
  expect_matches({
      {"example.com/app=web", {{"example.com/app", "web"}}, true},
      {"example.com/app=web", {{"app", "web"}}, false},
      {"!kubernetes.io/hostname", {{"kubernetes.io/hostname", "n1"}}, false},
      {"topology.kubernetes.io/zone in (a,b)", {{"topology.kubernetes.io/zone", "b"}}, true},
      {"A_b.C-9=Value_1.x-Y", {{"A_b.C-9", "Value_1.x-Y"}}, true},
      {std::string(63, 'k') + "=" + std::string(63, 'v'),
       {{std::string(63, 'k'), std::string(63, 'v')}},
       true},
  });
}

constexpr const char* kNameRules =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr const char* kValueRules =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

TEST(LabelSelectorText, UnclosedParenthesesSayWhereTheCloseIsMissing) {
  EXPECT_EQ(parse_error("app in (a"), R"-(label selector "app in (a": expected ")" at column 10)-");
  EXPECT_EQ(parse_error("app in (a,"),
            R"-(label selector "app in (a,": expected ")" at column 11)-");
  EXPECT_EQ(parse_error("app in ("), R"-(label selector "app in (": expected ")" at column 9)-");
  EXPECT_EQ(parse_error("app in (a b)"),
            R"-(label selector "app in (a b)": expected "," or ")", found "b" at column 11)-");
  EXPECT_EQ(parse_error("app in (a=b)"),
            R"-(label selector "app in (a=b)": expected "," or ")", found "=" at column 10)-");
  EXPECT_EQ(parse_error("app in (a,(b))"),
            R"-(label selector "app in (a,(b))": expected a value, "," or ")", found "(" )-"
            R"-(at column 11)-");
}

// As upstream's parseValues: "()" is the set holding the empty value.
TEST(LabelSelectorText, AnEmptyValueSetHoldsTheEmptyValue) {
  expect_matches({
      {"app in ()", {{"app", ""}}, true},
      {"app in ()", {{"app", "web"}}, false},
      {"app in ()", {}, false},
      {"x,app notin ( )", {{"x", "1"}, {"app", ""}}, false},
      {"x,app notin ( )", {{"x", "1"}, {"app", "web"}}, true},
  });
}

TEST(LabelSelectorText, BadKeysAreNamedWithUpstreamsReason) {
  EXPECT_EQ(parse_error("-app=web"),
            std::string(R"-(label selector "-app=web": invalid label key "-app" at column 1: )-") +
                "name part " + kNameRules);
  EXPECT_EQ(parse_error("app=web,!tier_"),
            std::string(R"-(label selector "app=web,!tier_": invalid label key "tier_" at )-"
                        R"-(column 10: )-") +
                "name part " + kNameRules);
  const std::string long_key(64, 'k');
  EXPECT_EQ(parse_error(long_key + " in (a)"),
            "label selector \"" + long_key + " in (a)\": invalid label key \"" + long_key +
                "\" at column 1: name part must be no more than 63 characters");
  EXPECT_EQ(parse_error("Example.com/app"),
            R"-(label selector "Example.com/app": invalid label key "Example.com/app" at )-"
            "column 1: prefix part a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_EQ(parse_error("/app"),
            R"-(label selector "/app": invalid label key "/app" at column 1: prefix part must )-"
            "be non-empty");
}

TEST(LabelSelectorText, BadValuesAreNamedWithUpstreamsReason) {
  const std::string long_value(64, 'v');
  EXPECT_EQ(parse_error("app=" + long_value),
            "label selector \"app=" + long_value + "\": invalid label value \"" + long_value +
                "\" at column 5: must be no more than 63 characters");
  EXPECT_EQ(parse_error("app in (a," + long_value + ")"),
            "label selector \"app in (a," + long_value + ")\": invalid label value \"" +
                long_value + "\" at column 11: must be no more than 63 characters");
  EXPECT_EQ(
      parse_error("app!=web_"),
      std::string(R"-(label selector "app!=web_": invalid label value "web_" at column 6: )-") +
          kValueRules);
  // An integer, but not a label value: upstream's NewRequirement refuses it as well.
  EXPECT_EQ(
      parse_error("version>-3"),
      std::string(R"-(label selector "version>-3": invalid label value "-3" at column 9: )-") +
          kValueRules);
}

TEST(LabelSelectorText, AMissingValueAfterAnOperatorIsReported) {
  EXPECT_EQ(parse_error("version>"),
            R"-(label selector "version>": expected an integer after ">" at column 9)-");
  EXPECT_EQ(parse_error("version<,app"),
            R"-(label selector "version<,app": expected an integer after "<", found "," at )-"
            R"-(column 9)-");
  EXPECT_EQ(parse_error("version>abc"),
            R"-(label selector "version>abc": expected an integer after ">", found "abc" at )-"
            R"-(column 9)-");
  EXPECT_EQ(parse_error("app in"),
            R"-(label selector "app in": expected "(" after "in" at column 7)-");
  EXPECT_EQ(
      parse_error("app notin a"),
      R"-(label selector "app notin a": expected "(" after "notin", found "a" at column 11)-");
  EXPECT_EQ(parse_error("app=(web)"),
            R"-(label selector "app=(web)": expected a value after "=", found "(" at column 5)-");
  EXPECT_EQ(parse_error("app!=!web"),
            R"-(label selector "app!=!web": expected a value after "!=", found "!" at column 6)-");
}

TEST(LabelSelectorText, MisplacedCommasAndOperatorsAreReported) {
  EXPECT_EQ(parse_error("app=web,"),
            R"-(label selector "app=web,": expected a label key or "!" after "," at column 9)-");
  EXPECT_EQ(parse_error("app,,tier"),
            R"-(label selector "app,,tier": expected a label key or "!" after ",", found "," )-"
            R"-(at column 5)-");
  EXPECT_EQ(parse_error(",app"),
            R"-(label selector ",app": expected a label key or "!", found "," at column 1)-");
  EXPECT_EQ(parse_error("=web"),
            R"-(label selector "=web": expected a label key or "!", found "=" at column 1)-");
  EXPECT_EQ(parse_error("!"),
            R"-(label selector "!": expected a label key after "!" at column 2)-");
  EXPECT_EQ(parse_error("!app=web"),
            R"-(label selector "!app=web": expected "," or the end of the selector, found "=" )-"
            R"-(at column 5)-");
  EXPECT_EQ(parse_error("app=web tier=front"),
            R"-(label selector "app=web tier=front": expected "," or the end of the selector, )-"
            R"-(found "tier" at column 9)-");
  EXPECT_EQ(parse_error("app inn (a)"),
            R"-(label selector "app inn (a)": expected an operator (=, ==, !=, in, notin, >, <) )-"
            R"-(or ",", found "inn" at column 5)-");
  EXPECT_EQ(parse_error("app!web"),
            R"-(label selector "app!web": expected an operator (=, ==, !=, in, notin, >, <) or )-"
            R"-(",", found "!" at column 4)-");
  EXPECT_EQ(parse_error("app=web)"),
            R"-(label selector "app=web)": expected "," or the end of the selector, found ")" )-"
            R"-(at column 8)-");
}

TEST(LabelSelectorText, ErrorsStayOnOneLine) {
  EXPECT_EQ(
      parse_error("app\n=(\"x\")"),
      R"-(label selector "app\n=(\"x\")": expected a value after "=", found "(" at column 6)-");
  EXPECT_EQ(parse_error("a\tb"),
            R"-(label selector "a\tb": expected an operator (=, ==, !=, in, notin, >, <) or ",", )-"
            R"-(found "b" at column 3)-");
}

}  // namespace
}  // namespace schedhost::k8s
