#include "storage/records.h"

#include <xxhash.h>

#include "storage/coding.h"

namespace frontier {

using coding::GetI64;
using coding::GetU16;
using coding::GetU64;
using coding::PutI64;
using coding::PutU16;
using coding::PutU64;

namespace {
// Record layouts carry a version byte so that a later format can be told
// apart from this one.
constexpr char kUrlRecordV1 = 1;
constexpr char kSiteRecordV2 = 2;
constexpr char kStatsV1 = 1;
}  // namespace

uint64_t Fingerprint(std::string_view s) {
  return XXH3_64bits(s.data(), s.size());
}

std::string EncodeUrlKey(const UrlKey& key) {
  std::string out;
  out.reserve(kUrlKeySize);
  PutU64(&out, key.host_fp);
  PutU64(&out, key.url_fp);
  return out;
}

bool DecodeUrlKey(std::string_view in, UrlKey* key) {
  return in.size() == kUrlKeySize && GetU64(&in, &key->host_fp) &&
         GetU64(&in, &key->url_fp);
}

std::string QueueSitePrefix(uint64_t site_fp) {
  std::string out;
  PutU64(&out, site_fp);
  return out;
}

std::string EncodeQueueKey(uint64_t site_fp, const QueuePos& pos) {
  std::string out;
  out.reserve(kQueueKeySize);
  PutU64(&out, site_fp);
  PutU16(&out, pos.major);
  PutU16(&out, pos.minor);
  PutU64(&out, pos.url.url_fp);
  PutU64(&out, pos.url.host_fp);
  return out;
}

bool DecodeQueueKey(std::string_view in, uint64_t* site_fp, QueuePos* pos) {
  return in.size() == kQueueKeySize && GetU64(&in, site_fp) &&
         GetU16(&in, &pos->major) && GetU16(&in, &pos->minor) &&
         GetU64(&in, &pos->url.url_fp) && GetU64(&in, &pos->url.host_fp);
}

std::string EncodeTimerKey(int64_t due_ms, const UrlKey& url) {
  std::string out;
  out.reserve(kTimerKeySize);
  PutI64(&out, due_ms);
  PutU64(&out, url.host_fp);
  PutU64(&out, url.url_fp);
  return out;
}

bool DecodeTimerKey(std::string_view in, int64_t* due_ms, UrlKey* url) {
  return in.size() == kTimerKeySize && GetI64(&in, due_ms) &&
         GetU64(&in, &url->host_fp) && GetU64(&in, &url->url_fp);
}

std::string EncodeSiteKey(uint64_t site_fp) {
  std::string out;
  PutU64(&out, site_fp);
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
  }
  return UrlState::kDead;
}

std::string EncodeUrlRecord(const UrlRecord& r) {
  std::string out;
  out.reserve(64 + r.url.size());
  out.push_back(kUrlRecordV1);
  out.push_back(static_cast<char>(r.state));
  PutU16(&out, r.depth);
  PutU16(&out, r.priority);
  PutU16(&out, r.attempts);
  PutU64(&out, r.backlinks);
  PutU64(&out, r.site_fp);
  PutI64(&out, r.recrawl_ms);
  PutI64(&out, r.due_ms);
  PutI64(&out, r.last_fetch_ms);
  out.append(r.url);
  return out;
}

bool DecodeUrlRecord(std::string_view in, UrlRecord* r) {
  if (in.size() < 2 || in[0] != kUrlRecordV1) return false;
  auto state = static_cast<uint8_t>(in[1]);
  if (state > static_cast<uint8_t>(StoredState::kDead)) return false;
  r->state = static_cast<StoredState>(state);
  in.remove_prefix(2);
  if (!(GetU16(&in, &r->depth) && GetU16(&in, &r->priority) &&
        GetU16(&in, &r->attempts) && GetU64(&in, &r->backlinks) &&
        GetU64(&in, &r->site_fp) && GetI64(&in, &r->recrawl_ms) &&
        GetI64(&in, &r->due_ms) && GetI64(&in, &r->last_fetch_ms))) {
    return false;
  }
  r->url.assign(in.data(), in.size());
  return !r->url.empty();
}

std::string EncodeSiteRecord(const SiteRecord& r) {
  std::string out;
  out.reserve(72 + r.name.size());
  out.push_back(kSiteRecordV2);
  PutI64(&out, r.delay_ms);
  PutI64(&out, r.next_allowed_ms);
  PutU64(&out, r.urls);
  PutU64(&out, r.queued);
  PutU64(&out, r.leases);
  PutU64(&out, r.done);
  PutU64(&out, r.scheduled);
  PutU64(&out, r.dead);
  out.append(r.name);
  return out;
}

bool DecodeSiteRecord(std::string_view in, SiteRecord* r) {
  if (in.empty() || in[0] != kSiteRecordV2) return false;
  in.remove_prefix(1);
  if (!(GetI64(&in, &r->delay_ms) && GetI64(&in, &r->next_allowed_ms) &&
        GetU64(&in, &r->urls) && GetU64(&in, &r->queued) &&
        GetU64(&in, &r->leases) && GetU64(&in, &r->done) &&
        GetU64(&in, &r->scheduled) && GetU64(&in, &r->dead))) {
    return false;
  }
  r->name.assign(in.data(), in.size());
  return true;
}

namespace {
// The persistent counters in a fixed order; ready_sites is in-memory only.
template <typename Stats, typename Fn>
void ForEachCounter(Stats& s, Fn fn) {
  fn(s.urls), fn(s.queued), fn(s.leased), fn(s.done), fn(s.scheduled);
  fn(s.dead), fn(s.sites), fn(s.added), fn(s.duplicates), fn(s.refused);
  fn(s.popped), fn(s.confirmed), fn(s.failed), fn(s.expired);
  fn(s.recrawled);
}
}  // namespace

void KeepCumulativeCounters(const FrontierStats& from, FrontierStats* to) {
  to->added = from.added;
  to->duplicates = from.duplicates;
  to->refused = from.refused;
  to->popped = from.popped;
  to->confirmed = from.confirmed;
  to->failed = from.failed;
  to->expired = from.expired;
  to->recrawled = from.recrawled;
}

std::string EncodeStats(const FrontierStats& s) {
  std::string out;
  out.push_back(kStatsV1);
  ForEachCounter(s, [&out](uint64_t v) { PutU64(&out, v); });
  return out;
}

bool DecodeStats(std::string_view in, FrontierStats* s) {
  if (in.empty() || in[0] != kStatsV1) return false;
  in.remove_prefix(1);
  bool ok = true;
  ForEachCounter(*s, [&](uint64_t& v) { ok = ok && GetU64(&in, &v); });
  return ok && in.empty();
}

}  // namespace frontier
