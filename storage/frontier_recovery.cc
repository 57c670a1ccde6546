// FrontierImpl: what happens after a write fails (a full disk, an I/O
// error, Berkeley DB's DB_RUNRECOVERY): the failure is recorded for
// WriteStatus() (write_failure_, storage/write_failure.h), and
// RetryWrites() checks whether the directory takes writes again,
// reopening the environment with recovery when Berkeley DB asks for it. The
// server refuses write commands in between (docs/operations.md, "Disk full").
#include <chrono>
#include <cstdlib>

#include "storage/frontier_impl.h"

namespace frontier {

Status FrontierImpl::WriteStatus() const { return write_failure_.status(); }

void FrontierImpl::CloseEnvironment() {
  // A panicked environment would refuse to close its handles (leaking the
  // cache and the file descriptors), so the panic state is lifted first.
  // Nothing cached is written back: recovery rebuilds from the log.
  if (env_) (void)env_->set_flags(DB_PANIC_ENVIRONMENT, 0);
  // The journal's pending records are in the log: the reopen replays it.
  sites_.DisableJournal();
  file_syncer_.reset();
  (void)CloseCrawls(/*sync=*/false);
  for (bdb::Database* db : Databases()) {
    (void)db->CloseWithoutSync();
  }
  env_.reset();
  closed_ = true;
}

Status FrontierImpl::RetryWrites() {
  if (closed_ && lock_fd_ < 0) return Status::IOError("frontier is closed");
  (void)EndOpenPass();  // a doomed pass: its error was reported already
  Status s;
  bool reopen = closed_;  // an earlier reopen failed: try it again
  if (!reopen) {
    // The commits that waited in the log buffer go first; then a forced
    // checkpoint writes dirty pages and a log record even when nothing is
    // pending, so success means the disk takes writes again.
    int rc = env_->log_flush(nullptr);
    const char* what = "log_flush";
    if (rc == 0) {
      rc = env_->txn_checkpoint(0, 0, DB_FORCE);
      what = "txn_checkpoint";
    }
    if (rc == DB_RUNRECOVERY) {
      reopen = true;
    } else {
      s = bdb::FromDb(rc, what);
    }
  }
  if (reopen) {
    // A panicked environment refuses every call until it is reopened with
    // recovery, which keeps exactly what reached the log on disk.
    // The reopen reads the counters of the last checkpoint; the ones
    // counted since then are still right (they count what committed).
    // The default crawl's counters are in the members from here on.
    auto home = crawls_.find(kDefaultCrawl);
    if (home != crawls_.end()) SwitchTo(home->second.get());
    const FrontierStats counted = stats_;
    CloseEnvironment();
    s = OpenEnvironment(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count());
    if (!s.ok()) CloseEnvironment();  // reads fail cleanly until next time
    if (s.ok()) KeepCumulativeCounters(counted, &stats_);
  }
  if (!s.ok()) {
    write_failure_.Note(s);
    return s;
  }
  if (!backup_pinned_) {  // as Checkpoint(): drop logs no longer needed
    (void)RemoveUnusedLogs();
  }
  // Everything committed is on disk now: flushed, or (after a reopen)
  // exactly what recovery found there.
  flushed_seq_.store(commit_seq_.load());
  write_failure_.Clear();
  return Status::OK();
}

Status FrontierImpl::PanicForTesting() {
  if (closed_) return Status::IOError("frontier is closed");
  return bdb::FromDb(env_->set_flags(DB_PANIC_ENVIRONMENT, 1),
                     "set_flags(DB_PANIC_ENVIRONMENT)");
}

}  // namespace frontier
