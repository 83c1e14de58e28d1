// WatchDecoder: a watch response cut into arbitrary chunks gives the same events as whole, in
// order, with their objects as parsed; a line that is not a watch event stops it, saying why.
#include "kube/watch_decoder.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace schedhost::testing {
namespace {

using nlohmann::json;

std::string pod_events() {
  std::ifstream in(SCHEDHOST_POD_EVENTS);
  std::string text;
  for (std::string line; std::getline(in, line);)
    text += line + "\n";
  return text;
}

struct Seen {
  std::vector<kube::WatchEventType> types;
  std::vector<json> objects;
  std::function<bool(kube::WatchEvent&&)> collect() {
    return [this](kube::WatchEvent&& e) {
      types.push_back(e.type);
      objects.push_back(std::move(e.object));
      return true;
    };
  }
};

TEST(WatchDecoder, ChunksOfAnySizeGiveTheSameEvents) {
  const std::string text = pod_events() + "\n" +
                           R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}})" +
                           "\n" + R"({"type":"DELETED","object":{"metadata":{"name":"p"}}})" + "\n";
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, text.size()}) {
    SCOPED_TRACE(chunk);
    kube::WatchDecoder decoder;
    Seen seen;
    for (std::size_t at = 0; at < text.size(); at += chunk)
      ASSERT_TRUE(decoder.feed(std::string_view(text).substr(at, chunk), seen.collect()));
    EXPECT_TRUE(decoder.idle());
    ASSERT_EQ(seen.types.size(), 4u);
    EXPECT_EQ(seen.types[0], kube::WatchEventType::Added);
    EXPECT_EQ(seen.types[1], kube::WatchEventType::Added);
    EXPECT_EQ(seen.types[2], kube::WatchEventType::Bookmark);
    EXPECT_EQ(seen.types[3], kube::WatchEventType::Deleted);
    EXPECT_EQ(seen.objects[0]["metadata"]["name"], "init-7");
    EXPECT_EQ(seen.objects[1]["spec"]["nodeName"], "node-289");
    EXPECT_EQ(seen.objects[1]["spec"]["containers"][0]["ports"][0]["containerPort"], 80);
    EXPECT_EQ(seen.objects[2]["metadata"]["resourceVersion"], "9");
  }
}

TEST(WatchDecoder, APartialLineWaitsForItsEnd) {
  kube::WatchDecoder decoder;
  Seen seen;
  ASSERT_TRUE(decoder.feed(R"({"type":"MODIFIED","obj)", seen.collect()));
  EXPECT_FALSE(decoder.idle());
  EXPECT_TRUE(seen.types.empty());
  ASSERT_TRUE(decoder.feed("ect\":{\"a\":1}}\n", seen.collect()));
  ASSERT_EQ(seen.types.size(), 1u);
  EXPECT_EQ(seen.types[0], kube::WatchEventType::Modified);
  EXPECT_EQ(seen.objects[0], json({{"a", 1}}));
}

TEST(WatchDecoder, ALineThatIsNoWatchEventStopsTheStream) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{not json}\n", "not a watch event: {not json}"},
      {R"({"type":"ADDED"})"
       "\n",
       R"(not a watch event: {"type":"ADDED"})"},
      {R"({"type":"ADDED","object":[1]})"
       "\n",
       R"(not a watch event: {"type":"ADDED","object":[1]})"},
      {R"({"type":"RENAMED","object":{}})"
       "\n",
       R"(unknown watch event type "RENAMED")"},
  };
  for (const auto& [line, error] : bad) {
    kube::WatchDecoder decoder;
    Seen seen;
    EXPECT_FALSE(decoder.feed(line, seen.collect())) << line;
    EXPECT_EQ(decoder.error(), error);
    EXPECT_TRUE(seen.types.empty());
  }
}

TEST(WatchDecoder, AnErrorEventCarriesItsStatus) {
  kube::WatchDecoder decoder;
  Seen seen;
  ASSERT_TRUE(
      decoder.feed(R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})"
                   "\n",
                   seen.collect()));
  ASSERT_EQ(seen.types.size(), 1u);
  EXPECT_EQ(seen.types[0], kube::WatchEventType::Error);
  EXPECT_EQ(seen.objects[0]["code"], 410);
}

}  // namespace
}  // namespace schedhost::testing
