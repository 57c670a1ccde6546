// FrontierImpl: how write verbs become transactions. RunWrite runs one
// verb's body; outside a pass in a transaction of its own, inside a pass
// (BeginPass .. EndPass) in the pass's one transaction, so that the verbs
// of an event-loop pass share its cursors, write each site record once and
// pay for one commit. docs/design.md, "One transaction per pass".
#ifdef FRONTIERD_FAULTS
#include <cstdlib>
#endif

#include "storage/frontier_impl.h"
#include "storage/journal.h"

namespace frontier {

namespace {

#ifdef FRONTIERD_FAULTS
// Test builds only (frontierd_faults, tests/CMakeLists.txt): the write
// that makes a pass's FRONTIERD_FAULT_PASS_WRITES-th fails with an I/O
// error, as a full disk would; 0 or unset: never.
uint32_t FaultPassWrites() {
  static const uint32_t n = [] {
    const char* v = std::getenv("FRONTIERD_FAULT_PASS_WRITES");
    return v == nullptr ? 0u : static_cast<uint32_t>(std::atoi(v));
  }();
  return n;
}

// Test builds only: the first FRONTIERD_FAULT_PROMOTION_REBUILDS rebuilds
// after a promotion fail midway, as one whose reads met a deadlock or a
// dead handle would (tests/python/replication_promotion_test.py).
bool RebuildFault() {
  static uint32_t left = [] {
    const char* v = std::getenv("FRONTIERD_FAULT_PROMOTION_REBUILDS");
    return v == nullptr ? 0u : static_cast<uint32_t>(std::atoi(v));
  }();
  if (left == 0) return false;
  --left;
  return true;
}

// Test builds only: the first pass to reach FRONTIERD_FAULT_PASS_BUSY
// writes has that write fail with a lock conflict, once, as the
// Replication Manager's lock-out while a site joins makes it
// (tests/python/replication_promotion_test.py).
bool BusyFault(uint32_t writes) {
  static uint32_t at = [] {
    const char* v = std::getenv("FRONTIERD_FAULT_PASS_BUSY");
    return v == nullptr ? 0u : static_cast<uint32_t>(std::atoi(v));
  }();
  if (at == 0 || writes != at) return false;
  at = 0;
  return true;
}
#endif

}  // namespace

Status FrontierImpl::PromotionRebuildFault() const {
#ifdef FRONTIERD_FAULTS
  if (promotion_pending_ && RebuildFault()) {
    return Status::Busy("injected rebuild fault (frontierd_faults)");
  }
#endif
  return Status::OK();
}

Status FrontierImpl::BeginWrite(bdb::Txn* txn) {
  // First: it may rebuild the state saved below.
  Status s = CheckWritable();
  saved_stats_ = stats_;
  part_counts_.Save();
  saved_timer_min_ = timers_.min();
  touched_sites_.clear();
  queue_.ResetHeadChanges();
  sites_.DropDirty();
  if (s.ok()) s = txn->Begin(env_.get());
  if (s.ok()) BindCursors(txn->get());
  return s;
}

Status FrontierImpl::FinishWrite(bdb::Txn* txn, Status s) {
  // The counters are not written here: the state counts are the sums of
  // the site records' and the cumulative ones are saved at checkpoints.
  if (s.ok() && txn->get() != nullptr) s = WriteDirtySites(txn->get());
  if (s.ok() && sites_.journal_on()) {
    journal::CrashPoint(env_.get(), "journaled");
  }
  sites_.DropDirty();
  Status closed = CloseCursors();
  if (s.ok()) s = closed;
  // With replication the commit waits for a quorum's acknowledgements;
  // one that does not come in time is counted by the Replicator while
  // Commit() runs, on this thread. Every top-level commit waits, so the
  // counters ride in this one, which also writes the log buffer out
  // (DB_TXN_WRITE_NOSYNC): WriteLog() then needs no commit of its own,
  // and a pass waits for the quorum once.
  const uint64_t perm_failed = repl_ ? repl_->perm_failed() : 0;
  u_int32_t commit_flags = 0;
  if (s.ok() && repl_ && txn->get() != nullptr) {
    s = PutCounters(txn->get());
    commit_flags = DB_TXN_WRITE_NOSYNC;
  }
  if (s.ok()) {
    s = txn->Commit(commit_flags);
  } else {
    txn->Abort();
  }
  // The journaled site records become pending, or are forgotten.
  if (s.ok()) {
    sites_.Committed();
  } else {
    sites_.Aborted();
  }
  queue_.ResetHeadChanges();
  if (s.ok()) {
    const uint64_t seq =
        commit_seq_.fetch_add(1, std::memory_order_release) + 1;
    if (commit_flags != 0) counters_saved_seq_ = seq;
  } else {
    if (s.IsIOError()) write_failure_.Note(s);  // a full disk, DB_RUNRECOVERY
    // The scheduler, counters and site cache ran ahead of a transaction
    // that did not happen: put them back to what the disk says.
    stats_ = saved_stats_;
    part_counts_.Restore();
    timers_.set_min(saved_timer_min_);
    sites_.ClearCache();
    robots_.ClearCache();
    const std::set<uint64_t> touched = std::move(touched_sites_);
    for (uint64_t site_fp : touched) {
      sched_.Remove(site_fp);  // forget its head: re-read it from Q
      SiteRecord site;
      Status ls = sites_.Load(nullptr, site_fp, &site);
      if (ls.ok()) ls = PlaceSite(nullptr, site_fp, site, 0);
      if (!ls.ok()) {
        sched_.Remove(site_fp);
        blocks_.Set(site_fp, 0);
      }
    }
    queue_.ResetHeadChanges();
  }
  touched_sites_.clear();
  // Nothing of it happened, and a new transaction waits the lock-out out
  // (docs/replication.md, "A pass that meets a joining site").
  if (s.IsBusy() && repl_) return Replicator::RetryAfterAbort(s);
  // Committed here (memory agrees), but not known to survive a failover.
  if (s.ok() && repl_ && repl_->perm_failed() != perm_failed) {
    return Replicator::NotAcknowledged();
  }
  return s;
}

Status FrontierImpl::RunWrite(TxnBody body) {
  if (!in_pass_) {
    bdb::Txn txn;
    Status s = BeginWrite(&txn);
    if (s.ok()) s = body(txn.get());
    return FinishWrite(&txn, s);
  }
  if (!pass_error_.ok()) return pass_error_;  // the pass is doomed
  if (!pass_txn_open_) {
    Status s = BeginWrite(&pass_txn_);
    if (!s.ok()) {
      pass_error_ = s;
      return s;
    }
    pass_txn_open_ = true;
  }
  ++pass_writes_;
#ifdef FRONTIERD_FAULTS
  if (pass_writes_ == FaultPassWrites()) {
    pass_error_ = Status::IOError("injected storage fault (frontierd_faults)");
    return pass_error_;
  }
  if (BusyFault(pass_writes_)) {
    pass_error_ = Status::Busy("injected lock conflict (frontierd_faults)");
    return pass_error_;
  }
#endif
  Status s = body(pass_txn_.get());
  if (!s.ok()) pass_error_ = s;
  return s;
}

void FrontierImpl::BeginPass() {
  if (in_pass_ || closed_) return;
  in_pass_ = true;
  pass_error_ = Status::OK();
  pass_writes_ = 0;
}

Status FrontierImpl::EndPass() {
  if (!in_pass_) return Status::OK();
  in_pass_ = false;
  Status s = pass_error_;
  pass_error_ = Status::OK();
  if (!pass_txn_open_) {
    // Refused before its transaction began (e.g. a promotion's rebuild
    // met the lock-out): nothing stored, as FinishWrite answers it.
    if (s.IsBusy() && repl_) return Replicator::RetryAfterAbort(s);
    return s;
  }
  pass_txn_open_ = false;
  return FinishWrite(&pass_txn_, s);
}

Status FrontierImpl::EndOpenPass() {
  if (!in_pass_) return Status::OK();
  Status s = EndPass();
  BeginPass();  // the rest of the caller's pass goes on in a new one
  return s;
}

Status FrontierImpl::WritePassSites() {
  if (!pass_txn_open_ || !pass_error_.ok()) return Status::OK();
  Status s = WriteDirtySites(pass_txn_.get());
  if (!s.ok()) pass_error_ = s;
  return s;
}

}  // namespace frontier
