// Picks the node with the highest total score; among equals, one at random with a seeded
// generator, by reservoir sampling as upstream does, so a run with the same seed reproduces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace schedhost::scheduler {

// The index of the chosen node in totals (which must not be empty).
std::size_t select_host(const std::vector<std::int64_t>& totals, std::mt19937_64& rng);

}  // namespace schedhost::scheduler
