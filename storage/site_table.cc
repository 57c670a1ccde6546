// SiteTable (site_table.h): site records read through the dirty set and
// the cache, and written once per transaction.
#include "storage/site_table.h"

#include <utility>

#include "storage/txn_body.h"

namespace frontier {

Status SiteTable::Load(DbTxn* t, uint64_t site_fp, SiteRecord* rec) {
  if (auto it = dirty_.find(site_fp); it != dirty_.end()) {
    *rec = it->second;
    return Status::OK();
  }
  if (auto it = cache_.find(site_fp); it != cache_.end()) {
    *rec = it->second;
    return Status::OK();
  }
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  std::string value;
  s = c != nullptr ? c->Find(EncodeSiteKey(site_fp), &value)
                   : db_.Get(t, EncodeSiteKey(site_fp), &value);
  if (!s.ok()) return s;
  if (!DecodeSiteRecord(value, rec)) {
    return Status::Corruption("undecodable site record");
  }
  Remember(site_fp, *rec);
  return Status::OK();
}

Status SiteTable::WriteDirty(DbTxn* t, const Complete& complete) {
  Status s;
  if (!dirty_.empty()) {
    bdb::Cursor* c = nullptr;
    s = cursor_.For(t, &db_, &c);
    for (auto& [site_fp, rec] : dirty_) {
      if (!s.ok()) break;
      s = complete(site_fp, &rec);
      if (!s.ok()) break;
      EncodeSiteRecord(rec, &buf_);
      s = c != nullptr ? c->Put(EncodeSiteKey(site_fp), buf_)
                       : db_.Put(t, EncodeSiteKey(site_fp), buf_);
    }
    // Cached only once written: an aborted transaction leaves the cache
    // as the disk is.
    if (s.ok()) {
      for (auto& [site_fp, rec] : dirty_) Remember(site_fp, std::move(rec));
    }
  }
  DropDirty();
  return s;
}

void SiteTable::DropDirty() { ResetPerTransaction(&dirty_); }

}  // namespace frontier
