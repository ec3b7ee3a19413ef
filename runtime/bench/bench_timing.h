// Timing helpers shared by the benchmarks: best-of-n or median-of-n wall
// time, since the machines these run on are shared and noisy.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <vector>

namespace torchalias::bench {

// Seconds per call of `body`, the best of `repeats` timings of `calls`
// calls each.
template <class Body>
double best_seconds(int repeats, long calls, Body &&body) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i)
      body();
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count() / calls);
  }
  return best;
}

// Seconds per call of `body`, the median of `repeats` timings of `calls`
// calls each: steadier than the best when the noise is another process.
template <class Body>
double median_seconds(int repeats, long calls, Body &&body) {
  std::vector<double> timings;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i)
      body();
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    timings.push_back(elapsed.count() / calls);
  }
  std::nth_element(timings.begin(), timings.begin() + repeats / 2,
                   timings.end());
  return timings[repeats / 2];
}

inline double gib_per_second(double bytes, double seconds) {
  return bytes / seconds / (1024.0 * 1024.0 * 1024.0);
}

} // namespace torchalias::bench
