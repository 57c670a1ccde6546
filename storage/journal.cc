// The site journal (journal.h): its log record, and its replay at open.
#include "storage/journal.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "storage/bdb.h"
#include "storage/coding.h"

namespace frontier::journal {

namespace {

// A log record's header, as Berkeley DB writes every record of a
// transaction: type, transaction id, the transaction's previous record.
constexpr size_t kHeaderBytes = 4 + 4 + sizeof(DB_LSN);
// Berkeley DB 5.3's commit record: __txn_regop (type 10), whose first
// field is the opcode, TXN_COMMIT (1). A fact of the log format, checked
// on this library with db5.3_printlog (docs/design.md). An aborted
// transaction logs no such record: its journal records stay unapplied.
// Nested transactions (__txn_child) are never used here. A replay window
// never spans a start (the open writes everything back and stores a new
// replay point), so transaction ids are not reused within it.
constexpr u_int32_t kTxnRegop = 10;
constexpr u_int32_t kTxnCommit = 1;
// An entry: site fp (8), length (4, kErased for an erasure), record.
// A lease entry: host fp (8), kLeaseSet and url fp (8), deadline (8); or
// kLeaseEnd and url fp (8).
constexpr uint32_t kErased = 0xffffffffu;
constexpr uint32_t kLeaseSet = 0xfffffffeu;
constexpr uint32_t kLeaseEnd = 0xfffffffdu;

uint32_t ReadU32(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void PutU32(std::string* out, uint32_t v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The record's entries, decoded one by one into `apply`.
Status ApplyPayload(std::string_view in, const Apply& apply,
                    const ApplyLease& apply_lease) {
  while (!in.empty()) {
    uint64_t site_fp = 0;
    if (!coding::GetU64(&in, &site_fp) || in.size() < 4) {
      return Status::Corruption("undecodable site journal entry");
    }
    const uint32_t len = ReadU32(in.data());
    in.remove_prefix(4);
    if (len == kLeaseSet || len == kLeaseEnd) {
      UrlKey key{site_fp, 0};
      uint64_t due = 0;
      if (!coding::GetU64(&in, &key.url_fp) ||
          (len == kLeaseSet && !coding::GetU64(&in, &due))) {
        return Status::Corruption("undecodable lease entry in the journal");
      }
      apply_lease(key, len == kLeaseSet
                           ? std::optional<int64_t>(static_cast<int64_t>(due))
                           : std::nullopt);
      continue;
    }
    if (len == kErased) {
      if (Status s = apply(site_fp, nullptr); !s.ok()) return s;
      continue;
    }
    SiteRecord rec;
    if (len > in.size() || !DecodeSiteRecord(in.substr(0, len), &rec)) {
      return Status::Corruption("undecodable site record in the journal");
    }
    in.remove_prefix(len);
    if (Status s = apply(site_fp, &rec); !s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace

std::string EncodeLsn(const DB_LSN& lsn) {
  std::string out;
  PutU32(&out, lsn.file);
  PutU32(&out, lsn.offset);
  return out;
}

bool DecodeLsn(std::string_view in, DB_LSN* lsn) {
  if (in.size() != 8) return false;
  lsn->file = ReadU32(in.data());
  lsn->offset = ReadU32(in.data() + 4);
  return true;
}

void AppendRecord(std::string* payload, uint64_t site_fp,
                  const SiteRecord& rec, std::string* scratch) {
  EncodeSiteRecord(rec, scratch);
  coding::PutU64(payload, site_fp);
  PutU32(payload, static_cast<uint32_t>(scratch->size()));
  payload->append(*scratch);
}

void AppendErased(std::string* payload, uint64_t site_fp) {
  coding::PutU64(payload, site_fp);
  PutU32(payload, kErased);
}

void AppendLease(std::string* payload, const UrlKey& key, int64_t due_ms) {
  coding::PutU64(payload, key.host_fp);
  PutU32(payload, kLeaseSet);
  coding::PutU64(payload, key.url_fp);
  coding::PutU64(payload, static_cast<uint64_t>(due_ms));
}

void AppendLeaseEnd(std::string* payload, const UrlKey& key) {
  coding::PutU64(payload, key.host_fp);
  PutU32(payload, kLeaseEnd);
  coding::PutU64(payload, key.url_fp);
}

Status Put(DbEnv* env, DbTxn* txn, std::string_view payload, DB_LSN* lsn) {
  static const DB_LOG_RECSPEC kSpec[] = {
      {LOGREC_DBT, kHeaderBytes, "sites", ""},
      {LOGREC_Done, 0, "", ""}};
  DBT data;
  std::memset(&data, 0, sizeof data);
  data.data = const_cast<char*>(payload.data());
  data.size = static_cast<u_int32_t>(payload.size());
  DB_ENV* e = env->get_DB_ENV();
  const u_int32_t size =
      static_cast<u_int32_t>(kHeaderBytes + 4 + payload.size());
  return bdb::FromDb(
      e->log_put_record(e, nullptr, txn->get_DB_TXN(), lsn, 0,
                        kSiteRecordType, 0, size,
                        const_cast<DB_LOG_RECSPEC*>(kSpec), &data),
      "log_put_record (site journal)");
}

int Dispatch(DbEnv*, Dbt* rec, DbLsn* lsn, db_recops) {
  if (rec->get_size() < kHeaderBytes ||
      ReadU32(rec->get_data()) != kSiteRecordType) {
    return EINVAL;
  }
  // Nothing to redo or undo: the replay at open does the work. A
  // transaction's undo walks back through each record's predecessor.
  std::memcpy(static_cast<DB_LSN*>(lsn),
              static_cast<const char*>(rec->get_data()) + 8, sizeof(DB_LSN));
  return 0;
}

Status Replay(DbEnv* env, const DB_LSN& from, const Apply& apply,
              const ApplyLease& apply_lease, uint64_t* records) {
  *records = 0;
  DbLogc* cursor = nullptr;
  Status s = bdb::FromDb(env->log_cursor(&cursor, 0), "log_cursor");
  if (!s.ok()) return s;
  // The journal records seen of each transaction not yet ended.
  std::map<u_int32_t, std::vector<std::string>> open;
  DbLsn lsn;
  static_cast<DB_LSN&>(lsn) = from;
  Dbt rec;
  int rc = cursor->get(&lsn, &rec, DB_SET);
  if (rc == DB_NOTFOUND) {
    s = Status::Corruption("the site journal's replay point is not in the log");
  }
  while (s.ok() && rc == 0) {
    const char* p = static_cast<const char*>(rec.get_data());
    if (rec.get_size() >= kHeaderBytes) {
      const u_int32_t type = ReadU32(p);
      const u_int32_t txnid = ReadU32(p + 4);
      if (type == kSiteRecordType && rec.get_size() >= kHeaderBytes + 4) {
        const uint32_t len = ReadU32(p + kHeaderBytes);
        if (len > rec.get_size() - kHeaderBytes - 4) {
          s = Status::Corruption("truncated site journal record");
          break;
        }
        open[txnid].emplace_back(p + kHeaderBytes + 4, len);
      } else if (type == kTxnRegop && rec.get_size() >= kHeaderBytes + 4) {
        const u_int32_t op = ReadU32(p + kHeaderBytes);
        auto it = open.find(txnid);
        if (it != open.end() && op == kTxnCommit) {
          for (const std::string& payload : it->second) {
            s = ApplyPayload(payload, apply, apply_lease);
            if (!s.ok()) break;
            ++*records;
          }
        }
        if (it != open.end() && op == kTxnCommit) open.erase(it);
      }
    }
    if (s.ok()) rc = cursor->get(&lsn, &rec, DB_NEXT);
  }
  if (s.ok() && rc != DB_NOTFOUND) s = bdb::FromDb(rc, "log cursor get");
  Status closed = bdb::FromDb(cursor->close(0), "log cursor close");
  return s.ok() ? closed : s;
}

}  // namespace frontier::journal
