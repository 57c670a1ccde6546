// The end of every pass of the Server's loop (server.h, docs/event-loop.md):
// serving and expiring BPOP clients, holding replies for a log sync (fsync
// always) or flushing the pass, releasing replies and reaping closed
// clients. Part of the Server class; kept apart from the loop's set-up.
#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "server/clock.h"
#include "server/log.h"
#include "server/reply.h"
#include "server/server.h"

namespace frontier {

void Server::AfterPass() {
  ++stats_.passes;
  int64_t now = NowMs();
  const bool refused = WritesRefused();
  if (!blocked_.empty()) {
    if (!refused) ServeBlocked(now);  // a POP is a write
    ExpireBlocked(now);
  }
  // The MADDs of the pass that spread over shards: their links for each
  // peer go as one MADDLINKS (their local parts are final at the commit).
  if (!pass_madd_parts_.empty()) SendMaddParts();
  // The pass's commands, served BPOPs included, were one transaction:
  // commit it before anything is flushed or released.
  CommitPass();
  frontier_.EndPass();  // between passes: no transaction open
  // Between passes the frontier is in the default crawl, which is what
  // /metrics, /api/stats and the timers read unless they name one.
  (void)frontier_.UseCrawl(Frontier::kDefaultCrawl);
  // fsync always: no reply leaves before the commits it reports are on
  // disk. One flush covers every command of the pass, from every client.
  // While writes are refused, a pass that committed nothing has only
  // replies that acknowledge no write (reads, -MISCONF): they go out
  // without a flush that would fail and drop them with their clients.
  const uint64_t seq = frontier_.commit_seq();
  const bool committed = seq != commit_seq_after_pass_;
  commit_seq_after_pass_ = seq;
  if (config_.fsync == FsyncPolicy::kAlways && frontier_.HasUnflushedCommits() &&
      !with_output_.empty() && (committed || !refused)) {
    // With one client in the pass and none waiting, no one could run
    // while the fsync does: syncing here saves the two thread hand-offs
    // (about 45 us per command for a lone client).
    if (syncer_->ok() && (with_output_.size() > 1 || !held_.empty())) {
      HoldForSync();
    } else {
      FlushPass();
    }
  }
  ReleaseReplies();
  // After the replies: dirty pages go to the files a slice at a time, so
  // that checkpoints do not stop the loop. A failure refuses writes.
  if (!refused && config_.checkpoint_interval_ms > 0) {
    const int64_t since = stats_.last_checkpoint_ms > 0
                              ? stats_.last_checkpoint_ms
                              : stats_.start_ms;
    (void)frontier_.WriteBehind(now, since + config_.checkpoint_interval_ms);
  }
  ReapClosed();
  WatchWriteFailure();
  ArmWakeTimer(now);
}

void Server::ServeBlocked(int64_t now_ms) {
  // The longest-waiting client that can have a URL now, again and again:
  // first come, first served among the clients of each partition, and a
  // client on no partition takes any. A client on a partition the map no
  // longer has (CONFIG SET) is served its error.
  const auto can_serve = [this, now_ms](std::string_view line) {
    // A line of another crawl is asked in that crawl (a URL is never
    // handed to another crawl's client).
    const auto [crawl, name] = BlockedClients::SplitLine(line);
    if (!frontier_.UseCrawl(crawl.empty() ? Frontier::kDefaultCrawl : crawl)
             .ok()) {
      return false;
    }
    if (name.empty()) return frontier_.HasReady(now_ms);
    std::optional<size_t> index = frontier_.options().partitions.Find(name);
    return !index || frontier_.HasReadyIn(*index, now_ms);
  };
  while (const BlockedClients::Entry* next =
             blocked_.OldestServable(can_serve)) {
    const BlockedClients::Entry entry = *next;
    Connection* conn = Find(entry.conn_id);
    if (conn == nullptr) {  // cannot happen: Close() unqueues
      blocked_.Remove(entry.conn_id);
      continue;
    }
    const std::string& crawl = entry.request.crawl;
    Status used =
        frontier_.UseCrawl(crawl.empty() ? Frontier::kDefaultCrawl : crawl);
    if (!used.ok()) break;
    auto urls =
        PopFromPartition(frontier_, entry.request.partition,
                         entry.request.count, entry.request.lease_ms, now_ms,
                         entry.request.with_data);
    if (urls.ok() && urls->empty()) break;  // not ready after all: wait
    blocked_.Remove(entry.conn_id);
    NotePassCommand(*conn);
    ++conn->pass_commands().count;
    ReplyWriter writer(&conn->pending());
    if (!urls.ok()) {
      ReplyStatus(writer, urls.status());
    } else {
      ReplyPopped(writer, *urls, entry.request.with_count,
                  entry.request.with_data);
    }
    Unblock(*conn);
  }
}

void Server::NotePassCommand(Connection& conn) {
  Connection::PassCommands& pc = conn.pass_commands();
  if (pc.listed) return;
  pc.listed = true;
  pc.reply_start = conn.pending().size();
  pc.count = 0;
  pass_conns_.push_back(conn.id());
}

void Server::CommitPass() {
  const Status s = frontier_.EndPass();
  frontier_.BeginPass();
  std::vector<uint64_t> ids;
  ids.swap(pass_conns_);
  if (!s.ok()) {
    ++stats_.failed_passes;
    // A write refused by the replication group (READONLY on a replica,
    // NOREPLICAS, NOQUORUM) is the client's answer, not a server fault.
    Log(StatusErrorWord(s.code()).empty() ? LogLevel::kWarning
                                          : LogLevel::kVerbose,
        "A pass's transaction failed (%s): answering its %zu client(s) with "
        "the error",
        s.ToString().c_str(), ids.size());
  }
  for (uint64_t id : ids) {
    Connection* conn = Find(id);
    if (conn == nullptr) continue;
    Connection::PassCommands& pc = conn->pass_commands();
    pc.listed = false;
    if (s.ok() || conn->state() == Connection::State::kClosed) continue;
    // Nothing of the pass happened: each command's reply becomes the
    // error (Pub/Sub messages queued after its first one go with them).
    conn->pending().resize(std::min(pc.reply_start, conn->pending().size()));
    ReplyWriter writer(&conn->pending());
    for (uint32_t i = 0; i < pc.count; ++i) ReplyStatus(writer, s);
    ListOutput(*conn);
  }
  if (!pass_local_parts_.empty()) SettleLocalParts(s);
}

void Server::ExpireBlocked(int64_t now_ms) {
  for (const BlockedClients::Entry& entry : blocked_.TakeExpired(now_ms)) {
    Connection* conn = Find(entry.conn_id);
    if (conn == nullptr) continue;
    ++stats_.bpop_timeouts;
    ReplyWriter writer(&conn->pending());
    ReplyPopTimeout(writer, entry.request.with_count);
    Unblock(*conn);
  }
}

void Server::HoldForSync() {
  if (frontier_.commit_seq() > written_seq_) {
    StatusOr<uint64_t> written = frontier_.WriteLog();
    if (!written.ok()) {
      stats_.last_flush_ok = false;
      DropUnsynced(with_output_, written.status());
      with_output_.clear();
      return;
    }
    written_seq_ = *written;
    syncer_->Request(written_seq_);
  }
  // Everything committed may be durable already (a checkpoint synced it).
  if (!frontier_.HasUnflushedCommits()) return;
  // These replies wait for every commit made so far, not only their own:
  // a read must not report a write that a crash could still undo.
  for (uint64_t id : with_output_) {
    Connection* conn = TakeListed(id);
    if (conn == nullptr) continue;
    if (conn->held_until() == 0) held_.push_back(id);
    conn->set_held_until(std::max(conn->held_until(), written_seq_));
  }
  with_output_.clear();
}

void Server::OnSynced(uint64_t seq, const Status& status, int64_t sync_ns) {
  CountFlush(seq, status, sync_ns);
  std::vector<uint64_t> covered;
  std::vector<uint64_t> waiting;
  for (uint64_t id : held_) {
    Connection* conn = Find(id);
    if (conn == nullptr) continue;
    (conn->held_until() <= seq ? covered : waiting).push_back(id);
  }
  held_.swap(waiting);
  if (!status.ok()) {
    DropUnsynced(covered, status);
    return;
  }
  durable_seq_ = std::max(durable_seq_, seq);
  for (uint64_t id : covered) {
    if (Connection* conn = Find(id)) ReleaseHeld(*conn);
  }
}

void Server::ReleaseHeld(Connection& conn) {
  conn.set_held_until(0);
  if (conn.state() == Connection::State::kClosed) {
    conn.DropPending();
    return;
  }
  const int64_t now = NowMs();
  conn.ReleasePending();
  conn.info().last_interaction_ms = now;
  if (EnforceOutputLimit(conn, now)) return;
  if (conn.state() == Connection::State::kClosing &&
      conn.unsent_bytes() == 0) {
    Close(conn);
  } else if (conn.state() == Connection::State::kOpen &&
             conn.unparsed_bytes() > 0) {
    // What it sent while its replies were held runs in the next pass.
    to_resume_.push_back(conn.id());
    resume_timer_->Fire();
  }
}

Status Server::TimedFlush() {
  const uint64_t seq = frontier_.commit_seq();
  const auto started = std::chrono::steady_clock::now();
  Status s = frontier_.FlushLog();
  CountFlush(seq, s,
             std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now() - started)
                 .count());
  return s;
}

void Server::CountFlush(uint64_t seq, const Status& status, int64_t ns) {
  ++stats_.log_flushes;
  stats_.last_flush_ok = status.ok();
  stats_.log_flush_ns.Observe(static_cast<uint64_t>(std::max<int64_t>(ns, 0)));
  if (status.ok() && seq > stats_.last_flushed_seq) {
    stats_.commits_per_flush.Observe(seq - stats_.last_flushed_seq);
    stats_.last_flushed_seq = seq;
  }
}

bool Server::FlushPass() {
  Status s = TimedFlush();
  if (s.ok()) return true;
  DropUnsynced(with_output_, s);
  with_output_.clear();
  return false;
}

void Server::DropUnsynced(const std::vector<uint64_t>& ids,
                          const Status& why) {
  // These clients' transactions committed but are not durable, and a
  // commit cannot be taken back. Sending the replies would acknowledge
  // writes a crash could lose, and an error reply would be a lie too (the
  // change may well survive). So they are disconnected without any reply:
  // to them it looks like a lost connection, and well-behaved clients
  // retry (every frontier verb is safe to repeat). Storage still reports
  // unflushed commits, so the next pass with replies syncs again before
  // answering.
  Log(LogLevel::kWarning,
      "Log flush failed: %s. Closing %zu client(s) without their replies "
      "(their commands committed but are not known to be durable)",
      why.ToString().c_str(), ids.size());
  for (uint64_t id : ids) {
    if (Connection* conn = Find(id)) {
      conn->set_output_listed(false);
      conn->set_held_until(0);
      conn->DropPending();
      Close(*conn);
    }
  }
}

Connection* Server::TakeListed(uint64_t id) {
  Connection* conn = Find(id);
  if (conn == nullptr) return nullptr;
  conn->set_output_listed(false);
  if (conn->state() == Connection::State::kClosed) {
    conn->DropPending();
    return nullptr;
  }
  return conn;
}

void Server::ReleaseReplies() {
  const int64_t now = with_output_.empty() ? 0 : NowMs();
  for (uint64_t id : with_output_) {
    Connection* conn = TakeListed(id);
    if (conn == nullptr) continue;
    conn->ReleasePending();
    conn->info().last_interaction_ms = now;
    if (EnforceOutputLimit(*conn, now)) continue;
    if (conn->state() == Connection::State::kClosing &&
        conn->unsent_bytes() == 0) {
      Close(*conn);
    }
  }
  with_output_.clear();
}

void Server::ReapClosed() {
  if (closed_.empty()) return;
  for (uint64_t id : closed_) connections_.erase(id);
  closed_.clear();
  UpdateClientCounts();
}

void Server::ArmWakeTimer(int64_t now_ms) {
  if (blocked_.empty()) {
    wake_timer_->Stop();
    return;
  }
  // Wake for the first BPOP deadline or the first moment a URL may become
  // ready, whichever comes first; the periodic tick covers the rest.
  std::optional<int64_t> when = blocked_.EarliestDeadline();
  std::optional<int64_t> due = frontier_.NextWakeMs();
  if (due && *due > now_ms) when = when ? std::min(*when, *due) : *due;
  if (!when) {
    wake_timer_->Stop();
    return;
  }
  wake_timer_->Start(std::max<int64_t>(*when - now_ms, 0));
}

}  // namespace frontier
