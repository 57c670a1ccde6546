#include "histogram.h"

#include <bit>
#include <cmath>

namespace bench {

int LatencyHistogram::Index(uint64_t v) {
  if (v < static_cast<uint64_t>(kLinear)) return static_cast<int>(v);
  int exponent = 63 - std::countl_zero(v);  // >= kSubBits + 1
  int shift = exponent - kSubBits;
  int mantissa = static_cast<int>(v >> shift);  // in [64, 128)
  return kLinear + (exponent - kSubBits - 1) * (1 << kSubBits) +
         (mantissa - (1 << kSubBits));
}

uint64_t LatencyHistogram::Midpoint(int index) {
  if (index < kLinear) return static_cast<uint64_t>(index);
  int rel = index - kLinear;
  int exponent = rel / (1 << kSubBits) + kSubBits + 1;
  int shift = exponent - kSubBits;
  uint64_t mantissa =
      static_cast<uint64_t>(rel % (1 << kSubBits) + (1 << kSubBits));
  uint64_t low = mantissa << shift;
  return low + ((uint64_t{1} << shift) >> 1);
}

void LatencyHistogram::Record(uint64_t nanos) {
  ++counts_[static_cast<size_t>(Index(nanos))];
  ++count_;
  sum_ += nanos;
  if (nanos > max_) max_ = nanos;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  if (other.max_ > max_) max_ = other.max_;
}

uint64_t LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  // Rank of the sample at quantile q, 1-based, as in nearest-rank percentiles.
  uint64_t rank =
      static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  if (rank < 1) rank = 1;
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      uint64_t mid = Midpoint(static_cast<int>(i));
      return mid < max_ ? mid : max_;
    }
  }
  return max_;
}

}  // namespace bench
