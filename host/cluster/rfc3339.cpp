#include "cluster/rfc3339.hpp"

namespace schedhost::cluster {
namespace {

// Reads exactly `width` digits at text[pos...].
std::optional<int> digits(std::string_view text, size_t pos, size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool is_leap(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

}  // namespace

std::optional<int64_t> parse_rfc3339_ms(std::string_view text) {
  auto year = digits(text, 0, 4);
  auto month = digits(text, 5, 2);
  auto day = digits(text, 8, 2);
  auto hour = digits(text, 11, 2);
  auto minute = digits(text, 14, 2);
  auto second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month) || *hour > 23 ||
      *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    size_t begin = ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (pos - begin < 3) millis = millis * 10 + (text[pos] - '0');
      ++pos;
    }
    if (pos == begin) return std::nullopt;
    for (size_t n = pos - begin; n < 3; ++n)
      millis *= 10;
  }
  int64_t offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    auto offset_hour = digits(text, pos + 1, 2);
    auto offset_minute = digits(text, pos + 4, 2);
    if (!offset_hour || !offset_minute || text[pos + 3] != ':' || *offset_hour > 23 ||
        *offset_minute > 59) {
      return std::nullopt;
    }
    offset_minutes = (int64_t{*offset_hour} * 60 + *offset_minute) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;

  const int64_t seconds = days_from_civil(*year, *month, *day) * 86400 + int64_t{*hour} * 3600 +
                          int64_t{*minute} * 60 + *second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

}  // namespace schedhost::cluster
