// Histogram: a fixed-bucket histogram for /metrics (Prometheus's cumulative
// `_bucket{le=...}` series are derived when rendering). Observing a value
// is a binary search over a few bounds and three additions: no allocation,
// so the event loop can record every command and every log flush.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace frontier {

// Latency bounds in nanoseconds: 5 us .. 10 s in 1-2.5-5 steps (about
// three per decade), the usual shape of Prometheus latency buckets.
inline constexpr std::array<uint64_t, 20> kLatencyBoundsNs = {
    5'000,       10'000,        25'000,        50'000,        100'000,
    250'000,     500'000,       1'000'000,     2'500'000,     5'000'000,
    10'000'000,  25'000'000,    50'000'000,    100'000'000,   250'000'000,
    500'000'000, 1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

// Count bounds (e.g. commits per log flush): powers of two, 1 .. 4096.
inline constexpr std::array<uint64_t, 13> kCountBounds = {
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};

class Histogram {
 public:
  static constexpr size_t kMaxBounds = 24;

  // `bounds` (increasing upper bounds, at most kMaxBounds) must outlive
  // the histogram; the constants above do.
  explicit Histogram(std::span<const uint64_t> bounds) : bounds_(bounds) {}

  void Observe(uint64_t value) {
    const size_t i = static_cast<size_t>(
        std::lower_bound(bounds_.begin(), bounds_.end(), value) -
        bounds_.begin());
    ++counts_[i];
    ++count_;
    sum_ += value;
  }
  void Reset() {
    counts_.fill(0);
    count_ = 0;
    sum_ = 0;
  }

  std::span<const uint64_t> bounds() const { return bounds_; }
  // Observations <= bounds()[i] and > bounds()[i - 1]; i == bounds().size()
  // is the overflow (+Inf) bucket.
  uint64_t bucket(size_t i) const { return counts_[i]; }
  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }

 private:
  std::span<const uint64_t> bounds_;
  std::array<uint64_t, kMaxBounds + 1> counts_{};
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
};

}  // namespace frontier
