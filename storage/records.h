// The on-disk keys and records of the frontier's databases.
//
//   urls   (U):  UrlKey   -> UrlRecord    B-tree, grouped by host (VEUNIQ)
//   queue  (Q):  QueueKey -> ""           B-tree, grouped by site, then the
//                                         paper's G+p+h(K) (or p+G+h(K), or
//                                         back-link class+G+p+h(K))
//   timers (Qc): TimerKey -> ""           B-tree, T+h(K): leases, retries,
//                                         recrawl dates
//   sites:       site fp  -> SiteRecord   politeness state and counts
//   meta:        name     -> value        layout parameters, counters
//   data:        UrlKey   -> UrlData      ADD ... DATA values, only for the
//                                         URLs that have one (has_data)
//
// docs/design.md explains the choices. Encoders append to a std::string;
// decoders return false on malformed input (treated as corruption).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/frontier.h"

namespace frontier {

// 64-bit fingerprint (XXH3) of a normalised URL, host or site name.
uint64_t Fingerprint(std::string_view s);

// A fixed-size key built on the stack: keys are encoded several times per
// command, and a std::string of more than 15 bytes would allocate.
template <size_t N>
struct KeyBytes {
  char data[N];
  operator std::string_view() const { return {data, N}; }  // NOLINT
};

// U's key: the host's fingerprint first, so one host's URLs share pages.
struct UrlKey {
  uint64_t host_fp = 0;
  uint64_t url_fp = 0;
  bool operator==(const UrlKey&) const = default;
};
inline constexpr size_t kUrlKeySize = 16;
KeyBytes<kUrlKeySize> EncodeUrlKey(const UrlKey& key);
bool DecodeUrlKey(std::string_view in, UrlKey* key);

// The position of a URL inside its site's queue: (G, p), (p, G) or
// (popularity class, G, p), then h(K). Orders URLs across sites too (the
// ready-site index uses it).
struct QueuePos {
  uint16_t major = 0;  // G for bfs, p for priority, see PopularityMajor
  uint16_t minor = 0;  // p for bfs and popularity, G for priority
  UrlKey url;          // h(K): url_fp then host_fp in the key bytes
  auto operator<=>(const QueuePos& o) const {
    if (auto c = major <=> o.major; c != 0) return c;
    if (auto c = minor <=> o.minor; c != 0) return c;
    if (auto c = url.url_fp <=> o.url.url_fp; c != 0) return c;
    return url.host_fp <=> o.url.host_fp;
  }
  bool operator==(const QueuePos& o) const = default;
};
// `order popularity`: a URL's class is floor(log2(1 + back-links)), so a
// URL with at least one back-link and at least four times the back-links
// of another has a higher class (1 + 4b >= 2(1 + b) for b >= 1). The class
// is capped at kMaxPopularityClass (2^63 - 1 back-links, never reached).
inline constexpr int kMaxPopularityClass = 63;
int PopularityClass(uint64_t backlinks);
// Major is (kMaxPopularityClass - class) << kPopularityDepthBits | min(G,
// kMaxPopularityDepth): a higher class sorts first, then lower G; depths
// above kMaxPopularityDepth tie (p and h(K) order them). Minor is p.
inline constexpr int kPopularityDepthBits = 10;
inline constexpr int kMaxPopularityDepth = (1 << kPopularityDepthBits) - 1;
uint16_t PopularityMajor(uint64_t backlinks, uint16_t depth);

inline constexpr size_t kQueueKeySize = 8 + 2 + 2 + 16;
KeyBytes<kQueueKeySize> EncodeQueueKey(uint64_t site_fp, const QueuePos& pos);
std::string QueueSitePrefix(uint64_t site_fp);
bool DecodeQueueKey(std::string_view in, uint64_t* site_fp, QueuePos* pos);

inline constexpr size_t kTimerKeySize = 8 + 16;
KeyBytes<kTimerKeySize> EncodeTimerKey(int64_t due_ms, const UrlKey& url);
bool DecodeTimerKey(std::string_view in, int64_t* due_ms, UrlKey* url);

KeyBytes<8> EncodeSiteKey(uint64_t site_fp);

// Internal URL states. Both kScheduled* show as "scheduled" to users; the
// distinction says whether RECRAWL may move the date.
enum class StoredState : uint8_t {
  kQueued = 0,
  kLeased = 1,
  kDone = 2,
  kScheduledRetry = 3,    // after FAIL ... DELAY
  kScheduledRecrawl = 4,  // done, waiting for its recrawl date
  kDead = 5,
  kExcluded = 6,  // disallowed by robots.txt; in the excluded index
};
UrlState PublicState(StoredState s);

struct UrlRecord {
  StoredState state = StoredState::kQueued;
  uint16_t depth = 1;
  uint16_t priority = 5000;
  uint16_t attempts = 0;
  uint64_t backlinks = 0;
  uint64_t site_fp = 0;
  int64_t recrawl_ms = 0;
  int64_t due_ms = 0;  // Qc key time while leased or scheduled
  int64_t last_fetch_ms = 0;
  // When the URL was first stored; 0 in records written before version 3.
  int64_t created_ms = 0;
  // The URL has a value in data.db (ADD ... DATA). Stored as the state
  // byte's top bit, so a URL without one costs nothing for it.
  bool has_data = false;
  std::string url;
};
// `order date`: the date (ms) by which a URL about to be queued is
// ordered. A retry or recrawl that falls due: that date; a done URL that
// RECRAWL queues again: its recrawl date (last fetch + period); a lease
// that runs out: its creation date (it keeps its place, as URL
// Frontier's does); a queued URL: the date it has (due_ms); otherwise its
// creation date.
int64_t QueueDateOf(const UrlRecord& rec);
// Version 3 adds created_ms (6 bytes, fixed width: cheaper to code than a
// varint of the same size) and has_data; version 2 records decode with
// created_ms 0 and no data.
std::string EncodeUrlRecord(const UrlRecord& r);
// The same into *out (cleared first): a buffer the caller reuses.
void EncodeUrlRecord(const UrlRecord& r, std::string* out);
bool DecodeUrlRecord(std::string_view in, UrlRecord* r);

// data.db's value: a version byte, then the value's bytes as given.
void EncodeUrlData(std::string_view value, std::string* out);
// The value inside `in`; false if it is not a data record.
bool DecodeUrlData(std::string_view in, std::string_view* value);

// A site's politeness state and how many of its URLs are in each state.
// The counts are exact (written in the transaction that moves a URL), so
// the server's state counters are their sums, rebuilt at start.
//
// Version 3 (docs/design.md, "Per-site state") adds the policy fields of
// issue 8, each stored only when it differs from its default, behind a
// presence mask: a site without policy costs two bytes more than in
// version 2. Version 2 records decode as version 3 with every policy
// field at its default (a directory upgrades in place as sites are
// written); an unknown mask bit is refused, so a field is never dropped.
struct SiteRecord {
  std::string name;
  int64_t delay_ms = -1;  // < 0: the server's politeness-delay (bit 0)
  int64_t next_allowed_ms = 0;
  // Policy fields (issue 8); their defaults mean "none".
  int64_t block_until_ms = 0;     // bit 1: no URL before (SITE BLOCK, back-off)
  uint32_t backoffs = 0;          // bit 2: back-offs in a row (429/503)
  uint64_t max_urls = 0;          // bit 3: SITE LIMIT; 0 = site-max-urls
  int64_t robots_delay_ms = -1;   // bit 4: robots.txt Crawl-delay; < 0: none
  int64_t adaptive_delay_ms = -1; // bit 5: last adaptive delay; < 0: none
  uint64_t urls = 0;
  uint64_t queued = 0;
  uint64_t leases = 0;  // URLs leased
  uint64_t done = 0;
  uint64_t scheduled = 0;  // waiting for a retry or recrawl date
  uint64_t dead = 0;
  uint64_t excluded = 0;  // bit 6: URLs their origin's robots.txt excludes
  // Bit 7: the site's first queue key as of this record's write, so that
  // a start places the site without reading Q. Written with every record
  // of a site with queued URLs (FrontierImpl::WriteDirtySites); absent in
  // records of earlier versions, whose heads the start reads from Q. Only
  // the start reads it: in memory the scheduler's head is the one used.
  std::optional<QueuePos> head;
  // Bit 8: the cap on done URLs (SITE CRAWLLIMIT, URL Frontier's
  // SetCrawlLimit); 0 = none. At it, nothing more of the site is handed out.
  uint64_t done_limit = 0;
};
// Whether the site has reached its cap on done URLs (done_limit).
inline bool AtDoneLimit(const SiteRecord& r) {
  return r.done_limit != 0 && r.done >= r.done_limit;
}
std::string EncodeSiteRecord(const SiteRecord& r);
void EncodeSiteRecord(const SiteRecord& r, std::string* out);
bool DecodeSiteRecord(std::string_view in, SiteRecord* r);
// A sites.db entry: its 8-byte key (the site's fingerprint, big-endian)
// into *site_fp and its value into *r. False if either does not decode.
bool DecodeSiteEntry(std::string_view key, std::string_view value,
                     uint64_t* site_fp, SiteRecord* r);

// The counters record (all of FrontierStats but ready_sites and
// blocked_sites). Only the cumulative counters (added ... scope_removed) are
// read back: the state counters are summed from the site records at
// start. Version 2 counts its cumulative counters, so a counter added
// later reads as 0 from an older record; version 1 (8 cumulative
// counters, added ... recrawled) still decodes. A record with more
// counters than this version knows is refused (false), never misread.
std::string EncodeStats(const FrontierStats& s);
// Copies the cumulative counters (added ... scope_removed) of `from` to `to`.
void KeepCumulativeCounters(const FrontierStats& from, FrontierStats* to);
bool DecodeStats(std::string_view in, FrontierStats* s);

}  // namespace frontier
