// TimerTable: Qc, the URLs waiting for a time (timers.db, keyed by due
// time and UrlKey): leases that expire, retries and recrawls that fall
// due (docs/design.md, "Storage's parts").
//
// Beside the entries it keeps a lower bound on the earliest due time, so
// that Tick and HasReady read Qc only when something may be due: exact
// after LoadMin() and after a Tick (set_min), lowered by every Add();
// removing an entry leaves it early, which costs one Tick that finds
// nothing. nullopt means Qc is empty.
//
// Leases (journal mode): a live lease's deadline is held in memory by the
// LeaseTable (lease_table.h) rather than in Qc while it can be; the Lease
// calls below pick the place, and min() covers both.
//
// Owned by FrontierImpl, which binds the cursor to a write transaction
// (Bind .. CloseCursor), puts the bound back when a transaction aborts
// (min/set_min) and swaps db() and the bound with a parked crawl's when
// switching crawls (SwapMin). Loop thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "storage/bdb.h"
#include "storage/lease_table.h"
#include "storage/records.h"
#include "storage/txn_cursor.h"
#include "util/status.h"

namespace frontier {

class TimerTable {
 public:
  // The database itself: opened, closed and swapped by FrontierImpl, and
  // walked in due order by Tick with a cursor of its own.
  bdb::Database& db() { return db_; }
  void Bind(DbTxn* txn) { cursor_.Bind(txn); }
  Status CloseCursor() { return cursor_.Close(); }

  // Adds the entry (due_ms, key) inside `t`.
  Status Add(DbTxn* t, int64_t due_ms, const UrlKey& key);
  // Deletes the entry (due_ms, key) inside `t`; NotFound if absent.
  Status Remove(DbTxn* t, int64_t due_ms, const UrlKey& key);

  // A lease of `key` ending at `due_ms` starts: held in memory if the
  // lease table takes it, else added to Qc.
  Status AddLease(DbTxn* t, int64_t due_ms, const UrlKey& key);
  // The lease of `key` (deadline `due_ms`) moves to `new_due_ms`, where it
  // is (memory or Qc).
  Status MoveLease(DbTxn* t, int64_t due_ms, int64_t new_due_ms,
                   const UrlKey& key);
  // The lease of `key` (deadline `due_ms`) ends, where it is; NotFound if
  // in neither place.
  Status EndLease(DbTxn* t, int64_t due_ms, const UrlKey& key);
  // Every lease held in memory goes to Qc inside `t` (undone if `t`
  // aborts): before the journal's replay point passes their records.
  Status SpillLeases(DbTxn* t);
  LeaseTable& leases() { return leases_; }

  // The lower bound on the earliest due time (see above), the leases in
  // memory included.
  std::optional<int64_t> min() const {
    const std::optional<int64_t> leases = leases_.min_due();
    if (!leases) return min_;
    return min_ && *min_ < *leases ? min_ : leases;
  }
  void set_min(std::optional<int64_t> min) { min_ = min; }
  void SwapMin(std::optional<int64_t>* other) { std::swap(min_, *other); }
  // Makes min() exact: the due time of Qc's first entry, read inside `t`.
  Status LoadMin(DbTxn* t);

 private:
  bdb::Database db_;
  TxnCursor cursor_;
  std::optional<int64_t> min_;  // Qc's
  LeaseTable leases_;
};

}  // namespace frontier
