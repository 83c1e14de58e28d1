#include "cluster/quantity.hpp"

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

namespace schedhost::cluster {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr const char* kOutOfRange =
    "out of range: the largest quantity is 9223372036854775807 (2^63-1) units";

struct ValidCase {
  const char* text;
  int64_t milli;
  int64_t value;
};

void PrintTo(const ValidCase& c, std::ostream* os) {
  *os << '"' << c.text << '"';
}

class QuantityValidTest : public ::testing::TestWithParam<ValidCase> {};

TEST_P(QuantityValidTest, ParsesExactly) {
  const ValidCase& c = GetParam();
  std::string error;
  std::optional<Quantity> q = parse_quantity(c.text, &error);
  ASSERT_TRUE(q.has_value()) << c.text << ": " << error;
  EXPECT_EQ(q->milli_value(), c.milli) << c.text;
  EXPECT_EQ(q->value(), c.value) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityValidTest,
    ::testing::Values(
        // plain numbers and fractions
        ValidCase{"0", 0, 0}, ValidCase{"1", 1000, 1}, ValidCase{"+2", 2000, 2},
        ValidCase{"00012", 12000, 12}, ValidCase{"0.1", 100, 1}, ValidCase{"0.5", 500, 1},
        ValidCase{".5", 500, 1}, ValidCase{"1.", 1000, 1}, ValidCase{"1.25", 1250, 2},
        ValidCase{"1.0000000001", 1001, 2},
        // decimal SI suffixes
        ValidCase{"100m", 100, 1}, ValidCase{"1500m", 1500, 2}, ValidCase{"0.1m", 1, 1},
        ValidCase{"1u", 1, 1}, ValidCase{"999u", 1, 1}, ValidCase{"1001u", 2, 1},
        ValidCase{"1n", 1, 1}, ValidCase{"1k", 1000000, 1000}, ValidCase{"1M", 1000000000, 1000000},
        ValidCase{"1G", 1000000000000, 1000000000},
        ValidCase{"1T", 1000000000000000, 1000000000000},
        ValidCase{"1P", 1000000000000000000, 1000000000000000},
        ValidCase{"1E", kMax, 1000000000000000000},
        // binary SI suffixes
        ValidCase{"1Ki", 1024000, 1024}, ValidCase{"0.5Ki", 512000, 512},
        ValidCase{"1Mi", 1048576000, 1048576}, ValidCase{"200Mi", 209715200000, 209715200},
        ValidCase{"1.5Gi", 1610612736000, 1610612736},
        ValidCase{"1Ti", 1099511627776000, 1099511627776},
        ValidCase{"1Pi", 1125899906842624000, 1125899906842624},
        ValidCase{"1Ei", kMax, 1152921504606846976}, ValidCase{"0.001Ki", 1024, 2},
        // decimal exponents
        ValidCase{"1e3", 1000000, 1000}, ValidCase{"1E3", 1000000, 1000},
        ValidCase{"2E6", 2000000000, 2000000}, ValidCase{"1e+3", 1000000, 1000},
        ValidCase{"1.5e3", 1500000, 1500}, ValidCase{"12e-3", 12, 1}, ValidCase{"1e-3", 1, 1},
        ValidCase{"1e-10", 1, 1}, ValidCase{"1e-2147483648", 1, 1}, ValidCase{"0e99999", 0, 0},
        ValidCase{"0.000Gi", 0, 0},
        // signs: rounding goes away from zero, as upstream's int64 path
        ValidCase{"-1", -1000, -1}, ValidCase{"-100m", -100, -1}, ValidCase{"-1.5", -1500, -2},
        ValidCase{"-0", 0, 0},
        // the int64 edges (milli saturates; larger values are refused, see InvalidCase)
        ValidCase{"9223372036854775.807", kMax, 9223372036854776},
        ValidCase{"9223372036854775.808", kMax, 9223372036854776},
        ValidCase{"9223372036854775807", kMax, kMax},
        ValidCase{"-9223372036854775807", -kMax, -kMax}));

struct InvalidCase {
  const char* text;
  const char* error;
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << '"' << c.text << '"';
}

class QuantityInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(QuantityInvalidTest, IsRefusedWithAReason) {
  const InvalidCase& c = GetParam();
  std::string error;
  EXPECT_FALSE(parse_quantity(c.text, &error).has_value()) << c.text;
  EXPECT_EQ(error, c.error) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityInvalidTest,
    ::testing::Values(
        InvalidCase{"", "empty string"}, InvalidCase{"1.2.3", R"(unknown suffix ".3")"},
        InvalidCase{"5x", R"(unknown suffix "x")"}, InvalidCase{"--1", "no digits"},
        InvalidCase{"1e", R"(unknown suffix "e")"}, InvalidCase{" 1", "no digits"},
        InvalidCase{"1 ", R"(unknown suffix " ")"}, InvalidCase{"1 Gi", R"(unknown suffix " Gi")"},
        InvalidCase{"1\t", "unknown suffix \"\t\""}, InvalidCase{".", "no digits"},
        InvalidCase{"-", "no digits"}, InvalidCase{"+", "no digits"}, InvalidCase{"K", "no digits"},
        InvalidCase{"abc", "no digits"}, InvalidCase{"1K", R"(unknown suffix "K")"},
        InvalidCase{"1KB", R"(unknown suffix "KB")"}, InvalidCase{"1gi", R"(unknown suffix "gi")"},
        InvalidCase{"1ki", R"(unknown suffix "ki")"},
        InvalidCase{"1e3m", R"(unknown suffix "e3m")"},
        InvalidCase{"1Gi5", R"(unknown suffix "Gi5")"},
        InvalidCase{"1e+", R"(unknown suffix "e+")"},
        InvalidCase{"1e+-3", R"(unknown suffix "e+-3")"},
        InvalidCase{"1e2147483648", R"(exponent "2147483648" out of range: the largest )"
                                    R"(quantity is 9223372036854775807 (2^63-1) units)"},
        InvalidCase{"9223372036854775808", kOutOfRange}, InvalidCase{"8Ei", kOutOfRange},
        InvalidCase{"1e30", kOutOfRange}, InvalidCase{"1e2147483647", kOutOfRange},
        InvalidCase{"12345678901234567890123456789", kOutOfRange},
        InvalidCase{"99999999999999999999999999999999999Ei", kOutOfRange},
        InvalidCase{"-1e30", kOutOfRange},
        InvalidCase{"9223372036854775807.000000001", kOutOfRange},
        InvalidCase{"0x10", R"(unknown suffix "x10")"},
        InvalidCase{"1,5", R"(unknown suffix ",5")"},
        InvalidCase{"1.5.", R"(unknown suffix ".")"}));

TEST(QuantityTest, WithoutErrorOutputStillRefuses) {
  EXPECT_FALSE(parse_quantity("1.2.3").has_value());
}

TEST(QuantityTest, TooManyDigitsIsRefused) {
  std::string error;
  EXPECT_FALSE(parse_quantity("0." + std::string(1001, '1'), &error).has_value());
  EXPECT_EQ(error, "more than 1000 significant digits");
  // Zeros are not significant: a long run of them is fine.
  std::optional<Quantity> padded = parse_quantity("1" + std::string(2000, '0') + "e-2000");
  ASSERT_TRUE(padded.has_value());
  EXPECT_EQ(padded->value(), 1);
}

TEST(QuantityTest, KeepsNanoPrecision) {
  EXPECT_EQ(parse_quantity("1n")->nano(), 1);
  EXPECT_EQ(parse_quantity("1.5n")->nano(), 2);  // rounded up to 1n
  EXPECT_EQ(parse_quantity("0.5")->nano(), 500000000);
  EXPECT_EQ(parse_quantity("1Ki")->nano(), static_cast<Int128>(1024) * 1000000000);
  EXPECT_EQ(parse_quantity("-1.5n")->nano(), -2);
}

TEST(QuantityTest, SumsExactlyAndSaturates) {
  Quantity half = *parse_quantity("500m");
  EXPECT_EQ((half + half).value(), 1);  // rounding each first would give 2
  Quantity huge = *parse_quantity("7Ei") + *parse_quantity("1Ei");
  EXPECT_EQ((huge + huge).nano(), Quantity::kMaxNano);
  EXPECT_EQ((huge + huge).value(), kMax);
  Quantity negative_huge = *parse_quantity("-7Ei") + *parse_quantity("-1Ei");
  EXPECT_EQ((negative_huge + negative_huge).nano(), -Quantity::kMaxNano);
  EXPECT_EQ((huge + negative_huge).value(), 0);
}

TEST(QuantityTest, FactoriesAndComparison) {
  EXPECT_EQ(Quantity::from_milli(1500).value(), 2);
  EXPECT_EQ(Quantity::from_units(3).milli_value(), 3000);
  EXPECT_EQ(Quantity::from_nano(Quantity::kMaxNano + 1).nano(), Quantity::kMaxNano);
  EXPECT_EQ(Quantity::from_nano(-Quantity::kMaxNano - 1).nano(), -Quantity::kMaxNano);
  EXPECT_LT(*parse_quantity("999m"), *parse_quantity("1"));
  EXPECT_EQ(*parse_quantity("1000m"), *parse_quantity("1"));
  EXPECT_TRUE(Quantity().is_zero());
  EXPECT_TRUE(parse_quantity("-1m")->is_negative());
}

}  // namespace
}  // namespace schedhost::cluster
