#include "synthetic_web.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace bench {
namespace {

constexpr std::string_view kPrefix = "http://www.site";

void AppendNumber(std::string& out, uint64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  (void)ec;
  out.append(buf, end);
}

}  // namespace

SyntheticWeb::SyntheticWeb(uint32_t sites, double zipf, std::string tag)
    : sites_(sites),
      tag_(std::move(tag)),
      pages_(new std::atomic<uint32_t>[sites]) {
  cdf_.resize(sites);
  double total = 0;
  for (uint32_t k = 0; k < sites; ++k) {
    total += 1.0 / std::pow(static_cast<double>(k) + 1.0, zipf);
    cdf_[k] = total;
    pages_[k].store(0, std::memory_order_relaxed);
  }
}

uint32_t SyntheticWeb::ZipfSite(Rng& rng) const {
  double x = rng.Uniform() * cdf_.back();
  auto it = std::upper_bound(cdf_.begin(), cdf_.end(), x);
  if (it == cdf_.end()) --it;
  return static_cast<uint32_t>(it - cdf_.begin());
}

bool SyntheticWeb::KnownPage(uint32_t site, Rng& rng, uint32_t* page) const {
  uint32_t allocated = pages_[site].load(std::memory_order_relaxed);
  if (allocated == 0) return false;
  double u = rng.Uniform();
  auto p = static_cast<uint32_t>(static_cast<double>(allocated) * u * u * u);
  *page = std::min(p, allocated - 1);
  return true;
}

uint64_t SyntheticWeb::TotalPages() const {
  uint64_t total = 0;
  for (uint32_t k = 0; k < sites_; ++k) {
    total += pages_[k].load(std::memory_order_relaxed);
  }
  return total;
}

// http://www.site<site>.test/<tag>/d<page % 64>/page<page>.html, tag "a1" for
// add with seed 1, "c1" for crawl: about 45
// bytes, every site its own registrable domain (.test is reserved, and
// unknown to the public suffix list's explicit rules).
void SyntheticWeb::AppendOrigin(std::string& out, uint32_t site) {
  out.append(kPrefix);
  AppendNumber(out, site);
  out.append(".test");
}

void SyntheticWeb::AppendUrl(std::string& out, uint32_t site,
                             uint32_t page) const {
  AppendOrigin(out, site);
  out.append("/");
  out.append(tag_);
  out.append("/d");
  AppendNumber(out, page % 64);
  out.append("/page");
  AppendNumber(out, page);
  out.append(".html");
}

bool SyntheticWeb::ParseSite(std::string_view url, uint32_t* site) {
  if (!url.starts_with(kPrefix)) return false;
  const char* begin = url.data() + kPrefix.size();
  auto [end, ec] = std::from_chars(begin, url.data() + url.size(), *site);
  return ec == std::errc() && end != begin;
}

}  // namespace bench
