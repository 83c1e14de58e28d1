// The extender's request splitting (cluster/json_spans) and answer writing
// (extender/extender_protocol): spans as written, one scan however deep a request is split, and
// answers that are the JSON a Go client decodes.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "cluster/json_spans.hpp"
#include "extender/extender_protocol.hpp"

namespace schedhost::json_spans_test {

using cluster::ContainerEnds;
using extender::FilterResult;

TEST(JsonSpans, MembersAndElementsAreTheTextAsWritten) {
  const auto members = cluster::object_members(R"( {"a": [1, {"b": "x]}"}], "c\"d" : null} )");
  ASSERT_TRUE(members);
  ASSERT_EQ(members->size(), 2u);
  EXPECT_EQ((*members)[0].first, "a");
  EXPECT_EQ((*members)[0].second, R"([1, {"b": "x]}"}])");
  EXPECT_EQ((*members)[1].first, R"(c\"d)");
  EXPECT_EQ((*members)[1].second, "null");
  const auto elements = cluster::array_elements((*members)[0].second);
  ASSERT_TRUE(elements);
  ASSERT_EQ(elements->size(), 2u);
  EXPECT_EQ((*elements)[1], R"({"b": "x]}"})");
  EXPECT_FALSE(cluster::object_members(R"({"a": [1, 2})"));
  EXPECT_FALSE(cluster::array_elements(R"([1 2])"));
  EXPECT_FALSE(cluster::object_members(R"({"a": "unterminated})"));
}

// Scanning the outer object records where the containers two levels below its members end, so
// splitting them again is a lookup: a request's Nodes, their items, and each node.
TEST(JsonSpans, ContainerEndsRecordTheLevelsARequestIsSplitAt) {
  const std::string body =
      R"({"Pod": {}, "Nodes": {"items": [{"metadata": {"name": "n1"}}, {"spec": [1]}]}})";
  ContainerEnds ends;
  const auto members = cluster::object_members(body, &ends);
  ASSERT_TRUE(members);
  const std::string_view nodes = (*members)[1].second;
  const std::string_view items = R"([{"metadata": {"name": "n1"}}, {"spec": [1]}])";
  const std::size_t at = body.find(items);
  ASSERT_NE(ends.find(nodes.data()), nullptr);
  EXPECT_EQ(ends.find(nodes.data()), nodes.data() + nodes.size());
  EXPECT_EQ(ends.find(body.data() + at), body.data() + at + items.size());
  const std::size_t node = body.find(R"({"metadata")");
  EXPECT_EQ(ends.find(body.data() + node), body.data() + body.find(R"(, {"spec")"));
  EXPECT_EQ(ends.find(body.data() + body.find(R"({"name")")), nullptr);  // three levels down
  // Splitting with the record gives what a fresh scan gives.
  const auto inner = cluster::object_members(nodes, &ends);
  ASSERT_TRUE(inner);
  const auto elements = cluster::array_elements((*inner)[0].second, &ends);
  ASSERT_TRUE(elements);
  EXPECT_EQ(*elements, *cluster::array_elements(items));
}

// A string's end, wherever its escapes fall: inside the first bytes read one by one, across the
// point where the scan turns to memchr, or after it; and no end for a string cut short anywhere.
TEST(JsonSpans, AStringEndsAtItsFirstUnescapedQuote) {
  for (std::size_t before = 0; before < 40; ++before) {
    for (const char* escape : {R"(\")", R"(\\)", R"(\n)", R"(\u0022)"}) {
      const std::string value = '"' + std::string(before, 'x') + escape + "y\"";
      const std::string text = value + ",1";
      EXPECT_EQ(cluster::value_end(text, 0), value.size()) << text;
      for (std::size_t cut = 1; cut < value.size(); ++cut) {
        EXPECT_EQ(cluster::value_end(text.substr(0, cut), 0), std::string_view::npos)
            << text.substr(0, cut);
      }
    }
  }
}

TEST(ExtenderAnswer, StringsAreEscapedAsJsonAndBadUtf8Replaced) {
  FilterResult r;
  r.node_names = std::vector<std::string>{"n1", "odd\"name"};
  r.failed_nodes = {{"n2", "line one\nline \\two"}, {"n3", std::string("bad \xff byte")}};
  r.failed_and_unresolvable_nodes = {{"n4", "plain reason"}};
  EXPECT_EQ(extender::to_json(r),
            R"({"Nodes":null,"NodeNames":["n1","odd\"name"],"FailedNodes":{"n2":"line one\nline )"
            R"(\\two","n3":"bad )"
            "\xef\xbf\xbd"
            R"( byte"},"FailedAndUnresolvableNodes":{"n4":"plain reason"},"Error":""})");
  EXPECT_EQ(extender::to_json(std::vector<extender::HostPriority>{{"a", 3}, {"b\tc", 10}}),
            R"([{"Host":"a","Score":3},{"Host":"b\tc","Score":10}])");
}

}  // namespace schedhost::json_spans_test
