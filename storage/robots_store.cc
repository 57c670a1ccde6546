// RobotsStore (robots_store.h): policy records read through the cache and
// written through it.
#include "storage/robots_store.h"

#include <string>

namespace frontier {

Status RobotsStore::Load(DbTxn* t, uint64_t origin_fp, PolicyRecord* rec) {
  if (auto it = cache_.find(origin_fp); it != cache_.end()) {
    *rec = it->second;
    return Status::OK();
  }
  std::string value;
  Status s = db_.Get(t, EncodePolicyKey(origin_fp), &value);
  if (!s.ok()) return s;
  if (!DecodePolicyRecord(value, rec)) {
    return Status::Corruption("undecodable robots policy record");
  }
  Remember(origin_fp, *rec);
  return Status::OK();
}

Status RobotsStore::LoadOrNew(DbTxn* t, std::string_view origin,
                              uint64_t origin_fp, PolicyRecord* rec) {
  Status s = Load(t, origin_fp, rec);
  if (!s.IsNotFound()) return s;
  *rec = PolicyRecord();
  rec->origin.assign(origin);
  return Status::OK();
}

Status RobotsStore::Store(DbTxn* t, uint64_t origin_fp,
                          const PolicyRecord& rec) {
  Status s = db_.Put(t, EncodePolicyKey(origin_fp), EncodePolicyRecord(rec));
  if (!s.ok()) return s;
  Remember(origin_fp, rec);
  return Status::OK();
}

Status RobotsStore::Delete(DbTxn* t, uint64_t origin_fp) {
  cache_.erase(origin_fp);
  Status s = db_.Delete(t, EncodePolicyKey(origin_fp));
  return s.IsNotFound() ? Status::OK() : s;
}

void RobotsStore::Remember(uint64_t origin_fp, const PolicyRecord& rec) {
  if (cache_.size() >= kCacheMax) cache_.clear();
  cache_[origin_fp] = rec;
}

}  // namespace frontier
