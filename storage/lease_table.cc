// LeaseTable (lease_table.h): live leases' deadlines in memory, with their
// journal entries and the undo of an aborted transaction.
#include "storage/lease_table.h"

#include <algorithm>

namespace frontier {

void LeaseTable::SaveForUndo(const UrlKey& key) {
  if (undo_.contains(key)) return;
  auto it = leases_.find(key);
  undo_.emplace(key, it == leases_.end() ? std::nullopt
                                         : std::optional<Lease>(it->second));
}

void LeaseTable::Put(const UrlKey& key, const Lease& lease) {
  auto [it, added] = leases_.try_emplace(key, lease);
  if (!added) {
    by_due_.erase({it->second.due_ms, key});
    it->second = lease;
  }
  by_due_.emplace(lease.due_ms, key);
}

void LeaseTable::Erase(Map::iterator it) {
  by_due_.erase({it->second.due_ms, it->first});
  leases_.erase(it);
}

bool LeaseTable::Add(const UrlKey& key, int64_t due_ms) {
  if (!on_ || leases_.size() >= kMax || leases_.contains(key)) return false;
  SaveForUndo(key);
  Put(key, Lease{due_ms, DB_LSN{}});
  journal_keys_.push_back(key);
  return true;
}

bool LeaseTable::Move(const UrlKey& key, int64_t due_ms) {
  auto it = leases_.find(key);
  if (it == leases_.end()) return false;
  SaveForUndo(key);
  Put(key, Lease{due_ms, DB_LSN{}});
  journal_keys_.push_back(key);
  return true;
}

bool LeaseTable::End(const UrlKey& key) {
  auto it = leases_.find(key);
  if (it == leases_.end()) return false;
  SaveForUndo(key);
  Erase(it);
  journal_keys_.push_back(key);
  return true;
}

void LeaseTable::Due(int64_t now_ms, size_t max,
                     std::vector<std::pair<int64_t, UrlKey>>* out) const {
  for (auto it = by_due_.begin();
       it != by_due_.end() && it->first <= now_ms && out->size() < max; ++it) {
    out->push_back(*it);
  }
}

void LeaseTable::TakeAll(std::vector<std::pair<int64_t, UrlKey>>* out) {
  out->insert(out->end(), by_due_.begin(), by_due_.end());
  for (const auto& [key, lease] : leases_) SaveForUndo(key);
  leases_.clear();
  by_due_.clear();
}

void LeaseTable::Replayed(const UrlKey& key, std::optional<int64_t> due_ms) {
  replayed_[key] = due_ms;
}

std::vector<std::pair<int64_t, UrlKey>> LeaseTable::TakeReplayed() {
  std::vector<std::pair<int64_t, UrlKey>> out;
  for (const auto& [key, due] : replayed_) {
    if (due) out.emplace_back(*due, key);
  }
  replayed_.clear();
  return out;
}

void LeaseTable::AppendEntries(std::string* payload) {
  // A key changed twice in one transaction is journaled once, as it is
  // now.
  std::sort(journal_keys_.begin(), journal_keys_.end(),
            [](const UrlKey& a, const UrlKey& b) {
              return a.host_fp != b.host_fp ? a.host_fp < b.host_fp
                                             : a.url_fp < b.url_fp;
            });
  journal_keys_.erase(
      std::unique(journal_keys_.begin(), journal_keys_.end()),
      journal_keys_.end());
  for (const UrlKey& key : journal_keys_) {
    auto it = leases_.find(key);
    if (it != leases_.end()) {
      journal::AppendLease(payload, key, it->second.due_ms);
    } else {
      journal::AppendLeaseEnd(payload, key);
    }
  }
}

void LeaseTable::Journaled(const DB_LSN& lsn) {
  for (const UrlKey& key : journal_keys_) {
    if (auto it = leases_.find(key); it != leases_.end()) it->second.lsn = lsn;
  }
  journal_keys_.clear();
}

std::optional<DB_LSN> LeaseTable::Oldest() const {
  std::optional<DB_LSN> oldest;
  for (const auto& [key, lease] : leases_) {
    // Not journaled yet: its record will come after every other.
    if (lease.lsn.file == 0) continue;
    if (!oldest || journal::Before(lease.lsn, *oldest)) oldest = lease.lsn;
  }
  return oldest;
}

void LeaseTable::Committed() {
  undo_.clear();
  journal_keys_.clear();
}

void LeaseTable::Aborted() {
  for (const auto& [key, before] : undo_) {
    if (before) {
      Put(key, *before);
    } else if (auto it = leases_.find(key); it != leases_.end()) {
      Erase(it);
    }
  }
  undo_.clear();
  journal_keys_.clear();
}

void LeaseTable::Forget() {
  on_ = false;
  leases_.clear();
  by_due_.clear();
  undo_.clear();
  journal_keys_.clear();
  replayed_.clear();
}

}  // namespace frontier
