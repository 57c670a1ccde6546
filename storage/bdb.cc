#include "storage/bdb.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

namespace frontier::bdb {

namespace {
Dbt MakeDbt(std::string_view s) {
  // Berkeley DB never writes through an input Dbt; the cast is safe.
  return Dbt(const_cast<char*>(s.data()), static_cast<u_int32_t>(s.size()));
}
// Reads land in buffers the wrappers own and reuse (DB_DBT_USERMEM), so a
// record stays valid after the next call on the handle and no read
// allocates once the buffers have grown to the largest record seen.
constexpr size_t kInitialReadBuffer = 256;

Dbt UserMem(std::string* buf) {
  if (buf->size() < kInitialReadBuffer) buf->resize(kInitialReadBuffer);
  Dbt d(buf->data(), 0);
  d.set_ulen(static_cast<u_int32_t>(buf->size()));
  d.set_flags(DB_DBT_USERMEM);
  return d;
}

// Runs `read` with user-memory Dbts, growing the buffers once if a record
// is larger than they are.
template <typename ReadFn>
int ReadGrowing(std::string* kbuf, std::string* vbuf, Dbt* k, Dbt* v,
                ReadFn read) {
  int rc = read();
  if (rc == DB_BUFFER_SMALL) {
    if (kbuf != nullptr && k->get_size() > k->get_ulen()) {
      kbuf->resize(k->get_size());
      k->set_data(kbuf->data());
      k->set_ulen(static_cast<u_int32_t>(kbuf->size()));
    }
    if (v->get_size() > v->get_ulen()) {
      vbuf->resize(v->get_size());
      v->set_data(vbuf->data());
      v->set_ulen(static_cast<u_int32_t>(vbuf->size()));
    }
    rc = read();
  }
  return rc;
}

// A handle that is not open: the environment was closed after a failed
// reopen (Frontier::RetryWrites) or by Close().
Status NotOpen(std::string_view what) {
  return Status::IOError(std::string(what) + " is not open");
}

void Assign(const Dbt& dbt, std::string* out) {
  if (out != nullptr) {
    out->assign(static_cast<const char*>(dbt.get_data()), dbt.get_size());
  }
}
}  // namespace

namespace {
std::atomic<uint64_t> handles_dead{0};
}  // namespace

uint64_t HandlesDead() { return handles_dead.load(); }

Status FromDb(int rc, std::string_view what) {
  if (rc == 0) return Status::OK();
  std::string msg(what);
  msg += ": ";
  msg += DbEnv::strerror(rc);
  if (rc == DB_NOTFOUND || rc == DB_KEYEMPTY) return Status::NotFound(msg);
  // DB_REP_LOCKOUT: a replica's call met the Replication Manager's
  // lock-out (Replicator::FollowRole); it passes within moments.
  if (rc == DB_LOCK_DEADLOCK || rc == DB_LOCK_NOTGRANTED ||
      rc == DB_REP_LOCKOUT) {
    return Status::Busy(msg);
  }
  if (rc == DB_REP_HANDLE_DEAD) {
    handles_dead.fetch_add(1);
    return Status::Busy(msg + " (the handles are being reopened: retry)");
  }
  if (rc == DB_RUNRECOVERY) {
    return Status::IOError(msg + " (restart the server to run recovery)");
  }
  return Status::IOError(msg);
}

Status CheckVersion() {
  int major = 0, minor = 0, patch = 0;
  DbEnv::version(&major, &minor, &patch);
  if (major != DB_VERSION_MAJOR || minor != DB_VERSION_MINOR) {
    return Status::IOError(
        "Berkeley DB library version " + std::to_string(major) + "." +
        std::to_string(minor) + " does not match the headers' " +
        std::to_string(DB_VERSION_MAJOR) + "." +
        std::to_string(DB_VERSION_MINOR));
  }
  return Status::OK();
}

void EnvDeleter::operator()(DbEnv* env) const {
  if (env != nullptr) {
    env->close(0);
    delete env;
  }
}

Database::~Database() { Close(); }

Status Database::Open(DbEnv* env, const char* file, uint32_t page_size) {
  return OpenIn(env, nullptr, file, page_size);
}

Status Database::OpenIn(DbEnv* env, DbTxn* txn, const char* file,
                        uint32_t page_size) {
  name_ = file;
  db_ = std::make_unique<Db>(env, DB_CXX_NO_EXCEPTIONS);
  if (page_size != 0) {
    Status s = FromDb(db_->set_pagesize(page_size), name_ + ": set_pagesize");
    if (!s.ok()) return s;
  }
  return FromDb(
      db_->open(txn, file, nullptr, DB_BTREE,
                DB_CREATE | (txn == nullptr ? DB_AUTO_COMMIT : 0u), 0644),
      "open " + name_);
}

Status Database::Close() {
  if (!db_) return Status::OK();
  int rc = db_->close(0);
  db_.reset();
  return FromDb(rc, "close " + name_);
}

Status Database::CloseWithoutSync() {
  if (!db_) return Status::OK();
  int rc = db_->close(DB_NOSYNC);
  db_.reset();
  return FromDb(rc, "close " + name_);
}

Status Database::Get(DbTxn* txn, std::string_view key, std::string* value) {
  if (!db_) return NotOpen(name_);
  Dbt k = MakeDbt(key);
  Dbt v = UserMem(&buf_);
  constexpr int kDeadlockRetries = 10;
  int rc = 0;
  for (int attempt = 0; attempt <= kDeadlockRetries; ++attempt) {
    rc = ReadGrowing(nullptr, &buf_, &k, &v,
                     [&] { return db_->get(txn, &k, &v, 0); });
    if (rc != DB_LOCK_DEADLOCK || txn != nullptr) break;
  }
  if (rc == 0) Assign(v, value);
  return FromDb(rc, name_ + ": get");
}

Status Database::Put(DbTxn* txn, std::string_view key,
                     std::string_view value) {
  if (!db_) return NotOpen(name_);
  Dbt k = MakeDbt(key);
  Dbt v = MakeDbt(value);
  return FromDb(db_->put(txn, &k, &v, 0), name_ + ": put");
}

Status Database::Insert(DbTxn* txn, std::string_view key,
                        std::string_view value, bool* inserted) {
  *inserted = false;
  if (!db_) return NotOpen(name_);
  Dbt k = MakeDbt(key);
  Dbt v = MakeDbt(value);
  const int rc = db_->put(txn, &k, &v, DB_NOOVERWRITE);
  if (rc == DB_KEYEXIST) return Status::OK();
  *inserted = rc == 0;
  return FromDb(rc, "insert");
}

Status Database::Delete(DbTxn* txn, std::string_view key) {
  if (!db_) return NotOpen(name_);
  Dbt k = MakeDbt(key);
  return FromDb(db_->del(txn, &k, 0), name_ + ": delete");
}

Status Txn::Begin(DbEnv* env) {
  Abort();
  if (env == nullptr) return NotOpen("environment");
  return FromDb(env->txn_begin(nullptr, &txn_, 0), "txn_begin");
}

Status Txn::Commit(u_int32_t flags) {
  DbTxn* t = txn_;
  txn_ = nullptr;
  if (t == nullptr) return Status::IOError("commit: no transaction");
  // DbTxn::commit frees the handle whatever it returns.
  return FromDb(t->commit(flags), "txn commit");
}

void Txn::Abort() {
  if (txn_ != nullptr) {
    txn_->abort();
    txn_ = nullptr;
  }
}

Cursor::~Cursor() { (void)Close(); }

Status Cursor::Close() {
  if (cursor_ == nullptr) return Status::OK();
  int rc = cursor_->close();
  cursor_ = nullptr;
  return FromDb(rc, "cursor close");
}

Status Cursor::Find(std::string_view key, std::string* value) {
  Dbt k = MakeDbt(key);
  Dbt v = UserMem(&value_buf_);
  int rc = ReadGrowing(nullptr, &value_buf_, &k, &v,
                       [&] { return cursor_->get(&k, &v, DB_SET); });
  if (rc == 0) Assign(v, value);
  return FromDb(rc, "cursor find");
}

Status Cursor::Put(std::string_view key, std::string_view value) {
  Dbt k = MakeDbt(key);
  Dbt v = MakeDbt(value);
  return FromDb(cursor_->put(&k, &v, DB_KEYFIRST), "cursor put");
}

Status Cursor::PutCurrent(std::string_view value) {
  Dbt k;
  Dbt v = MakeDbt(value);
  return FromDb(cursor_->put(&k, &v, DB_CURRENT), "cursor put");
}

Status Cursor::Open(Database* db, DbTxn* txn) {
  if (db->db() == nullptr) return NotOpen("database");
  return FromDb(db->db()->cursor(txn, &cursor_, 0), "cursor");
}

Status Cursor::Read(u_int32_t flags, std::string* key, std::string* value) {
  Dbt k = UserMem(&key_buf_);
  Dbt v = UserMem(&value_buf_);
  int rc = ReadGrowing(&key_buf_, &value_buf_, &k, &v,
                       [&] { return cursor_->get(&k, &v, flags); });
  if (rc == 0) {
    Assign(k, key);
    Assign(v, value);
  }
  return FromDb(rc, "cursor get");
}

Status Cursor::Seek(std::string_view key, std::string* found_key,
                    std::string* value) {
  // DB_SET_RANGE reads the search key from the Dbt and writes the found key
  // back into it, so the key is copied into the reusable buffer first.
  Dbt k, v;
  auto setup = [&] {
    if (key_buf_.size() < std::max(key.size(), kInitialReadBuffer)) {
      key_buf_.resize(std::max(key.size(), kInitialReadBuffer));
    }
    std::memcpy(key_buf_.data(), key.data(), key.size());
    k = Dbt(key_buf_.data(), static_cast<u_int32_t>(key.size()));
    k.set_ulen(static_cast<u_int32_t>(key_buf_.size()));
    k.set_flags(DB_DBT_USERMEM);
    v = UserMem(&value_buf_);
  };
  setup();
  int rc = cursor_->get(&k, &v, DB_SET_RANGE);
  if (rc == DB_BUFFER_SMALL) {
    key_buf_.resize(std::max<size_t>(key_buf_.size(), k.get_size()));
    value_buf_.resize(std::max<size_t>(value_buf_.size(), v.get_size()));
    setup();
    rc = cursor_->get(&k, &v, DB_SET_RANGE);
  }
  if (rc == 0) {
    Assign(k, found_key);
    Assign(v, value);
  }
  return FromDb(rc, "cursor seek");
}

Status Cursor::First(std::string* key, std::string* value) {
  return Read(DB_FIRST, key, value);
}

Status Cursor::Next(std::string* key, std::string* value) {
  return Read(DB_NEXT, key, value);
}

Status Cursor::DeleteCurrent() {
  return FromDb(cursor_->del(0), "cursor delete");
}

void BulkScan::Seek(std::string_view key) {
  seek_.assign(key);
  it_.reset();
  seeking_ = true;
}

Status BulkScan::Next(std::string_view* key, std::string_view* value) {
  for (;;) {
    if (it_) {
      Dbt k, v;
      if (it_->next(k, v)) {
        *key = std::string_view(static_cast<const char*>(k.get_data()),
                                k.get_size());
        *value = std::string_view(static_cast<const char*>(v.get_data()),
                                  v.get_size());
        return Status::OK();
      }
      it_.reset();
    }
    if (ended_ && !seeking_) return Status::NotFound("end of database");
    if (cursor_.cursor_ == nullptr) return NotOpen("bulk scan");
    Dbt k;
    if (seeking_) {
      // DB_SET_RANGE reads its key from here and may write the key found
      // back: a copy, in a buffer with room for any key.
      seek_buf_.assign(seek_);
      seek_buf_.resize(std::max({seek_.size() * 2, kInitialReadBuffer,
                                 key_room_}));
      k = Dbt(seek_buf_.data(), static_cast<u_int32_t>(seek_.size()));
      k.set_ulen(static_cast<u_int32_t>(seek_buf_.size()));
      k.set_flags(DB_DBT_USERMEM);
    }
    batch_ = Dbt(buf_.data(), static_cast<u_int32_t>(buf_.size()));
    batch_.set_ulen(static_cast<u_int32_t>(buf_.size()));
    batch_.set_flags(DB_DBT_USERMEM);
    const u_int32_t position =
        seeking_ ? DB_SET_RANGE : (started_ ? DB_NEXT : DB_FIRST);
    int rc = cursor_.cursor_->get(&k, &batch_, position | DB_MULTIPLE_KEY);
    if (rc == DB_BUFFER_SMALL) {  // one record larger than the buffer
      if (seeking_ && k.get_size() > k.get_ulen()) {
        key_room_ = k.get_size();  // or the key found, larger than ours
      } else {
        buf_.resize(std::max<size_t>(buf_.size() * 2, batch_.get_size()));
      }
      continue;
    }
    seeking_ = false;
    if (rc == DB_NOTFOUND) {
      ended_ = true;
      return Status::NotFound("end of database");
    }
    if (rc != 0) return FromDb(rc, "bulk scan");
    started_ = true;
    ended_ = false;
    it_ = std::make_unique<DbMultipleKeyDataIterator>(batch_);
  }
}

}  // namespace frontier::bdb
