// metav1.Time and metav1.MicroTime as Go prints them: UTC, truncated, never rounded.
#include "kube/micro_time.hpp"

#include <gtest/gtest.h>

#include "time_points.hpp"

namespace schedhost::testing {
namespace {

using kube::format_micro_time;
using kube::format_time;

TEST(MicroTime, TimeIsSecondsInUtcTruncated) {
  EXPECT_EQ(format_time(utc(2024, 1, 2, 3, 4, 5)), "2024-01-02T03:04:05Z");
  EXPECT_EQ(format_time(utc(2024, 1, 2, 3, 4, 5, 999'999'999)), "2024-01-02T03:04:05Z");
  EXPECT_EQ(format_time(utc(2024, 2, 29, 23, 59, 59)), "2024-02-29T23:59:59Z");
  EXPECT_EQ(format_time(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00Z");
}

TEST(MicroTime, MicroTimeHasSixFractionDigits) {
  EXPECT_EQ(format_micro_time(utc(2024, 1, 2, 3, 4, 5, 123'456'789)),
            "2024-01-02T03:04:05.123456Z");
  EXPECT_EQ(format_micro_time(utc(2024, 1, 2, 3, 4, 5)), "2024-01-02T03:04:05.000000Z");
  EXPECT_EQ(format_micro_time(utc(2024, 12, 31, 23, 59, 59, 999'999'999)),
            "2024-12-31T23:59:59.999999Z");
}

TEST(MicroTime, BeforeTheEpochTruncatesTowardThePast) {
  const auto t = std::chrono::system_clock::time_point{} - std::chrono::milliseconds(500);
  EXPECT_EQ(format_time(t), "1969-12-31T23:59:59Z");
  EXPECT_EQ(format_micro_time(t), "1969-12-31T23:59:59.500000Z");
}

}  // namespace
}  // namespace schedhost::testing
