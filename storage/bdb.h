// Thin RAII wrappers over Berkeley DB's C++ API, opened with
// DB_CXX_NO_EXCEPTIONS: every return code becomes a Status here, so no
// Berkeley DB exception or error code leaves storage/.
#pragma once

#include <db_cxx.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace frontier::bdb {

// Turns a Berkeley DB return code into a Status naming `what` failed.
// DB_LOCK_DEADLOCK becomes Busy; DB_REP_HANDLE_DEAD (a replication
// rollback invalidated the database handles) Busy too, and counted in
// HandlesDead(); DB_RUNRECOVERY and everything else IOError.
Status FromDb(int rc, std::string_view what);

// How many calls have returned DB_REP_HANDLE_DEAD in this process: the
// frontier reopens its handles when the count moves
// (FrontierImpl::ReopenDeadHandles). Any thread.
uint64_t HandlesDead();

// Fails unless the library found at run time has the major.minor version of
// the db_cxx.h this was compiled against.
Status CheckVersion();

struct EnvDeleter {
  void operator()(DbEnv* env) const;  // closes, then deletes
};
using EnvPtr = std::unique_ptr<DbEnv, EnvDeleter>;

// One database (a file in the environment). Closed on destruction.
class Database {
 public:
  Database() = default;
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Opens (creating) `file` as a B-tree inside `env`, in its own
  // transaction. `env` must outlive this object.
  Status Open(DbEnv* env, const char* file, uint32_t page_size);
  // The same inside transaction `txn` (not null): creating the file
  // commits or aborts with it. After an abort the handle must be closed.
  Status OpenIn(DbEnv* env, DbTxn* txn, const char* file, uint32_t page_size);
  // Exchanges the two handles (open or not), so that a set of databases
  // can be parked and brought back (the crawls, frontier_crawls.cc).
  void Swap(Database& other) noexcept {
    db_.swap(other.db_);
    name_.swap(other.name_);
    buf_.swap(other.buf_);
  }
  Status Close();
  // Closes without writing the cache's dirty pages to the file: for an
  // environment that is discarded and then recovered from its log.
  Status CloseWithoutSync();

  // Reads `key` into *value. Returns NotFound if absent. Without `txn`
  // the read holds no other lock, so a deadlock (with replication, against
  // the threads applying the master's log) is retried a few times before
  // it is returned (Busy).
  Status Get(DbTxn* txn, std::string_view key, std::string* value);
  Status Put(DbTxn* txn, std::string_view key, std::string_view value);
  // Puts `key` only if it is absent: *inserted says whether it was. One
  // B-tree search, where a Get and then a Put take two.
  Status Insert(DbTxn* txn, std::string_view key, std::string_view value,
                bool* inserted);
  // Deletes `key`; NotFound if it was absent.
  Status Delete(DbTxn* txn, std::string_view key);

  Db* db() { return db_.get(); }

 private:
  std::unique_ptr<Db> db_;
  std::string name_;
  std::string buf_;  // reused for every read
};

// A transaction that aborts unless Commit() succeeded.
class Txn {
 public:
  Txn() = default;
  ~Txn() { Abort(); }
  Txn(Txn&& other) noexcept : txn_(other.txn_) { other.txn_ = nullptr; }
  Txn& operator=(Txn&&) = delete;
  Txn(const Txn&) = delete;

  Status Begin(DbEnv* env);
  // Commits with the environment's sync policy. The handle is spent either
  // way; on failure the transaction is aborted.
  Status Commit(u_int32_t flags = 0);
  void Abort();
  DbTxn* get() const { return txn_; }

 private:
  DbTxn* txn_ = nullptr;
};

// A cursor over one database inside one transaction; closed on destruction.
// Keys and values it returns are copied into the strings given.
class Cursor {
 public:
  Cursor() = default;
  ~Cursor();
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  Status Open(Database* db, DbTxn* txn);
  bool is_open() const { return cursor_ != nullptr; }
  // Closes the cursor (a transaction's cursors must be closed before it
  // commits or aborts). Safe to call when not open.
  Status Close();
  // Positions at exactly `key` and reads its value. NotFound if absent;
  // the position is then undefined.
  Status Find(std::string_view key, std::string* value);
  // Inserts or overwrites `key` and positions there.
  Status Put(std::string_view key, std::string_view value);
  // Overwrites the value of the record under the cursor: no search.
  Status PutCurrent(std::string_view value);
  // Positions at the first key >= `key`. NotFound at the end.
  Status Seek(std::string_view key, std::string* found_key, std::string* value);
  Status First(std::string* key, std::string* value);
  Status Next(std::string* key, std::string* value);
  // Deletes the record under the cursor.
  Status DeleteCurrent();

 private:
  friend class BulkScan;
  Status Read(u_int32_t flags, std::string* key, std::string* value);
  Dbc* cursor_ = nullptr;
  std::string key_buf_, value_buf_;  // reused for every read
};

// Reads a whole database in key order, many records per Berkeley DB call
// (DB_MULTIPLE_KEY into a buffer of its own): a plain cursor's DB_NEXT
// costs about 2,000 instructions a record, most of it the library's
// per-call cursor duplication. For passes over every record, such as the
// start's over sites.db. Close it before its transaction ends.
class BulkScan {
 public:
  explicit BulkScan(size_t buffer_bytes = 1 << 20) : buf_(buffer_bytes) {}
  Status Open(Database* db, DbTxn* txn) { return cursor_.Open(db, txn); }
  Status Close() { return cursor_.Close(); }
  // The next record; NotFound after the last. The views stay valid until
  // the next call. A record larger than the buffer grows the buffer.
  Status Next(std::string_view* key, std::string_view* value);
  // Starts again at the first key >= `key`: the next Next() returns it,
  // and the records after it follow, a batch at a time.
  void Seek(std::string_view key);

 private:
  Cursor cursor_;
  std::vector<char> buf_;
  std::string seek_;      // the key of a pending Seek()
  std::string seek_buf_;  // its copy that DB_SET_RANGE may overwrite
  size_t key_room_ = 0;   // the largest key DB_SET_RANGE asked room for
  bool seeking_ = false;
  Dbt batch_;  // the last batch read into buf_
  std::unique_ptr<DbMultipleKeyDataIterator> it_;
  bool started_ = false;
  bool ended_ = false;
};

}  // namespace frontier::bdb
