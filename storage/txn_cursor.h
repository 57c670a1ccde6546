// TxnCursor: one database's cursor that lives for one write transaction.
//
// The tables FrontierImpl composes (UrlTable, SiteQueues, TimerTable,
// SiteTable) each keep one, bound to the transaction a verb or a pass
// writes in (FrontierImpl::BindCursors). Reusing it saves Berkeley DB a
// cursor per call, a rewrite of the record just read skips the search, and
// a dequeued head's successor is one step away. A call in any other
// transaction (the start's, a rollback's, none) uses the database itself.
//
// The cursor must be closed (Close()) before its transaction commits or
// aborts. Loop thread only.
#pragma once

#include "storage/bdb.h"
#include "util/status.h"

namespace frontier {

class TxnCursor {
 public:
  // From now on For(txn, ...) hands out the cursor. `txn` must stay open
  // until Close().
  void Bind(DbTxn* txn) { txn_ = txn; }
  // Sets *out to the cursor, opened on `db` at its first use, if `t` is the
  // bound transaction (not null); else to nullptr: the caller uses `db`
  // directly. An error opening it is returned with *out null.
  Status For(DbTxn* t, bdb::Database* db, bdb::Cursor** out) {
    *out = nullptr;
    if (t == nullptr || t != txn_) return Status::OK();
    if (!cursor_.is_open()) {
      Status s = cursor_.Open(db, t);
      if (!s.ok()) return s;
    }
    *out = &cursor_;
    return Status::OK();
  }
  // Closes the cursor (if opened) and unbinds it.
  Status Close() {
    txn_ = nullptr;
    return cursor_.Close();
  }

 private:
  DbTxn* txn_ = nullptr;
  bdb::Cursor cursor_;
};

}  // namespace frontier
