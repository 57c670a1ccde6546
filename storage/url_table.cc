// UrlTable (url_table.h): U's reads and writes, through the bound
// transaction's cursor when there is one.
#include "storage/url_table.h"

namespace frontier {

Status UrlTable::Load(DbTxn* t, const UrlKey& key, UrlRecord* rec) {
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  std::string value;
  if (c != nullptr) {
    at_.reset();
    s = c->Find(EncodeUrlKey(key), &value);
    if (s.ok()) at_ = key;
  } else {
    s = db_.Get(t, EncodeUrlKey(key), &value);
  }
  if (!s.ok()) return s;
  if (!DecodeUrlRecord(value, rec)) {
    return Status::Corruption("undecodable URL record");
  }
  return Status::OK();
}

Status UrlTable::Store(DbTxn* t, const UrlKey& key, const UrlRecord& rec) {
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  EncodeUrlRecord(rec, &buf_);
  if (c == nullptr) return db_.Put(t, EncodeUrlKey(key), buf_);
  if (at_ == key) return c->PutCurrent(buf_);
  at_.reset();
  s = c->Put(EncodeUrlKey(key), buf_);
  if (s.ok()) at_ = key;
  return s;
}

Status UrlTable::Insert(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                        bool* inserted) {
  EncodeUrlRecord(rec, &buf_);
  at_.reset();  // the insert does not move the cursor
  return db_.Insert(t, EncodeUrlKey(key), buf_, inserted);
}

}  // namespace frontier
