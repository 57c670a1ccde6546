#include "storage/records.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "storage/coding.h"

namespace frontier {

using coding::EncodeU16;
using coding::EncodeU64;
using coding::GetI64;
using coding::GetSignedVarint;
using coding::GetU16;
using coding::GetU64;
using coding::GetVarint;
using coding::GetVarintAs;
using coding::PutSignedVarint;
using coding::PutU64;
using coding::PutVarint;

namespace {
// Record layouts carry a version byte so that a later format can be told
// apart from this one.
constexpr char kUrlRecordV2 = 2;
constexpr char kUrlRecordV3 = 3;  // + created_ms, has_data
constexpr uint8_t kHasDataBit = 0x80;  // in the state byte (v3)
// created_ms in v3: milliseconds since 1970, 48 bits big-endian (until
// the year 10889).
constexpr int kCreatedBytes = 6;
constexpr char kUrlDataV1 = 1;
constexpr char kSiteRecordV2 = 2;
constexpr char kSiteRecordV3 = 3;
constexpr char kStatsV1 = 1;  // 7 state + the first 8 cumulative counters
constexpr char kStatsV2 = 2;  // 7 state counters, n, n cumulative counters
}  // namespace

uint64_t Fingerprint(std::string_view s) {
  return XXH3_64bits(s.data(), s.size());
}

KeyBytes<kUrlKeySize> EncodeUrlKey(const UrlKey& key) {
  KeyBytes<kUrlKeySize> out;
  EncodeU64(out.data, key.host_fp);
  EncodeU64(out.data + 8, key.url_fp);
  return out;
}

bool DecodeUrlKey(std::string_view in, UrlKey* key) {
  return in.size() == kUrlKeySize && GetU64(&in, &key->host_fp) &&
         GetU64(&in, &key->url_fp);
}

int PopularityClass(uint64_t backlinks) {
  // floor(log2(1 + b)) = bit width of (1 + b) minus one; 1 + b overflows
  // only at b = 2^64 - 1, whose class is capped anyway.
  if (backlinks >= (uint64_t{1} << kMaxPopularityClass) - 1) {
    return kMaxPopularityClass;
  }
  return static_cast<int>(std::bit_width(backlinks + 1)) - 1;
}

uint16_t PopularityMajor(uint64_t backlinks, uint16_t depth) {
  const int inverted = kMaxPopularityClass - PopularityClass(backlinks);
  const int g = std::min<int>(depth, kMaxPopularityDepth);
  return static_cast<uint16_t>((inverted << kPopularityDepthBits) | g);
}

std::string QueueSitePrefix(uint64_t site_fp) {
  std::string out;
  PutU64(&out, site_fp);
  return out;
}

KeyBytes<kQueueKeySize> EncodeQueueKey(uint64_t site_fp, const QueuePos& pos) {
  KeyBytes<kQueueKeySize> out;
  EncodeU64(out.data, site_fp);
  EncodeU16(out.data + 8, pos.major);
  EncodeU16(out.data + 10, pos.minor);
  EncodeU64(out.data + 12, pos.url.url_fp);
  EncodeU64(out.data + 20, pos.url.host_fp);
  return out;
}

bool DecodeQueueKey(std::string_view in, uint64_t* site_fp, QueuePos* pos) {
  return in.size() == kQueueKeySize && GetU64(&in, site_fp) &&
         GetU16(&in, &pos->major) && GetU16(&in, &pos->minor) &&
         GetU64(&in, &pos->url.url_fp) && GetU64(&in, &pos->url.host_fp);
}

KeyBytes<kTimerKeySize> EncodeTimerKey(int64_t due_ms, const UrlKey& url) {
  KeyBytes<kTimerKeySize> out;
  EncodeU64(out.data, static_cast<uint64_t>(due_ms));
  EncodeU64(out.data + 8, url.host_fp);
  EncodeU64(out.data + 16, url.url_fp);
  return out;
}

bool DecodeTimerKey(std::string_view in, int64_t* due_ms, UrlKey* url) {
  return in.size() == kTimerKeySize && GetI64(&in, due_ms) &&
         GetU64(&in, &url->host_fp) && GetU64(&in, &url->url_fp);
}

KeyBytes<8> EncodeSiteKey(uint64_t site_fp) {
  KeyBytes<8> out;
  EncodeU64(out.data, site_fp);
  return out;
}

UrlState PublicState(StoredState s) {
  switch (s) {
    case StoredState::kQueued:
      return UrlState::kQueued;
    case StoredState::kLeased:
      return UrlState::kLeased;
    case StoredState::kDone:
      return UrlState::kDone;
    case StoredState::kScheduledRetry:
    case StoredState::kScheduledRecrawl:
      return UrlState::kScheduled;
    case StoredState::kDead:
      return UrlState::kDead;
    case StoredState::kExcluded:
      return UrlState::kExcluded;
  }
  return UrlState::kDead;
}

int64_t QueueDateOf(const UrlRecord& rec) {
  switch (rec.state) {
    case StoredState::kScheduledRetry:
    case StoredState::kScheduledRecrawl:
      return rec.due_ms;
    case StoredState::kQueued:
      return rec.due_ms > 0 ? rec.due_ms : rec.created_ms;
    case StoredState::kLeased:
      return rec.created_ms;
    case StoredState::kDone:
    case StoredState::kDead:
    case StoredState::kExcluded:
      break;
  }
  return rec.last_fetch_ms > 0 && rec.recrawl_ms > 0
             ? rec.last_fetch_ms + rec.recrawl_ms
             : rec.created_ms;
}

std::string EncodeUrlRecord(const UrlRecord& r) {
  std::string out;
  EncodeUrlRecord(r, &out);
  return out;
}

void EncodeUrlRecord(const UrlRecord& r, std::string* out) {
  out->clear();
  out->push_back(kUrlRecordV3);
  out->push_back(static_cast<char>(static_cast<uint8_t>(r.state) |
                                   (r.has_data ? kHasDataBit : 0)));
  PutVarint(out, r.depth);
  PutVarint(out, r.priority);
  PutVarint(out, r.attempts);
  PutVarint(out, r.backlinks);
  PutU64(out, r.site_fp);  // a fingerprint: varints would not shrink it
  PutSignedVarint(out, r.recrawl_ms);
  PutSignedVarint(out, r.due_ms);
  PutSignedVarint(out, r.last_fetch_ms);
  // Fixed width, not a varint: a time of this century would take 6 varint
  // bytes too, and every verb decodes and most encode the record, so the
  // cheaper coding keeps a crawl without values within noise of before.
  char created[kCreatedBytes];
  const uint64_t c = static_cast<uint64_t>(std::max<int64_t>(0, r.created_ms));
  for (int i = kCreatedBytes - 1, shift = 0; i >= 0; --i, shift += 8) {
    created[i] = static_cast<char>(c >> shift);
  }
  out->append(created, kCreatedBytes);
  out->append(r.url);
}

bool DecodeUrlRecord(std::string_view in, UrlRecord* r) {
  if (in.size() < 2 || (in[0] != kUrlRecordV2 && in[0] != kUrlRecordV3)) {
    return false;
  }
  const bool v3 = in[0] == kUrlRecordV3;
  auto state = static_cast<uint8_t>(in[1]);
  r->has_data = v3 && (state & kHasDataBit) != 0;
  if (v3) state &= static_cast<uint8_t>(~kHasDataBit);
  if (state > static_cast<uint8_t>(StoredState::kExcluded)) return false;
  r->state = static_cast<StoredState>(state);
  in.remove_prefix(2);
  if (!(GetVarintAs(&in, &r->depth) && GetVarintAs(&in, &r->priority) &&
        GetVarintAs(&in, &r->attempts) && GetVarint(&in, &r->backlinks) &&
        GetU64(&in, &r->site_fp) && GetSignedVarint(&in, &r->recrawl_ms) &&
        GetSignedVarint(&in, &r->due_ms) &&
        GetSignedVarint(&in, &r->last_fetch_ms))) {
    return false;
  }
  r->created_ms = 0;
  if (v3) {
    if (in.size() < kCreatedBytes) return false;
    uint64_t c = 0;
    for (int i = 0; i < kCreatedBytes; ++i) {
      c = (c << 8) | static_cast<uint8_t>(in[i]);
    }
    r->created_ms = static_cast<int64_t>(c);
    in.remove_prefix(kCreatedBytes);
  }
  r->url.assign(in.data(), in.size());
  return !r->url.empty();
}

void EncodeUrlData(std::string_view value, std::string* out) {
  out->clear();
  out->push_back(kUrlDataV1);
  out->append(value);
}

bool DecodeUrlData(std::string_view in, std::string_view* value) {
  if (in.empty() || in[0] != kUrlDataV1) return false;
  *value = in.substr(1);
  return true;
}

std::string EncodeSiteRecord(const SiteRecord& r) {
  std::string out;
  EncodeSiteRecord(r, &out);
  return out;
}

namespace {
// SiteRecord v3's presence mask: bit i set = optional field i follows.
enum SiteField : uint64_t {
  kSiteDelay = 1u << 0,
  kSiteBlockUntil = 1u << 1,
  kSiteBackoffs = 1u << 2,
  kSiteMaxUrls = 1u << 3,
  kSiteRobotsDelay = 1u << 4,
  kSiteAdaptiveDelay = 1u << 5,
  kSiteExcluded = 1u << 6,  // URLs excluded by robots.txt
  kSiteHead = 1u << 7,      // the first queue key
  kSiteDoneLimit = 1u << 8,  // SITE CRAWLLIMIT
  kSiteKnownFields = (1u << 9) - 1,
};

uint64_t SiteFieldMask(const SiteRecord& r) {
  uint64_t mask = 0;
  if (r.delay_ms >= 0) mask |= kSiteDelay;
  if (r.block_until_ms != 0) mask |= kSiteBlockUntil;
  if (r.backoffs != 0) mask |= kSiteBackoffs;
  if (r.max_urls != 0) mask |= kSiteMaxUrls;
  if (r.robots_delay_ms >= 0) mask |= kSiteRobotsDelay;
  if (r.adaptive_delay_ms >= 0) mask |= kSiteAdaptiveDelay;
  if (r.excluded != 0) mask |= kSiteExcluded;
  if (r.head) mask |= kSiteHead;
  if (r.done_limit != 0) mask |= kSiteDoneLimit;
  return mask;
}

bool GetSiteCounts(std::string_view* in, SiteRecord* r) {
  return GetSignedVarint(in, &r->next_allowed_ms) && GetVarint(in, &r->urls) &&
         GetVarint(in, &r->queued) && GetVarint(in, &r->leases) &&
         GetVarint(in, &r->done) && GetVarint(in, &r->scheduled) &&
         GetVarint(in, &r->dead);
}

bool DecodeSiteRecordV2(std::string_view in, SiteRecord* r) {
  *r = SiteRecord();
  if (!(GetSignedVarint(&in, &r->delay_ms) && GetSiteCounts(&in, r))) {
    return false;
  }
  r->name.assign(in.data(), in.size());
  return true;
}
}  // namespace

void EncodeSiteRecord(const SiteRecord& r, std::string* out) {
  out->clear();
  out->push_back(kSiteRecordV3);
  const uint64_t mask = SiteFieldMask(r);
  PutVarint(out, mask);
  PutSignedVarint(out, r.next_allowed_ms);
  PutVarint(out, r.urls);
  PutVarint(out, r.queued);
  PutVarint(out, r.leases);
  PutVarint(out, r.done);
  PutVarint(out, r.scheduled);
  PutVarint(out, r.dead);
  if (mask & kSiteDelay) PutVarint(out, static_cast<uint64_t>(r.delay_ms));
  if (mask & kSiteBlockUntil) PutSignedVarint(out, r.block_until_ms);
  if (mask & kSiteBackoffs) PutVarint(out, r.backoffs);
  if (mask & kSiteMaxUrls) PutVarint(out, r.max_urls);
  if (mask & kSiteRobotsDelay) {
    PutVarint(out, static_cast<uint64_t>(r.robots_delay_ms));
  }
  if (mask & kSiteAdaptiveDelay) {
    PutVarint(out, static_cast<uint64_t>(r.adaptive_delay_ms));
  }
  if (mask & kSiteExcluded) PutVarint(out, r.excluded);
  if (mask & kSiteHead) {
    PutVarint(out, r.head->major);
    PutVarint(out, r.head->minor);
    PutU64(out, r.head->url.url_fp);
    PutU64(out, r.head->url.host_fp);
  }
  if (mask & kSiteDoneLimit) PutVarint(out, r.done_limit);
  out->append(r.name);
}

bool DecodeSiteRecord(std::string_view in, SiteRecord* r) {
  if (in.empty()) return false;
  const char version = in[0];
  in.remove_prefix(1);
  if (version == kSiteRecordV2) return DecodeSiteRecordV2(in, r);
  if (version != kSiteRecordV3) return false;
  *r = SiteRecord();
  uint64_t mask = 0;
  if (!GetVarint(&in, &mask) || (mask & ~uint64_t{kSiteKnownFields}) != 0 ||
      !GetSiteCounts(&in, r)) {
    return false;
  }
  // A non-negative delay read back as an int64_t: at most 2^63 - 1.
  auto get_delay = [&](int64_t* out) {
    uint64_t v = 0;
    if (!GetVarint(&in, &v) || v > uint64_t{INT64_MAX}) return false;
    *out = static_cast<int64_t>(v);
    return true;
  };
  uint64_t backoffs = 0;
  if ((mask & kSiteDelay) && !get_delay(&r->delay_ms)) return false;
  if ((mask & kSiteBlockUntil) && !GetSignedVarint(&in, &r->block_until_ms)) {
    return false;
  }
  if (mask & kSiteBackoffs) {
    if (!GetVarint(&in, &backoffs) || backoffs > UINT32_MAX) return false;
    r->backoffs = static_cast<uint32_t>(backoffs);
  }
  if ((mask & kSiteMaxUrls) && !GetVarint(&in, &r->max_urls)) return false;
  if ((mask & kSiteRobotsDelay) && !get_delay(&r->robots_delay_ms)) {
    return false;
  }
  if ((mask & kSiteAdaptiveDelay) && !get_delay(&r->adaptive_delay_ms)) {
    return false;
  }
  if ((mask & kSiteExcluded) && !GetVarint(&in, &r->excluded)) return false;
  if (mask & kSiteHead) {
    QueuePos head;
    if (!(GetVarintAs(&in, &head.major) && GetVarintAs(&in, &head.minor) &&
          GetU64(&in, &head.url.url_fp) && GetU64(&in, &head.url.host_fp))) {
      return false;
    }
    r->head = head;
  }
  if ((mask & kSiteDoneLimit) && !GetVarint(&in, &r->done_limit)) return false;
  r->name.assign(in.data(), in.size());
  return true;
}

bool DecodeSiteEntry(std::string_view key, std::string_view value,
                     uint64_t* site_fp, SiteRecord* r) {
  if (key.size() != 8 || !DecodeSiteRecord(value, r)) return false;
  *site_fp = 0;
  for (char c : key) *site_fp = (*site_fp << 8) | static_cast<uint8_t>(c);
  return true;
}

namespace {
// The persistent counters in a fixed order; ready_sites and blocked_sites
// are in-memory only. The cumulative counters, in their order in the
// counters record: a new counter goes at the end, so that a record with
// fewer of them (an older frontierd's) reads them where they were.
constexpr uint64_t FrontierStats::*kCumulative[] = {
    &FrontierStats::added,     &FrontierStats::duplicates,
    &FrontierStats::refused,   &FrontierStats::popped,
    &FrontierStats::confirmed, &FrontierStats::failed,
    &FrontierStats::expired,   &FrontierStats::recrawled,
    &FrontierStats::confirmed_2xx, &FrontierStats::confirmed_3xx,
    &FrontierStats::confirmed_4xx, &FrontierStats::confirmed_5xx,
    &FrontierStats::backoffs,
    &FrontierStats::scope_host,    &FrontierStats::scope_ref,
    &FrontierStats::scope_query,   &FrontierStats::scope_path,
    &FrontierStats::scope_deny,    &FrontierStats::scope_allow,
    &FrontierStats::scope_removed};
constexpr size_t kCumulativeV1 = 8;  // the version 1 record's

template <typename Stats, typename Fn>
void ForEachStateCounter(Stats& s, Fn fn) {
  fn(s.urls), fn(s.queued), fn(s.leased), fn(s.done), fn(s.scheduled);
  fn(s.dead), fn(s.sites);
}
}  // namespace

void KeepCumulativeCounters(const FrontierStats& from, FrontierStats* to) {
  for (auto member : kCumulative) to->*member = from.*member;
}

std::string EncodeStats(const FrontierStats& s) {
  std::string out;
  out.push_back(kStatsV2);
  ForEachStateCounter(s, [&out](uint64_t v) { PutU64(&out, v); });
  PutVarint(&out, std::size(kCumulative));
  for (auto member : kCumulative) PutU64(&out, s.*member);
  return out;
}

bool DecodeStats(std::string_view in, FrontierStats* s) {
  if (in.empty() || (in[0] != kStatsV1 && in[0] != kStatsV2)) return false;
  const bool v1 = in[0] == kStatsV1;
  in.remove_prefix(1);
  bool ok = true;
  ForEachStateCounter(*s, [&](uint64_t& v) { ok = ok && GetU64(&in, &v); });
  uint64_t count = kCumulativeV1;
  if (!ok || (!v1 && !GetVarint(&in, &count))) return false;
  // More counters than this version knows: written by a newer frontierd,
  // whose counters this one would misread or drop.
  if (count > std::size(kCumulative)) return false;
  for (size_t i = 0; i < count; ++i) {
    ok = ok && GetU64(&in, &(s->*kCumulative[i]));
  }
  // The counters the record predates start from zero.
  for (size_t i = count; i < std::size(kCumulative); ++i) {
    s->*kCumulative[i] = 0;
  }
  return ok && in.empty();
}

}  // namespace frontier
