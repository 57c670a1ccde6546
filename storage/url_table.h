// UrlTable: U, the URL records (urls.db) by UrlKey: lookup, insert and
// rewrite of a UrlRecord inside a transaction (docs/design.md, "Storage's
// parts").
//
// Owned by FrontierImpl, which binds it to the write transaction of a verb
// or a pass (Bind .. CloseCursor): a rewrite of the record just read then
// overwrites it in place, no second search. It knows records and keys, not
// states, sites or crawls: whether a record counts as present (a URL of a
// site being deleted does not) is the caller's rule. Switching crawls
// swaps db() with the parked crawl's handle. Loop thread only.
#pragma once

#include <optional>
#include <string>

#include "storage/bdb.h"
#include "storage/records.h"
#include "storage/txn_cursor.h"
#include "util/status.h"

namespace frontier {

class UrlTable {
 public:
  // The database itself: opened, closed and swapped by FrontierImpl, and
  // read by scans with cursors of their own (see OpenScan).
  bdb::Database& db() { return db_; }

  // Binds the table's cursor to write transaction `txn`; CloseCursor()
  // must run before `txn` ends.
  void Bind(DbTxn* txn) {
    at_.reset();
    cursor_.Bind(txn);
  }
  Status CloseCursor() {
    at_.reset();
    return cursor_.Close();
  }

  // Reads the record at `key` inside `t` (may be null). NotFound if
  // absent, Corruption if its bytes do not decode.
  Status Load(DbTxn* t, const UrlKey& key, UrlRecord* rec);
  // Writes `rec` at `key` inside `t`, replacing any record there.
  Status Store(DbTxn* t, const UrlKey& key, const UrlRecord& rec);
  // Writes `rec` only if `key` is absent; *inserted says if it was. One
  // search where a Load and then a Store take two.
  Status Insert(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                bool* inserted);
  // Opens `c` on urls.db inside `t`, for a scan that may rewrite or
  // delete records through it: the table forgets where its own cursor
  // stands, so that its next Store searches again.
  Status OpenScan(DbTxn* t, bdb::Cursor* c) {
    at_.reset();
    return c->Open(&db_, t);
  }

 private:
  bdb::Database db_;
  TxnCursor cursor_;
  std::optional<UrlKey> at_;  // the key cursor_ stands on, if known
  std::string buf_;           // reused to encode the records written
};

}  // namespace frontier
