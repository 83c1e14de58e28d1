#include "cluster/yaml_json_reader.hpp"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/input_limits.hpp"
#include "support/yaml_agreement.hpp"

namespace schedhost::cluster {
namespace {

std::vector<YamlJsonDocument> read(const std::string& text) {
  std::optional<std::vector<YamlJsonDocument>> documents = read_yaml_as_json(text);
  EXPECT_TRUE(documents.has_value()) << text;
  return documents ? std::move(*documents) : std::vector<YamlJsonDocument>{};
}

std::string marks(const YamlJsonDocument& document) {
  std::map<std::string, std::string> sorted;
  for (const auto& [pointer, mark] : document.object_marks)
    sorted[pointer] = std::to_string(mark.line) + ":" + std::to_string(mark.column);
  std::string out;
  for (const auto& [pointer, mark] : sorted)
    out += "[" + pointer + "]=" + mark + " ";
  return out;
}

TEST(YamlJsonReaderTest, ReadsDocumentsAsYamlToJsonWould) {
  std::vector<YamlJsonDocument> documents = read(
      "kind: Pod\nmetadata:\n  name: web\n  labels: {app: web, tier: \"1\"}\nspec:\n"
      "  priority: 10\n  containers:\n  - name: c\n    resources: {requests: {cpu: 100m}}\n"
      "---\n---\n~\n---\n'quoted'\n");
  ASSERT_EQ(documents.size(), 4u);
  EXPECT_EQ(documents[0].value.dump(),
            R"({"kind":"Pod","metadata":{"labels":{"app":"web","tier":"1"},"name":"web"},)"
            R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}],)"
            R"("priority":10}})");
  EXPECT_TRUE(documents[1].value.is_null());  // empty: skipped by the caller
  EXPECT_TRUE(documents[2].value.is_null());  // a plain ~: skipped too
  EXPECT_EQ(documents[3].value, "quoted");
}

TEST(YamlJsonReaderTest, ScalarsResolveAsTheYamlCppPathResolvesThem) {
  std::vector<YamlJsonDocument> documents = read(
      "int: 42\nbig: 18446744073709551615\nhuge: 123456789012345678901234567890\nhex: 0x1F\n"
      "float: 1.5\nbool: True\nnull: ~\nyes: yes\ninf: .inf\nquoted: \"42\"\nsingle: 'true'\n"
      "str: !!str 7\nint_tag: !!int \"7\"\nbare: ! 8\ncustom: !thing false\nblock: |\n  line\n"
      "empty:\n");
  ASSERT_EQ(documents.size(), 1u);
  EXPECT_EQ(documents[0].value.dump(),
            R"({"":null,"bare":"8","big":18446744073709551615,"block":"line\n","bool":true,)"
            R"("custom":false,"empty":null,"float":1.5,"hex":31,)"
            R"("huge":1.2345678901234568e+29,"inf":".inf","int":42,"int_tag":7,)"
            R"("quoted":"42","single":"true","str":"7","yes":"yes"})");
}

TEST(YamlJsonReaderTest, ExpandsAliases) {
  std::vector<YamlJsonDocument> documents =
      read("a: &x [1, {b: c}]\nb: *x\nc: &y 1\nc2: &y 2\nd: *y\n");
  ASSERT_EQ(documents.size(), 1u);
  EXPECT_EQ(documents[0].value.dump(),
            R"({"a":[1,{"b":"c"}],"b":[1,{"b":"c"}],"c":1,"c2":2,"d":2})");
}

TEST(YamlJsonReaderTest, RecordsWhereObjectsStart) {
  std::vector<YamlJsonDocument> documents = read(
      "kind: List\nitems:\n- kind: Pod\n  metadata: {name: a}\n-\n  kind: List\n  items:\n"
      "  - kind: Node\n- {kind: X}\n- &anchored\n  kind: Y\n- !tagged\n  kind: Z\n"
      "spec:\n  items:\n  - not: an object\n---\n  indented: root\n");
  ASSERT_EQ(documents.size(), 2u);
  // Only the root, "items" of an object, and their items again; anchored or tagged mappings are
  // left to yaml-cpp's positions.
  EXPECT_EQ(marks(documents[0]),
            "[]=0:0 [/items/0]=2:2 [/items/1]=5:2 [/items/1/items/0]=7:4 "
            "[/items/2]=8:2 ");
  EXPECT_EQ(marks(documents[1]), "[]=17:2 ");
}

TEST(YamlJsonReaderTest, ColumnsCountBytesAsYamlCppDoes) {
  // libyaml counts characters (the second item is at character 21), yaml-cpp's marks, and so
  // every message, count bytes ("\xC3\xA9" is one character).
  const std::string text = "kind: List\nitems: [{name: \xC3\xA9t\xC3\xA9}, {name: b}]\n";
  std::vector<YamlJsonDocument> documents = read(text);
  ASSERT_EQ(documents.size(), 1u);
  EXPECT_EQ(marks(documents[0]), "[]=0:0 [/items/0]=1:8 [/items/1]=1:23 ");
  EXPECT_EQ(testing::compare_readers(text).difference, "");
}

TEST(YamlJsonReaderTest, ByteOrderMarkAndCrLf) {
  std::vector<YamlJsonDocument> documents =
      read("\xEF\xBB\xBFkind: List\r\nitems:\r\n- name: a\r\n  text: \"x\r\n    y\"\r\n");
  ASSERT_EQ(documents.size(), 1u);
  EXPECT_EQ(documents[0].value.dump(), R"({"items":[{"name":"a","text":"x y"}],"kind":"List"})");
  EXPECT_EQ(marks(documents[0]), "[]=0:0 [/items/0]=2:2 ");
}

// Texts the reader leaves to yaml-cpp, each for the reason its comment gives.
TEST(YamlJsonReaderTest, StepsAsideWhereYamlCppCouldDiffer) {
  const std::vector<std::string> texts = {
      "a: [1, 2\n",                       // a syntax error: yaml-cpp words it
      ",",                                // the stray comma yaml-cpp loops on
      "a: 1\na: 2\n",                     // a duplicate key
      "? [a, b]\n: c\n",                  // a key that is not a scalar
      "a: &x b\n*x : c\n",                // an alias as a key
      "a: &x\n  b: *x\n",                 // an alias into its own anchor
      "b: *missing\n",                    // an undefined alias
      "a: >\n  folded\n",                 // folded: yaml-cpp keeps other trailing lines
      "a: |2\n   x\n",                    // an explicit indentation indicator
      "a: plain\n  continued\n",          // a plain scalar over two lines
      "a: b\rc: d\n",                     // a lone CR breaks lines for libyaml only
      "a: x\n\t\nb: 1\n",                 // a tab starting a line
      "a: x\xC2\x85y\n",                  // and so does NEL
      "a: \"x\\Ny\"\n",                   // yaml-cpp writes \N as Latin-1
      "a: 1\n...\n",                      // a document end marker
      "a: 1\n\xEF\xBB\xBF\n",             // a byte order mark after the start
      "\xEF\xBB\xBF?",                    // an explicit key (after a byte order mark)
      "-\n|\n",                           // a literal scalar starting its own line
      "- !!str |\n  a\n",                 // a literal scalar with properties
      "\xFF\xFE",                         // UTF-16
      "%YAML 1.1\n---\na: 1\n",           // a directive
      "a: !!%73tr 1\n",                   // an escaped tag
      "a: !<tag:yaml.org,2002:str> 1\n",  // a verbatim tag
      "a: !a.b 1\n",                      // a tag with a character outside [A-Za-z0-9_-]
      "a: &x\n",                          // an empty node with an anchor
      "{a, b: 1}\n",                      // a flow mapping entry without a value
      "{a&b: 1}\n",                       // a flow plain scalar with '&'
      "a: &a:b c\n",                      // an anchor yaml-cpp reads longer
      "! 1\n---\n!t null\n",              // a tagged root read as null
      "a: \"\\xFF\xFF\"\n",               // invalid UTF-8
      "a: 1\x01\n",                       // a control character
  };
  for (const std::string& text : texts)
    EXPECT_FALSE(read_yaml_as_json(text).has_value()) << text;
}

TEST(YamlJsonReaderTest, StepsAsideBeforeTheLimitsTheYamlCppPathEnforces) {
  const auto nested = [](int levels) {
    return std::string(levels, '[') + "1" + std::string(levels, ']');
  };
  // 128 sequences put the scalar at depth 128, the deepest allowed; one more is refused.
  EXPECT_TRUE(read_yaml_as_json(nested(kMaxNestingDepth)).has_value());
  EXPECT_FALSE(read_yaml_as_json(nested(kMaxNestingDepth + 1)).has_value());
  // An alias is as deep as where it is placed plus what its anchor holds.
  const std::string anchored = "a: &x " + nested(kMaxNestingDepth - 2) + "\n";
  EXPECT_TRUE(read_yaml_as_json(anchored + "b: [*x]\n").has_value());
  EXPECT_FALSE(read_yaml_as_json(anchored + "b: [[*x]]\n").has_value());

  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char name = 'b'; name <= 'h'; ++name) {
    std::string previous(1, static_cast<char>(name - 1));
    laughs += std::string(1, name) + ": &" + std::string(1, name) + " [";
    for (int i = 0; i < 10; ++i)
      laughs += (i > 0 ? ", *" : "*") + previous;
    laughs += "]\n";
  }
  EXPECT_FALSE(read_yaml_as_json(laughs).has_value());

  EXPECT_FALSE(read_yaml_as_json(std::string(kMaxYamlTextBytes + 1, '#')).has_value());
}

}  // namespace
}  // namespace schedhost::cluster
