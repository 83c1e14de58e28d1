// string_at: the informers' per-event reads of one string field, which must never throw.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/json_field.hpp"

namespace schedhost::cluster {
namespace {

TEST(StringAt, FindsTheStringOrGivesTheFallbackWithoutThrowing) {
  const nlohmann::json pod = nlohmann::json::parse(
      R"({"metadata":{"name":"p","uid":"u-1","labels":{"a":"b"}},"spec":{"priority":5,
          "nodeName":null,"schedulerName":"custom"},"status":[]})");
  EXPECT_EQ(string_at(pod, {"metadata", "uid"}), "u-1");
  EXPECT_EQ(string_at(pod, {"spec", "schedulerName"}, "default-scheduler"), "custom");
  EXPECT_EQ(string_at(pod, {"spec", "nodeName"}), "");  // null
  EXPECT_EQ(string_at(pod, {"spec", "missing"}, "fallback"), "fallback");
  EXPECT_EQ(string_at(pod, {"spec", "priority"}, "fallback"), "fallback");  // a number
  EXPECT_EQ(string_at(pod, {"metadata", "labels"}, "x"), "x");              // an object
  EXPECT_EQ(string_at(pod, {"status", "phase"}, "x"), "x");                 // through an array
  EXPECT_EQ(string_at(pod, {"metadata", "name", "deeper"}, "x"), "x");      // through a string
  EXPECT_EQ(string_at(nlohmann::json(), {"spec", "nodeName"}, "x"), "x");   // not an object
  EXPECT_EQ(string_at(nlohmann::json("text"), {}), "text");                 // no keys: itself
}

}  // namespace
}  // namespace schedhost::cluster
