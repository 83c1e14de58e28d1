#include "kube/micro_time.hpp"

#include <cstdio>

namespace schedhost::kube {
namespace {

using std::chrono::floor;

// "YYYY-MM-DDTHH:MM:SS" of the second t falls in (floor, so times before 1970 work too).
std::string seconds_part(std::chrono::system_clock::time_point t) {
  const auto day = floor<std::chrono::days>(t);
  const std::chrono::year_month_day date{day};
  const std::chrono::hh_mm_ss clock{floor<std::chrono::seconds>(t - day)};
  char out[32];
  std::snprintf(out, sizeof out, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()));
  return out;
}

}  // namespace

std::string format_time(std::chrono::system_clock::time_point t) {
  return seconds_part(t) + "Z";
}

std::string format_micro_time(std::chrono::system_clock::time_point t) {
  const auto micros = floor<std::chrono::microseconds>(t);
  const auto fraction = micros - floor<std::chrono::seconds>(micros);
  char digits[24];
  std::snprintf(digits, sizeof digits, ".%06lld", static_cast<long long>(fraction.count()));
  return seconds_part(t) + digits + "Z";
}

}  // namespace schedhost::kube
