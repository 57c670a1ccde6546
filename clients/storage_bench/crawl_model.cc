#include "clients/storage_bench/crawl_model.h"

#include <algorithm>
#include <charconv>
#include <cstddef>

namespace frontier::bench {
namespace {

constexpr size_t kBatch = 64;
constexpr int64_t kLeaseMs = 1000;

}  // namespace

std::string PageUrl(int site, uint32_t page) {
  return "http://s" + std::to_string(site) + ".example/p" +
         std::to_string(page);
}

int SiteOf(std::string_view url) {
  constexpr std::string_view kPrefix = "http://s";
  if (url.substr(0, kPrefix.size()) != kPrefix) return -1;
  url.remove_prefix(kPrefix.size());
  int site = -1;
  auto [end, ec] = std::from_chars(url.data(), url.data() + url.size(), site);
  if (ec != std::errc() || site < 0 || site >= CrawlModel::kSites) return -1;
  return site;
}

uint64_t CrawlModel::Next() {
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The first kNewLinks links are the new ones: Crawl() checks each
// outcome against its place.
void CrawlModel::LinksOf(int site, std::vector<std::string>* out) {
  out->clear();
  for (int i = 0; i < kLinks; ++i) {
    const bool same = static_cast<int>(Next() % 100) < kSameSitePercent;
    const int to = same ? site : static_cast<int>(Next() % kSites);
    if (i < kNewLinks) {
      out->push_back(PageUrl(to, discovered_[to]++));
    } else {
      // Every site has its seed, page 0: there is always a known page.
      out->push_back(PageUrl(
          to, static_cast<uint32_t>(Next() % std::max(discovered_[to], 1u))));
    }
  }
}

Status CrawlModel::Seed(Frontier* fr, int64_t now_ms) {
  for (int site = 0; site < kSites; ++site) {
    AddOptions options;
    if (!data_.empty()) options.data = data_;
    auto r = fr->Add(PageUrl(site, 0), "", options, now_ms);
    if (!r.ok()) return r.status();
    if (*r != AddOutcome::kAdded) {
      return Status::InvalidArgument("a seed was not new");
    }
    discovered_[site] = 1;
    if (site % kBatch == kBatch - 1) {
      Status s = fr->FlushLog();
      if (!s.ok()) return s;
    }
  }
  return fr->FlushLog();
}

Status CrawlModel::Crawl(Frontier* fr, int pages, int64_t* now_ms) {
  std::vector<std::string> links;
  std::vector<std::string_view> views;
  std::vector<std::string_view> values;
  std::vector<std::string> urls;
  int crawled = 0;
  while (crawled < pages) {
    const size_t want = std::min(kBatch, static_cast<size_t>(pages - crawled));
    urls.clear();
    if (data_.empty()) {
      auto popped = fr->Pop(want, kLeaseMs, *now_ms);
      if (!popped.ok()) return popped.status();
      urls = std::move(popped).value();
    } else {
      auto popped = fr->PopWithData(std::nullopt, want, kLeaseMs, *now_ms);
      if (!popped.ok()) return popped.status();
      std::vector<PoppedUrl> batch = std::move(popped).value();
      for (PoppedUrl& p : batch) {
        if (p.data != data_) return Status::Corruption("lost value: " + p.url);
        urls.push_back(std::move(p.url));
      }
    }
    if (urls.empty()) return Status::NotFound("the queue ran dry");
    for (const std::string& url : urls) {
      const int site = SiteOf(url);
      if (site < 0) return Status::Corruption("popped a URL not of the model");
      LinksOf(site, &links);
      views.assign(links.begin(), links.end());
      values.assign(views.size(), data_);
      auto added = data_.empty()
                       ? fr->AddMany(url, views, *now_ms)
                       : fr->AddManyWithData(url, views, values, *now_ms);
      if (!added.ok()) return added.status();
      for (size_t i = 0; i < added->size(); ++i) {
        const StatusOr<AddOutcome>& o = (*added)[i];
        const AddOutcome want_outcome = static_cast<int>(i) < kNewLinks
                                            ? AddOutcome::kAdded
                                            : AddOutcome::kKnown;
        if (!o.ok() || *o != want_outcome) {
          return Status::Corruption("a link's outcome is not the model's: " +
                                    links[i]);
        }
      }
      links_added_ += kNewLinks;
      links_known_ += kLinks - kNewLinks;
      auto c = fr->Confirm(url, {}, *now_ms);
      if (!c.ok()) return c.status();
      if (!*c) return Status::Corruption("CONFIRM found no lease: " + url);
      ++crawled;
    }
    Status s = fr->FlushLog();
    if (!s.ok()) return s;
    ++*now_ms;
  }
  return Status::OK();
}

}  // namespace frontier::bench
