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
// Owned by FrontierImpl, which binds the cursor to a write transaction
// (Bind .. CloseCursor), puts the bound back when a transaction aborts
// (min/set_min) and swaps db() and the bound with a parked crawl's when
// switching crawls (SwapMin). Loop thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "storage/bdb.h"
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

  // The lower bound on the earliest due time (see above).
  std::optional<int64_t> min() const { return min_; }
  void set_min(std::optional<int64_t> min) { min_ = min; }
  void SwapMin(std::optional<int64_t>* other) { std::swap(min_, *other); }
  // Makes min() exact: the due time of Qc's first entry, read inside `t`.
  Status LoadMin(DbTxn* t);

 private:
  bdb::Database db_;
  TxnCursor cursor_;
  std::optional<int64_t> min_;
};

}  // namespace frontier
