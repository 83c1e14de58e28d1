// RFC 3339 timestamps ("2024-01-02T03:04:05Z"), as Kubernetes prints metav1.Time.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace schedhost::cluster {

// Unix milliseconds for "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" ('t' and 'z' accepted
// too, as RFC 3339 allows). Fractions finer than a millisecond are truncated toward the past.
// nullopt for anything else, including out-of-range fields such as month 13 or second 60.
std::optional<int64_t> parse_rfc3339_ms(std::string_view text);

}  // namespace schedhost::cluster
