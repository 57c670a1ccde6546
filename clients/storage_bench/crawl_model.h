// The crawl that storage-pair-bench's `crawl` mode drives through storage/:
// a deterministic synthetic web and the loop that crawls it (POP COUNT 64;
// per page a MADD of its links and a CONFIRM; one log flush a batch), as
// issue 19's "crawled page" profile describes a page: 50 links, 80% of
// them known.
//
// The web: kSites sites named s<i>.example, each with pages p0, p1, ...
// discovered in order. The model remembers how many pages of each site it
// has linked so far, so each page's links are exactly kNewLinks new URLs
// (the next undiscovered page of their site) and kLinks - kNewLinks known
// ones (a page already linked, uniform over the site's discovered pages);
// 70% of the links stay on the page's own site, the rest go to a site
// drawn uniformly from all of them. A fixed seed gives the same links,
// hence the same instruction count, on every run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/frontier.h"
#include "util/status.h"

namespace frontier::bench {

class CrawlModel {
 public:
  static constexpr int kSites = 5000;
  static constexpr int kLinks = 50;
  static constexpr int kNewLinks = 10;  // 80% of a page's links known
  static constexpr int kSameSitePercent = 70;

  // With data_bytes > 0, every URL carries a value of that many bytes
  // (ADD ... DATA, MADD ... DATA) and POP asks for it (WITHDATA).
  explicit CrawlModel(uint64_t seed, size_t data_bytes = 0)
      : rng_(seed), discovered_(kSites, 0), data_(data_bytes, 'd') {}

  // Page 0 of every site, ADDed one by one (a flush every 64): what the
  // crawl starts from. InvalidArgument if a seed was not new.
  Status Seed(Frontier* fr, int64_t now_ms);

  // Crawls `pages` pages: POP COUNT 64 (fewer for the last batch), then for
  // each URL popped a MADD of its links with the URL as ref and a CONFIRM,
  // then FlushLog(). Corruption if a link's outcome is not the model's
  // (a new link not added, a known one added) or a CONFIRM finds no
  // lease; NotFound if the queue runs dry first.
  Status Crawl(Frontier* fr, int pages, int64_t* now_ms);

  uint64_t links_added() const { return links_added_; }
  uint64_t links_known() const { return links_known_; }

 private:
  // The links of a page of site `site`, appended to *out (cleared first).
  void LinksOf(int site, std::vector<std::string>* out);
  uint64_t Next();  // splitmix64

  uint64_t rng_;
  std::vector<uint32_t> discovered_;  // pages linked so far, per site
  std::string data_;  // every URL's value; empty: none
  uint64_t links_added_ = 0;
  uint64_t links_known_ = 0;
};

// "http://s<site>.example/p<page>".
std::string PageUrl(int site, uint32_t page);
// The site number of a PageUrl() (as Pop returns it), or -1.
int SiteOf(std::string_view url);

}  // namespace frontier::bench
