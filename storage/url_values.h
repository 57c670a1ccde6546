// UrlValues: the per-URL values (ADD ... DATA), in data.db under the URL's
// U key, apart from its record (docs/design.md, "Per-URL data").
//
// The records a crawl reads and writes on every verb stay as small as
// they were: a URL without a value costs one bit of its record
// (UrlRecord::has_data) and no access to data.db. The caller writes the
// value in the transaction that stores or changes the URL's record, and
// stores the record that Set() changed in that same transaction.
//
// Owned by FrontierImpl; switching crawls swaps db() with the parked
// crawl's handle. Loop thread only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "storage/bdb.h"
#include "storage/records.h"
#include "util/status.h"

namespace frontier {

class UrlValues {
 public:
  // The database itself: opened, closed and swapped by FrontierImpl.
  bdb::Database& db() { return db_; }

  // Makes `data` the value of the URL at `key` (nullopt: it has none)
  // inside `t`, and sets rec->has_data to match. A URL without a value
  // and none asked for costs nothing.
  Status Set(DbTxn* t, const UrlKey& key, UrlRecord* rec,
             std::optional<std::string_view> data);
  // The value of `rec` (at `key`) into *out, nullopt without one. Reads
  // data.db only when rec.has_data; Corruption if it is missing there or
  // does not decode.
  Status Load(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
              std::optional<std::string>* out);
  // Deletes the value of the URL at `key` inside `t`; OK if it had none.
  Status Delete(DbTxn* t, const UrlKey& key);
  // The check before any write: InvalidArgument, naming max-url-data, if
  // `data` is longer than `max_bytes`.
  static Status CheckSize(std::string_view data, size_t max_bytes);

 private:
  bdb::Database db_;
  std::string buf_;  // reused to encode the values written
};

}  // namespace frontier
