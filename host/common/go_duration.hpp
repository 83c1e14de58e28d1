// Durations as Kubernetes configurations write them (Go's time.ParseDuration): "15s", "1m30s",
// "1.5s", "250ms", "2h". Units ns, us (or µs), ms, s, m, h; an optional sign; "0" alone.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace schedhost {

// nullopt when text is not a Go duration (a number without a unit, an unknown unit, empty).
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

}  // namespace schedhost
