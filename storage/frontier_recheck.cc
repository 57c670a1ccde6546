// FrontierImpl: the re-check of excluded URLs after an origin's robots.txt
// rules change (issue 8 §1; per crawl since issue 22). New rules mark the
// origin in every crawl that holds excluded URLs of it: a record in that
// crawl's own meta.db, "robots-recheck:" ‖ origin_fp, whose value is the
// crawl's position (empty: from the start; else the UrlKey last kept).
// Each crawl's Tick works through its marks in slices; the mark goes when
// the crawl has none of the origin's excluded URLs left to check. Being a
// crawl's own record, it resumes after kill -9 and leaves with the crawl.
#include "robots/matcher.h"
#include "storage/coding.h"
#include "storage/frontier_impl.h"

namespace frontier {

namespace {

using coding::GetU64;
using coding::PutU64;

// Excluded URLs re-checked per transaction: bounds the work of one
// CONFIRM or one Tick; Tick goes on with the rest.
constexpr size_t kRecheckBatch = 500;
constexpr std::string_view kRecheckPrefix = "robots-recheck:";

// A crawl's position in its re-check of one origin.
struct RecheckPos {
  bool started = false;  // false: from the origin's first excluded URL
  UrlKey after;          // the excluded URL last kept
};

std::string RecheckKey(uint64_t origin_fp) {
  std::string key(kRecheckPrefix);
  key.append(std::string_view(EncodePolicyKey(origin_fp)));
  return key;
}

std::string EncodeRecheckPos(const RecheckPos& pos) {
  std::string out;
  if (!pos.started) return out;
  PutU64(&out, pos.after.host_fp);
  PutU64(&out, pos.after.url_fp);
  return out;
}

bool DecodeRecheckPos(std::string_view in, RecheckPos* pos) {
  *pos = RecheckPos();
  if (in.empty()) return true;
  pos->started = true;
  return GetU64(&in, &pos->after.host_fp) && GetU64(&in, &pos->after.url_fp) &&
         in.empty();
}

// True if `excluded` (a crawl's excluded index) holds a key of the origin.
StatusOr<bool> HoldsExcludedOf(bdb::Database* excluded, DbTxn* t,
                               uint64_t origin_fp) {
  bdb::Cursor cursor;
  Status s = cursor.Open(excluded, t);
  if (!s.ok()) return s;
  std::string key;
  s = cursor.Seek(EncodeExcludedKey(origin_fp, UrlKey()), &key, nullptr);
  uint64_t key_origin = 0;
  UrlKey url_key;
  const bool holds = s.ok() && DecodeExcludedKey(key, &key_origin, &url_key) &&
                     key_origin == origin_fp;
  if (!s.ok() && !s.IsNotFound()) return s;
  s = cursor.Close();
  if (!s.ok()) return s;
  return holds;
}

}  // namespace

Status FrontierImpl::MarkRechecks(DbTxn* t, uint64_t origin_fp) {
  const std::string key = RecheckKey(origin_fp);
  for (auto& [name, space] : crawls_) {
    // The current crawl's databases and set are the members.
    const bool current = space.get() == current_;
    bdb::Database* excluded = current ? &excluded_ : &space->excluded;
    StatusOr<bool> holds = HoldsExcludedOf(excluded, t, origin_fp);
    if (!holds.ok()) return holds.status();
    if (!*holds) continue;
    bdb::Database* meta = current ? &meta_ : &space->meta;
    Status s = meta->Put(t, key, "");  // (again) from the start
    if (!s.ok()) return s;
    // Noted at once: if the transaction aborts, Tick finds no mark and
    // forgets the origin.
    (current ? rechecks_ : space->rechecks).insert(origin_fp);
  }
  return Status::OK();
}

Status FrontierImpl::StartRecheck(DbTxn* t, uint64_t origin_fp, PolicyRecord* p,
                                  int64_t now_ms) {
  if (!p->recheck) return Status::OK();
  Status s = MarkRechecks(t, origin_fp);
  if (!s.ok()) return s;
  // The policy record's own position (before crawls had theirs) is unused.
  p->recheck = false;
  p->recheck_started = false;
  p->recheck_after = UrlKey();
  s = robots_.Store(t, origin_fp, *p);
  if (!s.ok() || !rechecks_.contains(origin_fp)) return s;
  uint64_t requeued = 0;
  return RecheckExcluded(t, origin_fp, p->rules, kRecheckBatch, now_ms,
                         &requeued);
}

Status FrontierImpl::RecheckExcluded(DbTxn* t, uint64_t origin_fp,
                                     std::string_view rules, size_t budget,
                                     int64_t now_ms, uint64_t* requeued) {
  const std::string mark = RecheckKey(origin_fp);
  std::string value;
  Status s = meta_.Get(t, mark, &value);
  if (s.IsNotFound()) {
    rechecks_.erase(origin_fp);
    return Status::OK();
  }
  if (!s.ok()) return s;
  RecheckPos pos;
  if (!DecodeRecheckPos(value, &pos)) {
    return Status::Corruption("undecodable robots re-check position");
  }
  bool done = rules.empty();
  if (!done) {
    bdb::Cursor cursor;
    s = cursor.Open(&excluded_, t);
    if (!s.ok()) return s;
    const UrlKey after = pos.started ? pos.after : UrlKey();
    std::string key;
    s = cursor.Seek(EncodeExcludedKey(origin_fp, after), &key, nullptr);
    size_t checked = 0;
    while (true) {
      if (s.IsNotFound()) {
        done = true;
        break;
      }
      if (!s.ok()) return s;
      uint64_t key_origin = 0;
      UrlKey url_key;
      if (!DecodeExcludedKey(key, &key_origin, &url_key)) {
        return Status::Corruption("undecodable excluded key");
      }
      if (key_origin != origin_fp) {
        done = true;
        break;
      }
      if (pos.started && url_key == pos.after) {
        s = cursor.Next(&key, nullptr);  // kept by the previous batch
        continue;
      }
      if (checked++ == budget) break;
      UrlRecord rec;
      s = LoadUrl(t, url_key, &rec);
      if (!s.ok() && !s.IsNotFound()) return s;
      const bool stale = s.IsNotFound() || rec.state != StoredState::kExcluded;
      std::optional<bool> allowed;
      if (!stale) {
        allowed = robots::AllowedStored(rules, PathAndQueryOf(rec.url));
        if (!allowed) return Status::Corruption("undecodable robots rules");
      }
      if (stale || *allowed) {
        s = cursor.DeleteCurrent();
        if (!s.ok()) return s;
      }
      if (!stale && *allowed) {
        SiteRecord site;
        s = sites_.Load(t, rec.site_fp, &site);
        if (s.ok()) s = Enqueue(t, url_key, &rec, &site);
        if (s.ok()) s = urls_.Store(t, url_key, rec);
        if (!s.ok()) return s;
        CountMove(&site, StoredState::kExcluded, StoredState::kQueued);
        sites_.Store(rec.site_fp, site);
        s = PlaceSite(t, rec.site_fp, site, now_ms);
        if (!s.ok()) return s;
        ++*requeued;
      } else if (!stale) {
        pos.after = url_key;
        pos.started = true;
      }
      s = cursor.Next(&key, nullptr);
    }
    s = cursor.Close();
    if (!s.ok()) return s;
  }
  if (!done) return meta_.Put(t, mark, EncodeRecheckPos(pos));
  rechecks_.erase(origin_fp);
  return meta_.Delete(t, mark);
}

Status FrontierImpl::TickRechecks(int64_t now_ms, TickResult* result) {
  if (rechecks_.empty()) return Status::OK();
  const uint64_t origin_fp = *rechecks_.begin();
  uint64_t requeued = 0;
  Status s = RunWrite([&](DbTxn* t) {
    requeued = 0;
    PolicyRecord p;
    Status ls = robots_.Load(t, origin_fp, &p);
    if (ls.IsNotFound()) {
      // The origin's site was deleted: nothing of it to re-check.
      rechecks_.erase(origin_fp);
      ls = meta_.Delete(t, RecheckKey(origin_fp));
      return ls.IsNotFound() ? Status::OK() : ls;
    }
    if (!ls.ok()) return ls;
    return RecheckExcluded(t, origin_fp, p.rules, kRecheckBatch, now_ms,
                           &requeued);
  });
  if (!s.ok()) return s;
  result->requeued += requeued;
  if (!rechecks_.empty()) result->more_due = true;
  return Status::OK();
}

Status FrontierImpl::LoadRechecks() {
  rechecks_.clear();
  bdb::Cursor c;
  Status s = c.Open(&meta_, nullptr);
  std::string key;
  if (s.ok()) s = c.Seek(kRecheckPrefix, &key, nullptr);
  while (s.ok() && key.starts_with(kRecheckPrefix)) {
    std::string_view fp = std::string_view(key).substr(kRecheckPrefix.size());
    uint64_t origin_fp = 0;
    if (!GetU64(&fp, &origin_fp) || !fp.empty()) {
      return Status::Corruption("undecodable robots re-check key");
    }
    rechecks_.insert(origin_fp);
    s = c.Next(&key, nullptr);
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  return c.Close();
}

Status FrontierImpl::MarkLegacyRechecks() {
  // A directory written before crawls had their own positions may hold a
  // re-check still pending in a policy record: it starts over in each
  // crawl (a re-check from the start only checks again).
  std::vector<uint64_t> pending;
  {
    bdb::Cursor cursor;
    Status s = cursor.Open(&robots_.db(), nullptr);
    std::string key, value;
    if (s.ok()) s = cursor.First(&key, &value);
    while (s.ok()) {
      PolicyRecord p;
      if (key.size() != 8 || !DecodePolicyRecord(value, &p)) {
        return Status::Corruption("undecodable robots policy record");
      }
      if (p.recheck) pending.push_back(Fingerprint(p.origin));
      s = cursor.Next(&key, &value);
    }
    if (!s.IsNotFound()) return s;
    s = cursor.Close();
    if (!s.ok()) return s;
  }
  // A replica gets the master's marks by replication.
  if (pending.empty() || !IsWritable()) return Status::OK();
  return RunWrite([&](DbTxn* t) {
    for (uint64_t origin_fp : pending) {
      PolicyRecord p;
      Status s = robots_.Load(t, origin_fp, &p);
      if (s.ok()) s = MarkRechecks(t, origin_fp);
      if (!s.ok()) return s;
      p.recheck = false;
      p.recheck_started = false;
      p.recheck_after = UrlKey();
      s = robots_.Store(t, origin_fp, p);
      if (!s.ok()) return s;
    }
    return Status::OK();
  });
}

}  // namespace frontier
