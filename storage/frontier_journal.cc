// FrontierImpl: the site journal's life (storage/journal.h; docs/
// design.md, "The site journal"): its replay at open, journal mode on and
// off, the write-back transactions, and the log files it keeps.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "storage/frontier_impl.h"
#include "storage/journal.h"

namespace frontier {

namespace {

constexpr const char* kReplayKey = "journal_from";

// The number of log file `path` (".../log.0000000012"); 0 if not one.
uint32_t LogFileNumber(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string name =
      slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() != 14 || name.rfind("log.", 0) != 0) return 0;
  return static_cast<uint32_t>(std::strtoul(name.c_str() + 4, nullptr, 10));
}

}  // namespace

#ifdef FRONTIERD_FAULTS
void journal::CrashPoint(DbEnv* env, const char* point) {
  static const char* const at = std::getenv("FRONTIERD_CRASH_AT");
  static long left = [] {
    const char* v = std::getenv("FRONTIERD_CRASH_AFTER");
    return v == nullptr ? 1L : std::max(1L, std::atol(v));
  }();
  if (at == nullptr || std::strcmp(at, point) != 0 || --left > 0) return;
  (void)env->log_flush(nullptr);
  ::_exit(137);
}
#endif

Status FrontierImpl::ReplayJournal() {
  sites_.SetPart(&timers_.leases());
  sites_.DisableJournal();
  std::string value;
  Status s = meta_.Get(nullptr, kReplayKey, &value);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  // Replication never journals, and its start does not replay: a
  // directory whose single-node process stopped with site records still
  // in the journal would serve them without those changes.
  if (repl_) {
    return Status::InvalidArgument(
        "the data directory holds site records in the site journal, not yet "
        "written back (its last single-node process did not stop cleanly): "
        "start it once with replication no, stop it, then start it with "
        "replication");
  }
  DB_LSN from{};
  if (!journal::DecodeLsn(value, &from)) {
    return Status::Corruption("undecodable journal replay point in meta.db");
  }
  sites_.EnableJournal(env_.get(), &meta_);
  s = journal::Replay(
      env_.get(), from,
      [this](uint64_t site_fp, const SiteRecord* rec) {
        sites_.Replayed(site_fp, rec);
        return Status::OK();
      },
      [this](const UrlKey& key, std::optional<int64_t> due_ms) {
        timers_.leases().Replayed(key, due_ms);
      },
      &journal_replayed_);
  // The leases held in memory at the crash: each still leased in U (a
  // lease moved to Qc and ended there journaled no end) goes to Qc with
  // U's deadline, the truth; writing a Qc entry that is there already
  // changes nothing.
  std::vector<std::pair<int64_t, UrlKey>> leases;
  for (const auto& [due_ms, key] : timers_.leases().TakeReplayed()) {
    if (!s.ok()) break;
    UrlRecord rec;
    Status ls = urls_.Load(nullptr, key, &rec);
    if (ls.IsNotFound()) continue;
    s = ls;
    if (s.ok() && rec.state == StoredState::kLeased) {
      leases.emplace_back(rec.due_ms, key);
    }
  }
  if (s.ok()) journal::CrashPoint(env_.get(), "replaying");
  // Made durable before anything is served: recovery's own checkpoint
  // ends the window Berkeley DB replays, not this one, so a crash right
  // after this start replays again from the same point.
  if (s.ok()) s = StopJournal(&leases);
  if (!s.ok()) sites_.DisableJournal();
  if (s.ok()) journal::CrashPoint(env_.get(), "replayed");
  return s;
}

Status FrontierImpl::StartJournal() {
  if (repl_ || !opts_.site_journal || crawls_.size() > 1) {
    return Status::OK();
  }
  sites_.EnableJournal(env_.get(), &meta_);
  timers_.leases().Enable();
  // Nothing pending: stores a replay point before any journal record.
  Status s = WriteBackJournal(0, /*all=*/true);
  if (!s.ok()) sites_.DisableJournal();
  return s;
}

Status FrontierImpl::StopJournal(
    const std::vector<std::pair<int64_t, UrlKey>>* replayed) {
  if (!sites_.journal_on()) return Status::OK();
  bdb::Txn txn;
  Status s = txn.Begin(env_.get());
  if (s.ok()) s = timers_.SpillLeases(txn.get());
  if (replayed != nullptr) {
    for (const auto& [due_ms, key] : *replayed) {
      if (s.ok()) s = timers_.Add(txn.get(), due_ms, key);
    }
  }
  if (s.ok()) s = sites_.WriteBack(txn.get(), 0, /*all=*/true);
  if (s.ok()) s = meta_.Delete(txn.get(), kReplayKey);
  if (s.ok()) s = txn.Commit();
  if (!s.ok()) {
    txn.Abort();
    sites_.Aborted();
    return s;
  }
  commit_seq_.fetch_add(1, std::memory_order_release);
  sites_.Committed();
  sites_.DisableJournal();
  return Status::OK();
}

Status FrontierImpl::WriteBackJournal(size_t max, bool all) {
  if (!sites_.journal_on()) return Status::OK();
  bdb::Txn txn;
  Status s = txn.Begin(env_.get());
  // Only `all` moves the replay point past every lease's record: the
  // leases held in memory go to Qc first. A slice leaves them held, the
  // replay point at the oldest one's record (LeaseTable::Oldest).
  const bool spill = all && timers_.leases().size() > 0;
  if (s.ok() && spill) s = timers_.SpillLeases(txn.get());
  if (s.ok()) s = sites_.WriteBack(txn.get(), max, all);
  if (s.ok()) s = txn.Commit();
  if (!s.ok()) {
    txn.Abort();
    sites_.Aborted();
    if (s.IsIOError()) write_failure_.Note(s);
    return s;
  }
  commit_seq_.fetch_add(1, std::memory_order_release);
  sites_.Committed();
  if (max > 0) journal::CrashPoint(env_.get(), "written-back");
  if (spill) journal::CrashPoint(env_.get(), "leases-spilled");
  return Status::OK();
}

Status FrontierImpl::SettleSites() {
  // Journal mode too: the pass's records go into its journal record now
  // (as at its end), no pending one is written back. The scan overlays
  // them (SiteTable::Unsettled), so a read writes nothing to sites.db: a
  // write-back of 64k pending sites held the loop for about a second.
  return WritePassSites();
}

Status FrontierImpl::RemoveUnusedLogs() {
  char** unused = nullptr;
  Status s =
      bdb::FromDb(env_->log_archive(&unused, DB_ARCH_ABS), "log_archive");
  if (unused == nullptr) return s;
  std::vector<std::string> paths;
  for (char** p = unused; *p != nullptr; ++p) paths.emplace_back(*p);
  free(unused);
  KeepLogsForReplicas(&paths);
  // The journal's replay reads from its replay point's file on.
  if (const std::optional<DB_LSN> from = sites_.replay_from()) {
    std::erase_if(paths, [&](const std::string& path) {
      return LogFileNumber(path) >= from->file;
    });
  }
  file_syncer_->Remove(std::move(paths));
  return s;
}

}  // namespace frontier
