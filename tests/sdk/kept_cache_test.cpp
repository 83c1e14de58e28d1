// KeptCache (schedhost/kept_cache.hpp): what the default plugins keep between pods.
#include <gtest/gtest.h>
#include <schedhost/kept_cache.hpp>

#include <memory>

namespace schedhost {
namespace {

TEST(KeptCache, FindsAValueByItsSignatureOnItsSnapshotOnly) {
  KeptCache<int> cache;
  cache.keep("zone|app=web", 7, std::make_shared<int>(3));
  ASSERT_NE(cache.find("zone|app=web", 7), nullptr);
  EXPECT_EQ(*cache.find("zone|app=web", 7), 3);
  EXPECT_EQ(cache.find("zone|app=web", 8), nullptr);  // another snapshot: stale
  EXPECT_EQ(cache.find("zone|app=db", 7), nullptr);
}

TEST(KeptCache, KeepsNothingForAHostWithoutAJournal) {
  KeptCache<int> cache;
  cache.keep("s", 0, std::make_shared<int>(1));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.find("s", 0), nullptr);
}

TEST(KeptCache, ASignatureKeptAgainReplacesTheOldValue) {
  KeptCache<int> cache;
  cache.keep("s", 1, std::make_shared<int>(1));
  cache.keep("s", 2, std::make_shared<int>(2));  // the snapshot changed: recounted
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find("s", 1), nullptr);
  EXPECT_EQ(*cache.find("s", 2), 2);
}

TEST(KeptCache, DropsTheLeastRecentlyUsedPastItsCapacity) {
  KeptCache<int> cache(2);
  cache.keep("a", 1, std::make_shared<int>(1));
  cache.keep("b", 1, std::make_shared<int>(2));
  ASSERT_NE(cache.find("a", 1), nullptr);  // "b" is now the least recently used
  cache.keep("c", 1, std::make_shared<int>(3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.find("a", 1), nullptr);
  EXPECT_EQ(cache.find("b", 1), nullptr);
  EXPECT_NE(cache.find("c", 1), nullptr);
}

}  // namespace
}  // namespace schedhost
