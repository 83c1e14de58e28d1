#include "cluster/resource_list.hpp"

#include <limits>

#include <gtest/gtest.h>

#include "cluster/string_map.hpp"

namespace schedhost::cluster {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(ResourceListTest, KeepsNamesInByteOrder) {
  ResourceList list;
  list.set("memory", 1);
  list.set("cpu", 2);
  list.set("nvidia.com/gpu", 3);
  list.set("Zeta", 4);  // upper case sorts first in byte order
  list.set("ephemeral-storage", 5);
  ASSERT_EQ(list.size(), 5u);
  EXPECT_EQ(list.at(0), (ResourceList::Entry{"Zeta", 4}));
  EXPECT_EQ(list.at(1), (ResourceList::Entry{"cpu", 2}));
  EXPECT_EQ(list.at(2), (ResourceList::Entry{"ephemeral-storage", 5}));
  EXPECT_EQ(list.at(3), (ResourceList::Entry{"memory", 1}));
  EXPECT_EQ(list.at(4), (ResourceList::Entry{"nvidia.com/gpu", 3}));
  std::vector<std::string> names;
  for (const auto& entry : list)
    names.push_back(entry.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Zeta", "cpu", "ephemeral-storage", "memory",
                                             "nvidia.com/gpu"}));
}

TEST(ResourceListTest, GetSetAddErase) {
  ResourceList list{{"cpu", 100}};
  EXPECT_EQ(list.get("cpu"), 100);
  EXPECT_EQ(list.get("memory"), std::nullopt);
  EXPECT_EQ(list.get_or_zero("memory"), 0);
  EXPECT_FALSE(list.contains("memory"));
  list.set("cpu", 250);
  EXPECT_EQ(list.get("cpu"), 250);
  EXPECT_TRUE(list.add("cpu", 50));
  EXPECT_TRUE(list.add("memory", 7));
  EXPECT_EQ(list, (ResourceList{{"cpu", 300}, {"memory", 7}}));
  EXPECT_TRUE(list.erase("cpu"));
  EXPECT_FALSE(list.erase("cpu"));
  EXPECT_EQ(list, (ResourceList{{"memory", 7}}));
}

TEST(ResourceListTest, AddAndSubtractLists) {
  ResourceList a{{"cpu", 100}, {"memory", 10}};
  ResourceList b{{"cpu", 100}, {"example.com/foo", 1}};
  EXPECT_TRUE(a.add(b));
  EXPECT_EQ(a, (ResourceList{{"cpu", 200}, {"example.com/foo", 1}, {"memory", 10}}));
  EXPECT_TRUE(a.subtract(b));
  EXPECT_EQ(a, (ResourceList{{"cpu", 100}, {"example.com/foo", 0}, {"memory", 10}}));
  a.erase_zeros();
  EXPECT_EQ(a, (ResourceList{{"cpu", 100}, {"memory", 10}}));
}

TEST(ResourceListTest, SaturatesInsteadOfOverflowing) {
  ResourceList list{{"memory", kInt64Max - 1}};
  EXPECT_FALSE(list.add("memory", 5));
  EXPECT_EQ(list.get("memory"), kInt64Max);
  list.set("cpu", kMin + 1);
  EXPECT_FALSE(list.add("cpu", -5));
  EXPECT_EQ(list.get("cpu"), kMin);
  ResourceList minimum{{"x", kMin}};
  ResourceList zero{{"x", -5}};
  EXPECT_TRUE(zero.subtract(minimum));  // -5 - INT64_MIN fits
  EXPECT_EQ(zero.get("x"), kInt64Max - 4);
  EXPECT_EQ(saturating_add(kInt64Max, 1), kInt64Max);
  EXPECT_EQ(saturating_add(kMin, -1), kMin);
  bool saturated = true;
  EXPECT_EQ(saturating_add(2, 3, &saturated), 5);
  EXPECT_FALSE(saturated);
}

TEST(ResourceListTest, AmountUnitsFollowTheAbi) {
  Quantity q = *parse_quantity("1500m");
  EXPECT_EQ(resource_amount("cpu", q), 1500);
  EXPECT_EQ(resource_amount("memory", q), 2);
  EXPECT_EQ(resource_amount("nvidia.com/gpu", *parse_quantity("2")), 2);
  EXPECT_EQ(resource_amount("hugepages-2Mi", *parse_quantity("1Gi")), 1073741824);
}

TEST(StringMapTest, SortedLookupAndLastValueWins) {
  StringMap map({{"zone", "a"}, {"app", "web"}, {"App", "x"}, {"zone", "b"}});
  ASSERT_EQ(map.size(), 3u);
  EXPECT_EQ(map.at(0), (StringMap::Entry{"App", "x"}));
  EXPECT_EQ(map.at(1), (StringMap::Entry{"app", "web"}));
  EXPECT_EQ(map.at(2), (StringMap::Entry{"zone", "b"}));
  ASSERT_NE(map.find("app"), nullptr);
  EXPECT_EQ(*map.find("app"), "web");
  EXPECT_EQ(map.find("missing"), nullptr);
  EXPECT_TRUE(map.contains("zone"));
  EXPECT_TRUE(StringMap().empty());
}

}  // namespace
}  // namespace schedhost::cluster
