// TimerTable (timer_table.h): Qc's writes and its earliest due time.
#include "storage/timer_table.h"

#include <string>
#include <utility>
#include <vector>

namespace frontier {

Status TimerTable::Add(DbTxn* t, int64_t due_ms, const UrlKey& key) {
  if (!min_ || due_ms < *min_) min_ = due_ms;
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  return c != nullptr ? c->Put(EncodeTimerKey(due_ms, key), "")
                      : db_.Put(t, EncodeTimerKey(due_ms, key), "");
}

Status TimerTable::Remove(DbTxn* t, int64_t due_ms, const UrlKey& key) {
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  if (c == nullptr) return db_.Delete(t, EncodeTimerKey(due_ms, key));
  s = c->Find(EncodeTimerKey(due_ms, key), nullptr);
  return s.ok() ? c->DeleteCurrent() : s;
}

Status TimerTable::AddLease(DbTxn* t, int64_t due_ms, const UrlKey& key) {
  if (leases_.Add(key, due_ms)) return Status::OK();
  return Add(t, due_ms, key);
}

Status TimerTable::MoveLease(DbTxn* t, int64_t due_ms, int64_t new_due_ms,
                             const UrlKey& key) {
  if (leases_.Move(key, new_due_ms)) return Status::OK();
  Status s = Remove(t, due_ms, key);
  return s.ok() ? Add(t, new_due_ms, key) : s;
}

Status TimerTable::EndLease(DbTxn* t, int64_t due_ms, const UrlKey& key) {
  if (leases_.End(key)) return Status::OK();
  return Remove(t, due_ms, key);
}

Status TimerTable::SpillLeases(DbTxn* t) {
  std::vector<std::pair<int64_t, UrlKey>> held;
  leases_.TakeAll(&held);
  for (const auto& [due_ms, key] : held) {
    if (Status s = Add(t, due_ms, key); !s.ok()) return s;
  }
  return Status::OK();
}

Status TimerTable::LoadMin(DbTxn* t) {
  bdb::Cursor cursor;
  Status s = cursor.Open(&db_, t);
  if (!s.ok()) return s;
  std::string key;
  s = cursor.First(&key, nullptr);
  min_.reset();
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  int64_t due_ms = 0;
  UrlKey url;
  if (!DecodeTimerKey(key, &due_ms, &url)) {
    return Status::Corruption("undecodable timer key");
  }
  min_ = due_ms;
  return Status::OK();
}

}  // namespace frontier
