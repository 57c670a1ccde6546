// SiteTable (site_table.h): site records read through the dirty set and
// the cache, and written once per transaction.
#include "storage/site_table.h"

#include <algorithm>
#include <utility>

#include "storage/journal.h"
#include "storage/txn_body.h"

namespace frontier {

namespace {

bool SameLsn(const DB_LSN& a, const DB_LSN& b) {
  return a.file == b.file && a.offset == b.offset;
}

}  // namespace

Status SiteTable::Load(DbTxn* t, uint64_t site_fp, SiteRecord* rec) {
  if (auto it = dirty_.find(site_fp); it != dirty_.end()) {
    *rec = it->second;
    return Status::OK();
  }
  if (journal_on()) {
    if (erased_.contains(site_fp)) return Status::NotFound("site erased");
    if (auto it = staged_.find(site_fp); it != staged_.end()) {
      if (it->second.erased) return Status::NotFound("site erased");
      *rec = it->second.rec;
      return Status::OK();
    }
    if (auto it = pending_.find(site_fp); it != pending_.end()) {
      if (it->second.erased) return Status::NotFound("site erased");
      *rec = it->second.rec;
      return Status::OK();
    }
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
  if (journal_on()) return JournalDirty(t, complete);
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

void SiteTable::DropDirty() {
  ResetPerTransaction(&dirty_);
  erased_.clear();
}

Status SiteTable::JournalDirty(DbTxn* t, const Complete& complete) {
  Status s;
  for (auto& [site_fp, rec] : dirty_) {
    s = complete(site_fp, &rec);
    if (!s.ok()) break;
  }
  const bool part_entries = part_ != nullptr && part_->HasEntries();
  if (s.ok() && (!dirty_.empty() || !erased_.empty() || part_entries)) {
    payload_.clear();
    for (const auto& [site_fp, rec] : dirty_) {
      journal::AppendRecord(&payload_, site_fp, rec, &buf_);
    }
    for (uint64_t site_fp : erased_) journal::AppendErased(&payload_, site_fp);
    if (part_entries) part_->AppendEntries(&payload_);
    DB_LSN lsn{};
    s = journal::Put(env_, t, payload_, &lsn);
    if (s.ok() && part_entries) part_->Journaled(lsn);
    auto stage = [&](uint64_t site_fp, SiteRecord&& rec, bool erased) {
      auto [it, fresh] = staged_.try_emplace(site_fp);
      it->second.rec = std::move(rec);
      it->second.erased = erased;
      // The txn's first record of it since it was last written back.
      if (fresh || it->second.written) it->second.lsn = lsn;
      it->second.written = false;
    };
    if (s.ok()) {
      for (auto& [site_fp, rec] : dirty_) stage(site_fp, std::move(rec), false);
      for (uint64_t site_fp : erased_) stage(site_fp, SiteRecord(), true);
    }
  }
  DropDirty();
  // The bound: the oldest pending records go to sites.db in this
  // transaction, as they would have without the journal.
  if (s.ok() && pending_.size() + staged_.size() > kPendingMax) {
    s = WriteBack(t, kForcedSlice, /*all=*/false);
  }
  return s;
}

Status SiteTable::WriteBack(DbTxn* t, size_t max, bool all) {
  if (!journal_on()) return Status::OK();
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  auto write = [&](uint64_t site_fp, const SiteRecord& rec, bool erased) {
    if (erased) {
      Status d = db_.Delete(t, EncodeSiteKey(site_fp));
      return d.IsNotFound() ? Status::OK() : d;
    }
    EncodeSiteRecord(rec, &buf_);
    return c != nullptr ? c->Put(EncodeSiteKey(site_fp), buf_)
                        : db_.Put(t, EncodeSiteKey(site_fp), buf_);
  };
  // Is order_[i] a pending site's current entry?
  auto live = [&](size_t i) {
    auto it = pending_.find(order_[i].second);
    return it != pending_.end() && SameLsn(it->second.first, order_[i].first);
  };
  size_t n = 0;
  while (s.ok() && consumed_ < order_.size()) {
    if (!live(consumed_)) {
      ++consumed_;
      continue;
    }
    if (!all && n >= max) break;
    const uint64_t site_fp = order_[consumed_].second;
    const Pending& p = pending_.at(site_fp);
    s = write(site_fp, p.rec, p.erased);
    if (!s.ok()) break;
    written_.push_back(site_fp);
    ++n;
    ++consumed_;
  }
  if (s.ok() && all) {
    for (auto& [site_fp, st] : staged_) {
      if (st.written) continue;
      s = write(site_fp, st.rec, st.erased);
      if (!s.ok()) break;
      st.written = true;
    }
  }
  if (!s.ok()) return s;
  // The new replay point: the oldest pending site's first record after
  // this transaction, or, if none is left, a record of this transaction
  // (every later journal record comes after it).
  std::optional<DB_LSN> from;
  if (consumed_ < order_.size()) from = order_[consumed_].first;
  for (const auto& [site_fp, st] : staged_) {
    if (st.written) continue;
    if (!from || journal::Before(st.lsn, *from)) from = st.lsn;
  }
  // The other table's oldest record still needed.
  if (part_ != nullptr) {
    if (const std::optional<DB_LSN> held = part_->Oldest();
        held && (!from || journal::Before(*held, *from))) {
      from = held;
    }
  }
  if (!from) {
    DB_LSN marker{};
    s = journal::Put(env_, t, {}, &marker);
    if (!s.ok()) return s;
    from = marker;
  }
  staged_from_ = from;
  return meta_->Put(t, "journal_from", journal::EncodeLsn(*from));
}

void SiteTable::Committed() {
  for (uint64_t site_fp : written_) {
    auto it = pending_.find(site_fp);
    if (it == pending_.end()) continue;
    if (it->second.erased) {
      cache_.erase(site_fp);
    } else {
      Remember(site_fp, std::move(it->second.rec));
    }
    pending_.erase(it);
  }
  order_.erase(order_.begin(),
               order_.begin() + static_cast<std::ptrdiff_t>(consumed_));
  std::vector<std::pair<DB_LSN, uint64_t>> fresh;
  for (auto& [site_fp, st] : staged_) {
    if (st.written) {
      pending_.erase(site_fp);
      if (st.erased) {
        cache_.erase(site_fp);
      } else {
        Remember(site_fp, std::move(st.rec));
      }
      continue;
    }
    auto [it, added] = pending_.try_emplace(site_fp);
    it->second.rec = std::move(st.rec);
    it->second.erased = st.erased;
    if (added) {
      it->second.first = st.lsn;
      fresh.emplace_back(st.lsn, site_fp);
    }
  }
  // Oldest first, so that order_'s front is the replay point.
  std::sort(fresh.begin(), fresh.end(), [](const auto& a, const auto& b) {
    return journal::Before(a.first, b.first);
  });
  order_.insert(order_.end(), fresh.begin(), fresh.end());
  if (staged_from_) from_ = staged_from_;
  if (part_ != nullptr) part_->Committed();
  ResetTxn();
}

void SiteTable::DisableJournal() {
  env_ = nullptr;
  meta_ = nullptr;
  ResetTxn();
  if (part_ != nullptr) part_->Forget();
  pending_.clear();
  order_.clear();
  from_.reset();
}

void SiteTable::Aborted() {
  if (part_ != nullptr) part_->Aborted();
  ResetTxn();
}

void SiteTable::ResetTxn() {
  ResetPerTransaction(&staged_);
  written_.clear();
  consumed_ = 0;
  staged_from_.reset();
}

void SiteTable::Replayed(uint64_t site_fp, const SiteRecord* rec) {
  auto [it, added] = pending_.try_emplace(site_fp);
  it->second.erased = rec == nullptr;
  it->second.rec = rec != nullptr ? *rec : SiteRecord();
  if (added) order_.emplace_back(it->second.first, site_fp);
}

const SiteRecord* SiteTable::Unsettled(uint64_t site_fp, bool* erased) const {
  *erased = false;
  if (!journal_on()) return nullptr;
  if (auto it = staged_.find(site_fp); it != staged_.end()) {
    *erased = it->second.erased;
    return &it->second.rec;
  }
  if (auto it = pending_.find(site_fp); it != pending_.end()) {
    *erased = it->second.erased;
    return &it->second.rec;
  }
  return nullptr;
}

std::vector<uint64_t> SiteTable::UnsettledFrom(uint64_t from) const {
  std::vector<uint64_t> out;
  if (!journal_on()) return out;
  for (const auto& [site_fp, p] : pending_) {
    if (site_fp >= from) out.push_back(site_fp);
  }
  for (const auto& [site_fp, st] : staged_) {
    if (site_fp >= from && !pending_.contains(site_fp)) out.push_back(site_fp);
  }
  return out;
}

}  // namespace frontier
