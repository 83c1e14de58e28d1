#include "cluster/yaml_to_json.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

nlohmann::json convert(const std::string& text) {
  return yaml_to_json(YAML::Load(text), "f.yaml");
}

TEST(YamlToJsonTest, PlainScalarsFollowTheCoreSchema) {
  nlohmann::json j = convert(R"(
int: 42
negative: -7
plus: +3
big: 18446744073709551615
huge: 123456789012345678901234567890
hex: 0x1F
octal: 0o17
float: 1.5
exp: 1e3
dot: .5
bool: true
Bool: False
null1: ~
null2: null
null3:
yes: yes
on: on
inf: .inf
version: 1.2.3
quantity: 500m
)");
  EXPECT_EQ(j["int"], nlohmann::json(42));
  EXPECT_TRUE(j["int"].is_number_integer());
  EXPECT_EQ(j["negative"], nlohmann::json(-7));
  EXPECT_EQ(j["plus"], nlohmann::json(3));
  EXPECT_TRUE(j["big"].is_number_unsigned());
  EXPECT_EQ(j["big"].get<uint64_t>(), 18446744073709551615ULL);
  EXPECT_TRUE(j["huge"].is_number_float());
  EXPECT_EQ(j["hex"], nlohmann::json(31));
  EXPECT_EQ(j["octal"], nlohmann::json(15));
  EXPECT_EQ(j["float"].dump(), "1.5");
  EXPECT_EQ(j["exp"].dump(), "1000.0");
  EXPECT_EQ(j["dot"].dump(), "0.5");
  EXPECT_EQ(j["bool"], nlohmann::json(true));
  EXPECT_EQ(j["Bool"], nlohmann::json(false));
  EXPECT_TRUE(j["null1"].is_null());
  EXPECT_TRUE(j["null2"].is_null());
  EXPECT_TRUE(j["null3"].is_null());
  EXPECT_EQ(j["yes"], "yes");
  EXPECT_EQ(j["on"], "on");
  EXPECT_EQ(j["inf"], ".inf");
  EXPECT_EQ(j["version"], "1.2.3");
  EXPECT_EQ(j["quantity"], "500m");
}

TEST(YamlToJsonTest, QuotedBlockAndTaggedScalarsStayStrings) {
  nlohmann::json j = convert(R"(
double: "42"
single: 'true'
tagged: !!str 7
nullstr: "null"
block: |
  line
)");
  EXPECT_EQ(j["double"], "42");
  EXPECT_EQ(j["single"], "true");
  EXPECT_EQ(j["tagged"], "7");
  EXPECT_EQ(j["nullstr"], "null");
  EXPECT_EQ(j["block"], "line\n");
}

TEST(YamlToJsonTest, StructureAndKeys) {
  nlohmann::json j = convert("a: [1, {b: c}]\n1: one\n? ''\n: empty\n");
  EXPECT_EQ(j.dump(), R"({"":"empty","1":"one","a":[1,{"b":"c"}]})");
}

TEST(YamlToJsonTest, RefusesComplexKeys) {
  try {
    convert("? [a, b]\n: v\n");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "f.yaml:1:3: a mapping key must be a plain string: write the key as text");
  }
}

}  // namespace
}  // namespace schedhost::cluster
