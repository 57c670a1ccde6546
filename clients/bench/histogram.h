// A log-bucket latency histogram (HDR-like): 64 sub-buckets per power of two,
// so any recorded value is reported within 1.6%. Fixed size, no allocation
// per sample; one per thread and command, merged at the end.
#pragma once

#include <array>
#include <cstdint>

namespace bench {

class LatencyHistogram {
 public:
  void Record(uint64_t nanos);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  double MeanNanos() const {
    return count_ ? double(sum_) / double(count_) : 0;
  }
  // The value at quantile q (0..1), as the midpoint of its bucket; 0 if empty.
  uint64_t Quantile(double q) const;

 private:
  static constexpr int kSubBits = 6;
  static constexpr int kLinear = 2 << kSubBits;  // values below are exact
  static constexpr int kBuckets =
      kLinear + (64 - kSubBits - 1) * (1 << kSubBits);

  static int Index(uint64_t v);
  static uint64_t Midpoint(int index);

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  uint64_t sum_ = 0;
};

}  // namespace bench
