// LeaseTable: the deadlines of live leases held in memory instead of Qc
// (issue 19, step 3; docs/design.md, "Leases in memory"). Journal mode
// only (single node, one crawl): a lease's deadline rides in its
// transaction's site journal record (storage/journal.h) instead of a Qc
// insert at POP and a Qc delete at CONFIRM, FAIL, RELEASE or EXTEND.
//
// The URL's record in U stays the truth (state leased, due_ms its
// deadline); this table, like Qc, is the index that finds leases by
// deadline. A lease is either here or in Qc, never both: Add() refuses
// when the table is off or holds kMax leases (the caller writes Qc, as
// without the journal), and a lease that is in Qc stays there until it
// ends.
//
// Journal entries (journal::Part): each transaction's added, moved and
// ended leases, absolute (the deadline, or "not in memory"), so a replay
// that applies one twice changes nothing. Oldest() is the oldest record
// holding a live lease's current deadline: the replay point must not pass
// it. A lease whose record the replay point has to pass (a checkpoint,
// the journal's stop) is taken out (TakeAll) and written to Qc by the
// caller in the same transaction. A lease moved to Qc that then ends
// through Qc journals nothing, so a replay may name a lease that is no
// longer live: the open checks each against U (FrontierImpl::
// ReplayJournal).
//
// Changes inside a transaction are undone by Aborted(). Owned by the
// TimerTable (timer_table.h); its journal hooks are called by the
// SiteTable. Loop thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/journal.h"
#include "storage/records.h"

namespace frontier {

class LeaseTable final : public journal::Part {
 public:
  // The bound on leases held in memory; a POP past it writes Qc.
  static constexpr size_t kMax = size_t{1} << 16;

  // Turned on with journal mode (FrontierImpl::StartJournal); Forget()
  // turns it off.
  void Enable() { on_ = true; }
  bool on() const { return on_; }
  size_t size() const { return leases_.size(); }

  // Holds the lease of `key` with deadline `due_ms`: false (nothing done)
  // if off or full, or if the key is held already.
  bool Add(const UrlKey& key, int64_t due_ms);
  // Moves a held lease's deadline: false (nothing done) if not held.
  bool Move(const UrlKey& key, int64_t due_ms);
  // Ends a held lease: false (nothing done) if not held.
  bool End(const UrlKey& key);
  bool Holds(const UrlKey& key) const { return leases_.contains(key); }

  // The earliest deadline held, if any.
  std::optional<int64_t> min_due() const {
    if (by_due_.empty()) return std::nullopt;
    return by_due_.begin()->first;
  }
  // Up to `max` leases whose deadline is at or before `now_ms`, earliest
  // first, as (deadline, key); they stay held.
  void Due(int64_t now_ms, size_t max,
           std::vector<std::pair<int64_t, UrlKey>>* out) const;
  // Takes every held lease out (undone by Aborted()), as (deadline, key):
  // the caller writes them to Qc in the same transaction.
  void TakeAll(std::vector<std::pair<int64_t, UrlKey>>* out);

  // Replay at open, with the table off: the entries read, newest last.
  // `due_ms` nullopt: not in memory.
  void Replayed(const UrlKey& key, std::optional<int64_t> due_ms);
  // The leases the replay left held, as (deadline, key); the replay's
  // state is emptied.
  std::vector<std::pair<int64_t, UrlKey>> TakeReplayed();

  // journal::Part.
  bool HasEntries() const override { return !journal_keys_.empty(); }
  void AppendEntries(std::string* payload) override;
  void Journaled(const DB_LSN& lsn) override;
  std::optional<DB_LSN> Oldest() const override;
  void Committed() override;
  void Aborted() override;
  void Forget() override;

 private:
  struct KeyHash {
    size_t operator()(const UrlKey& k) const {
      return static_cast<size_t>(k.url_fp ^ (k.host_fp * 0x9e3779b97f4a7c15));
    }
  };
  struct Lease {
    int64_t due_ms = 0;
    DB_LSN lsn{};  // its journal record; file 0 until journaled
  };
  struct DueLess {
    bool operator()(const std::pair<int64_t, UrlKey>& a,
                    const std::pair<int64_t, UrlKey>& b) const {
      if (a.first != b.first) return a.first < b.first;
      if (a.second.host_fp != b.second.host_fp) {
        return a.second.host_fp < b.second.host_fp;
      }
      return a.second.url_fp < b.second.url_fp;
    }
  };
  using Map = std::unordered_map<UrlKey, Lease, KeyHash>;

  // Remembers the state of `key` before the transaction's first change.
  void SaveForUndo(const UrlKey& key);
  void Put(const UrlKey& key, const Lease& lease);
  void Erase(Map::iterator it);

  bool on_ = false;
  Map leases_;
  std::set<std::pair<int64_t, UrlKey>, DueLess> by_due_;
  // The open transaction: each changed key's state before it, and the
  // keys a verb changed and not yet journaled.
  std::unordered_map<UrlKey, std::optional<Lease>, KeyHash> undo_;
  std::vector<UrlKey> journal_keys_;
  std::unordered_map<UrlKey, std::optional<int64_t>, KeyHash> replayed_;
};

}  // namespace frontier
