// The Server's administration side: what happens to a client as it is
// accepted (authentication state, protected mode) and the ServerControl
// interface that CLIENT LIST/KILL, CONFIG SET/RESETSTAT and SLOWLOG use.
// Part of the Server class (server.h); kept apart from the event loop.
#include <sys/socket.h>

#include <algorithm>

#include "server/auth.h"
#include "server/clock.h"
#include "server/errors.h"
#include "server/listener.h"
#include "server/log.h"
#include "server/server.h"

namespace frontier {

void Server::Admit(Connection& conn, evutil_socket_t fd, const sockaddr* addr) {
  ClientInfo& info = conn.info();
  info.fd = static_cast<int>(fd);
  sockaddr_storage local;
  socklen_t local_len = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) == 0) {
    info.local_address = FormatPeer(reinterpret_cast<sockaddr*>(&local));
  }
  // Decided once, at accept: a later CONFIG SET requirepass does not log
  // out the clients already connected (as in Redis).
  info.authenticated = !AuthRequired(config_);
  info.role = info.authenticated ? Role::kAdmin : Role::kNone;
  if (!ProtectedModeRefuses(config_, addr)) return;
  // As Redis: the error goes out through the connection (so a TLS client
  // reads it after its handshake), then the connection closes.
  Log(LogLevel::kVerbose,
      "Refused %s (id=%llu): protected mode, and no password is set",
      info.address.c_str(), Ull(conn.id()));
  ReplyWriter(&conn.pending()).Error(errors::kDenied);
  conn.set_state(Connection::State::kClosing);
  conn.StopReading();
  ListOutput(conn);
}

std::vector<ClientSnapshot> Server::Clients() const {
  std::vector<ClientSnapshot> out;
  out.reserve(connections_.size());
  for (const auto& [id, conn] : connections_) {
    if (conn->state() == Connection::State::kClosed) continue;
    ClientSnapshot s;
    s.info = conn->info();
    s.query_buffer = conn->query_buffer_bytes();
    s.output = conn->output_bytes();
    s.blocked = conn->state() == Connection::State::kBlocked;
    s.closing = conn->state() == Connection::State::kClosing;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const ClientSnapshot& a, const ClientSnapshot& b) {
              return a.info.id < b.info.id;
            });
  return out;
}

bool Server::KillClient(uint64_t id) {
  Connection* conn = Find(id);
  if (conn == nullptr || conn->state() == Connection::State::kClosed) {
    return false;
  }
  Log(LogLevel::kVerbose, "Client id=%llu addr=%s killed by CLIENT KILL",
      Ull(id), conn->info().address.c_str());
  conn->DropPending();
  Close(*conn);
  return true;
}

Status Server::ApplyConfig(const Config& updated) {
  // The frontier first: it is the only part that can refuse.
  Status s = frontier_.UpdateOptions(ToFrontierOptions(updated), NowMs());
  if (!s.ok()) return s;
  const Config previous = config_;
  config_ = updated;

  if (config_.loglevel != previous.loglevel) SetLogLevel(config_.loglevel);
  if (config_.timer_ms != previous.timer_ms) {
    tick_timer_->Start(config_.timer_ms);
  }
  if (config_.checkpoint_interval_ms != previous.checkpoint_interval_ms) {
    if (config_.checkpoint_interval_ms > 0) {
      checkpoint_timer_->Start(config_.checkpoint_interval_ms);
    } else {
      checkpoint_timer_->Stop();
    }
  }
  slowlog_.Trim(config_.slowlog_max_len);
  if (config_.hint_interval_ms != previous.hint_interval_ms) {
    hint_timer_->Start(config_.hint_interval_ms);
  }
  // Everything else (maxclients, timeout, requirepass, protected-mode,
  // slowlog-log-slower-than, the buffer limits) is read where it is used.
  return Status::OK();
}

void Server::ResetStats() {
  stats_.total_connections_received = 0;
  stats_.total_commands_processed = 0;
  stats_.rejected_connections = 0;
  stats_.protocol_errors = 0;
  stats_.bpop_timeouts = 0;
  stats_.passes = 0;
  stats_.failed_passes = 0;
  stats_.client_query_buffer_limit_disconnections = 0;
  stats_.client_output_buffer_limit_disconnections = 0;
  stats_.cluster_forwarded = 0;
  stats_.cluster_forward_errors = 0;
  stats_.cluster_moved = 0;
  stats_.cluster_forward_held = 0;
  stats_.cluster_madd_parts = 0;
  stats_.cluster_madd_batches = 0;
  stats_.commands.Reset();
  // Kept as it was if Berkeley DB cannot say (the ratio then spans more).
  auto cache = frontier_.CacheStats();
  if (cache.ok()) stats_.cache_misses_at_reset = cache->misses;
}

}  // namespace frontier
