// The synthetic web the workloads draw URLs from: numbered sites whose sizes
// follow a power law (Zipf), pages numbered per site, and URLs spelled so
// that the server's normalisation leaves them unchanged and the site can be
// read back from a popped URL.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

// SplitMix64: tiny, fast, and good enough for load generation.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n); n > 0.
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t state_;
};

class SyntheticWeb {
 public:
  // tag is written into every path so that runs of different workloads or
  // seeds never share a URL. zipf is the exponent s of P(site rank k) ~ 1/k^s.
  SyntheticWeb(uint32_t sites, double zipf, std::string tag);

  uint32_t sites() const { return sites_; }
  // A site drawn by the power law (site 0 is the largest).
  uint32_t ZipfSite(Rng& rng) const;
  // Allocates the next page number of site; safe from any thread.
  uint32_t NewPage(uint32_t site) {
    return pages_[site].fetch_add(1, std::memory_order_relaxed);
  }
  // An already allocated page of site, low numbers favoured (in-links follow
  // a power law: density ~ x^(-2/3)); false if site has no page yet.
  bool KnownPage(uint32_t site, Rng& rng, uint32_t* page) const;
  // Pages allocated so far over all sites (read after the threads joined).
  uint64_t TotalPages() const;

  // Appends the URL of (site, page) to out.
  void AppendUrl(std::string& out, uint32_t site, uint32_t page) const;
  // Appends the origin ("http://www.siteN.test") of site's URLs to out.
  static void AppendOrigin(std::string& out, uint32_t site);
  // Reads the site back from a URL this class spelled; false otherwise.
  static bool ParseSite(std::string_view url, uint32_t* site);

 private:
  uint32_t sites_;
  std::string tag_;
  std::vector<double> cdf_;  // cumulative Zipf weights, cdf_.back() = total
  std::unique_ptr<std::atomic<uint32_t>[]> pages_;
};

}  // namespace bench
