// The site journal: site records carried in Berkeley DB's own log instead
// of being rewritten in sites.db by every pass (issue 19, step 3; docs/
// design.md, "The site journal"). Single-node mode only.
//
// A transaction that changed site records appends one application log
// record (type kSiteRecordType, in Berkeley DB's user range) holding each
// changed site's whole record, or its erasure: absolute values, so that
// applying a record twice changes nothing. The record is linked into the
// transaction (DB_ENV->log_put_record), so it is committed, flushed and
// synced with the transaction's B-tree changes, and a transaction that
// logged only it still writes a commit record.
//
// Berkeley DB's recovery ignores the record (Dispatch). At open, Replay()
// reads the log from the stored replay point to its end and hands over the
// entries of transactions whose commit record (txn_regop, opcode
// TXN_COMMIT) is in the log, in log order. Pure functions over an
// environment; no state.
//
// The same records carry the deadlines of the leases held in memory
// (storage/lease_table.h): an entry per lease a transaction added, moved
// or ended, its absolute deadline or its end. A table journaled beside the
// site records is a journal::Part of the SiteTable (below).
#pragma once

#include <db_cxx.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "storage/records.h"
#include "util/status.h"

namespace frontier::journal {

inline constexpr u_int32_t kSiteRecordType = DB_user_BEGIN + 19;

// The replay point as stored in meta.db ("journal_from"): 8 bytes.
std::string EncodeLsn(const DB_LSN& lsn);
bool DecodeLsn(std::string_view in, DB_LSN* lsn);
// a < b in log order.
inline bool Before(const DB_LSN& a, const DB_LSN& b) {
  return a.file != b.file ? a.file < b.file : a.offset < b.offset;
}

// A record's payload: entries appended one by one.
void AppendRecord(std::string* payload, uint64_t site_fp,
                  const SiteRecord& rec, std::string* scratch);
void AppendErased(std::string* payload, uint64_t site_fp);
// A lease entry: the lease of `key` is held in memory with deadline
// `due_ms` (AppendLease), or is not (AppendLeaseEnd: ended, or moved to
// Qc).
void AppendLease(std::string* payload, const UrlKey& key, int64_t due_ms);
void AppendLeaseEnd(std::string* payload, const UrlKey& key);

// Another table whose changes ride in the site journal's records: the
// SiteTable appends its entries to the record of each transaction that
// has any (a record is written for them alone if no site changed), asks
// it how far back the replay point must stay, and tells it how each
// transaction ended. Loop thread only.
class Part {
 public:
  virtual ~Part() = default;
  // The open transaction changed something to journal.
  virtual bool HasEntries() const = 0;
  // Appends those changes' entries to `payload` ...
  virtual void AppendEntries(std::string* payload) = 0;
  // ... which went into the record at `lsn` (of the open transaction).
  virtual void Journaled(const DB_LSN& lsn) = 0;
  // The oldest journal record the replay must still read for this table
  // (none: nothing held), as of the open transaction.
  virtual std::optional<DB_LSN> Oldest() const = 0;
  // The open transaction committed, or its changes are undone.
  virtual void Committed() = 0;
  virtual void Aborted() = 0;
  // Journal mode ends: everything held is forgotten (it was written out,
  // or the next open replays it).
  virtual void Forget() = 0;
};

// Appends `payload` as one journal record of transaction `txn` (not
// null); *lsn is where it went.
Status Put(DbEnv* env, DbTxn* txn, std::string_view payload, DB_LSN* lsn);

// For DbEnv::set_app_dispatch: every journal record is accepted and left
// alone by recovery and by a transaction's undo (0, and *lsn moves to the
// record's predecessor in its transaction); any other user record type is
// refused (EINVAL).
int Dispatch(DbEnv* env, Dbt* rec, DbLsn* lsn, db_recops op);

// One entry of a committed record: `rec` null means the site was erased.
using Apply = std::function<Status(uint64_t site_fp, const SiteRecord* rec)>;
// One lease entry: `due_ms` nullopt means the lease is not in memory.
using ApplyLease =
    std::function<void(const UrlKey& key, std::optional<int64_t> due_ms)>;
// Reads the log from `from` (a journal record or any record before the
// first one that matters) to its end and calls `apply` (a site entry) or
// `apply_lease` (a lease entry) on each entry of every committed journal
// record, in log order. Corruption if `from` is not in the log or an
// entry does not decode. *records counts the committed journal records
// applied.
Status Replay(DbEnv* env, const DB_LSN& from, const Apply& apply,
              const ApplyLease& apply_lease, uint64_t* records);

// Test builds only (frontierd_faults, tests/CMakeLists.txt): the process
// dies at once, as by kill -9, the FRONTIERD_CRASH_AFTER-th time (1 if
// unset) it reaches the point FRONTIERD_CRASH_AT names: "journaled" (a
// transaction's journal record is in the log, its commit not yet),
// "written-back" (a write-back slice committed), "leases-spilled" (a
// write-back of everything moved leases held in memory to Qc and
// committed), "replaying" (the open has replayed the journal, nothing
// written yet), "replayed" (the open's
// replay written back). The log is flushed first, so what the point wrote
// is on disk. A no-op in every other build.
#ifdef FRONTIERD_FAULTS
void CrashPoint(DbEnv* env, const char* point);
#else
inline void CrashPoint(DbEnv*, const char*) {}
#endif

}  // namespace frontier::journal
