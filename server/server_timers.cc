// The Server's timers (server.h): lease expiry ticks, partition hints,
// checkpoints, the everysec flush, the write retry while the disk refuses
// writes, idle clients and output buffer limits (which also bound what
// PubSub delivers), and resuming unblocked clients. Part of the Server
// class; kept apart from the event loop.
#include <string_view>
#include <vector>

#include "server/clock.h"
#include "server/log.h"
#include "server/server.h"

namespace frontier {
namespace {

// Tick() calls per timer event; past it the rest waits for the next pass,
// so a burst of due entries never stalls the loop.
constexpr int kMaxTicksPerTimer = 8;
// While the data directory refuses writes, how often it is tried again.
constexpr int64_t kWriteRetryMs = 1000;

}  // namespace

void Server::RunTick() {
  if (WritesRefused()) return;  // expiring leases writes; it waits
  // A replica's leases expire on the master, which replicates it.
  if (repl_role_ == ReplicationRole::kReplica) return;
  int64_t now = NowMs();
  for (int i = 0; i < kMaxTicksPerTimer; ++i) {
    StatusOr<TickResult> r = frontier_.Tick(now);
    if (!r.ok()) {
      Log(LogLevel::kWarning, "Tick failed: %s", r.status().ToString().c_str());
      return;
    }
    if (r->expired > 0 || r->requeued > 0) {
      Log(LogLevel::kDebug, "Tick: %llu lease(s) expired, %llu URL(s) requeued",
          static_cast<unsigned long long>(r->expired),
          static_cast<unsigned long long>(r->requeued));
    }
    if (!r->more_due) return;
  }
  // More is due: continue in the next pass, after the loop has polled the
  // connections (an event made active from its own callback would run
  // again before any I/O, and a long backlog, such as a large SITE
  // DELETE's removal, would stall every client until it is done).
  tick_again_timer_->Start(0);
}

void Server::RunHints() {
  hint_publisher_.Run(
      frontier_, [this](std::string_view name) { return WaitingOn(name); },
      pubsub_);
}

void Server::RunCheckpoint() {
  if (WritesRefused()) return;  // the write retry checkpoints
  CommitPass();
  const int64_t started = NowMs();
  Status s = frontier_.Checkpoint();
  stats_.last_checkpoint_duration_ms = NowMs() - started;
  stats_.last_checkpoint_ok = s.ok();
  if (!s.ok()) {
    Log(LogLevel::kWarning, "Checkpoint failed: %s", s.ToString().c_str());
    return;
  }
  ++stats_.checkpoints;
  stats_.last_checkpoint_ms = NowMs();
  const CheckpointParts parts = frontier_.last_checkpoint();
  Log(LogLevel::kVerbose,
      "Checkpoint done in %lld ms: journal write-back %lld ms (%llu site "
      "records, %llu leases), txn_checkpoint %lld ms, log removal %lld ms",
      static_cast<long long>(stats_.last_checkpoint_duration_ms),
      static_cast<long long>(parts.write_back_ms),
      static_cast<unsigned long long>(parts.sites_written),
      static_cast<unsigned long long>(parts.leases_moved),
      static_cast<long long>(parts.checkpoint_ms),
      static_cast<long long>(parts.log_removal_ms));
}

void Server::RunEverySecFlush() {
  CommitPass();
  if (!frontier_.HasUnflushedCommits() || WritesRefused()) return;
  Status s = TimedFlush();
  if (!s.ok()) {
    Log(LogLevel::kWarning, "Log flush failed: %s", s.ToString().c_str());
  }
}

void Server::WatchWriteFailure() {
  if (writes_refused_since_ms_ != 0 || stopping_) return;
  Status s = frontier_.WriteStatus();
  if (s.ok()) return;
  writes_refused_since_ms_ = NowMs();
  Log(LogLevel::kWarning,
      "Errors writing to the data directory (%s): refusing write commands "
      "with -MISCONF, retrying every %lld ms",
      s.message().c_str(), static_cast<long long>(kWriteRetryMs));
  write_retry_timer_->Start(kWriteRetryMs);
}

void Server::RunWriteRetry() {
  CommitPass();
  Status s = frontier_.RetryWrites();
  if (!s.ok()) {
    Log(LogLevel::kVerbose, "The data directory still refuses writes: %s",
        s.message().c_str());
    return;
  }
  write_retry_timer_->Stop();
  stats_.last_flush_ok = true;
  Log(LogLevel::kWarning,
      "The data directory takes writes again after %lld ms: accepting write "
      "commands",
      static_cast<long long>(NowMs() - writes_refused_since_ms_));
  writes_refused_since_ms_ = 0;
}

void Server::RunClientsCron() {
  const int64_t now = NowMs();
  const int64_t idle_ms = config_.timeout_s * 1000;
  for (auto& [id, conn] : connections_) {
    if (conn->state() == Connection::State::kClosed) continue;
    if (EnforceOutputLimit(*conn, now)) continue;
    // As Redis, a client blocked in BPOP is never idle: its own timeout
    // applies; nor is a subscriber, which waits for messages. A closing
    // client is already on its way out. An internal client lives as long
    // as its gRPC call, which has deadlines of its own.
    if (idle_ms > 0 && conn->state() == Connection::State::kOpen &&
        !conn->info().subscribed && !conn->internal() &&
        now - conn->info().last_interaction_ms > idle_ms) {
      Log(LogLevel::kVerbose, "Closing idle client id=%llu addr=%s", Ull(id),
          conn->info().address.c_str());
      Close(*conn);
    }
  }
}

bool Server::EnforceOutputLimit(Connection& conn, int64_t now_ms,
                                size_t incoming) {
  const bool pubsub = conn.info().subscribed;
  const OutputBufferLimit& limit =
      pubsub ? config_.client_output_buffer_limit_pubsub
             : config_.client_output_buffer_limit;
  if (limit.hard_bytes == 0 && limit.soft_bytes == 0) return false;
  const size_t bytes = conn.output_bytes() + incoming;
  const bool hard = limit.hard_bytes > 0 && bytes >= limit.hard_bytes;
  bool soft = limit.soft_bytes > 0 && bytes >= limit.soft_bytes;
  if (!soft) {
    conn.set_soft_limit_since_ms(0);
  } else if (conn.soft_limit_since_ms() == 0) {
    conn.set_soft_limit_since_ms(now_ms);  // first seen: the clock starts
    soft = false;
  } else {
    soft = now_ms - conn.soft_limit_since_ms() > limit.soft_seconds * 1000;
  }
  if (!hard && !soft) return false;
  ++stats_.client_output_buffer_limit_disconnections;
  Log(LogLevel::kWarning,
      "Client id=%llu addr=%s closed for overcoming of output buffer limits "
      "(%zu bytes unsent; client-output-buffer-limit %s, %s class)",
      Ull(conn.id()), conn.info().address.c_str(), bytes,
      hard ? "hard" : "soft", pubsub ? "pubsub" : "normal");
  conn.DropPending();
  Close(conn);
  return true;
}

void Server::Deliver(uint64_t client, std::string_view resp) {
  Connection* conn = Find(client);
  // A closing client (QUIT) gets nothing after its last reply.
  if (conn == nullptr || conn->state() != Connection::State::kOpen) return;
  // Checked before the bytes are added: a subscriber that does not read
  // never makes the server hold more than its limit.
  if (EnforceOutputLimit(*conn, NowMs(), resp.size())) return;
  conn->pending().append(resp);
  ListOutput(*conn);
}

void Server::ResumeUnblocked() {
  std::vector<uint64_t> ids;
  ids.swap(to_resume_);
  for (uint64_t id : ids) {
    Connection* conn = Find(id);
    if (conn != nullptr && conn->state() == Connection::State::kOpen) {
      ProcessInput(*conn);
    }
  }
}

}  // namespace frontier
