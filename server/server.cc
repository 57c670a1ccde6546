#include "server/server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <utility>

#include "server/clock.h"
#include "server/command_table.h"
#include "server/errors.h"
#include "server/listener.h"
#include "server/log.h"
#include "server/reply.h"

namespace frontier {
namespace {

// Tick() calls per timer event; past it the rest waits for the next pass,
// so a burst of due entries never stalls the loop.
constexpr int kMaxTicksPerTimer = 8;
// At shutdown, how long to keep writing replies to slow clients.
constexpr int64_t kShutdownGraceMs = 1000;
// How often idle clients and output buffer limits are checked.
constexpr int64_t kClientsCronMs = 1000;
// While the data directory refuses writes, how often it is tried again.
constexpr int64_t kWriteRetryMs = 1000;

unsigned long long Ull(uint64_t n) {
  return static_cast<unsigned long long>(n);
}

}  // namespace

Server::Server(Config& config, Frontier& frontier, ServerStats& stats)
    : config_(config),
      frontier_(frontier),
      stats_(stats),
      base_(event_base_new()) {
  event_base* base = base_.get();
  tick_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                        [this] { RunTick(); });
  wake_timer_ =
      std::make_unique<Timer>(base, Timer::Kind::kOnce, [this] { RunTick(); });
  tick_again_timer_ =
      std::make_unique<Timer>(base, Timer::Kind::kOnce, [this] { RunTick(); });
  checkpoint_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                              [this] { RunCheckpoint(); });
  fsync_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                         [this] { RunEverySecFlush(); });
  resume_timer_ = std::make_unique<Timer>(base, Timer::Kind::kOnce,
                                          [this] { ResumeUnblocked(); });
  clients_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                           [this] { RunClientsCron(); });
  write_retry_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                               [this] { RunWriteRetry(); });
  hint_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                        [this] { RunHints(); });
  syncer_ = std::make_unique<LogSyncer>(
      base, frontier_,
      [this](uint64_t seq, const Status& status, int64_t sync_ns) {
        OnSynced(seq, status, sync_ns);
      });
  for (int sig : {SIGTERM, SIGINT}) {
    EventPtr ev(evsignal_new(base, sig, &Server::OnSignal, this));
    event_add(ev.get(), nullptr);
    signals_.push_back(std::move(ev));
  }
}

// Connections and timers go before the event base (member order).
Server::~Server() = default;

Status Server::Listen() {
  // As Redis: port 0 turns plain TCP off, tls-port 0 (the default) TLS.
  if (config_.port == 0 && config_.tls_port == 0) {
    return Status::InvalidArgument(
        "port is 0 (no plain TCP) and tls-port is not set: nothing to listen "
        "on");
  }
  if (config_.port != 0 && config_.port == config_.tls_port) {
    return Status::InvalidArgument("port and tls-port are both " +
                                   std::to_string(config_.port) +
                                   ": they must differ");
  }
  tcp_type_ = NewTcpConnectionType();
  if (config_.tls_port != 0) {
    auto tls = TlsContext::Create(config_);
    if (!tls.ok()) return tls.status();
    tls_type_ = NewTlsConnectionType(std::move(tls).value());
  }
  if (config_.port != 0) {
    StatusOr<int> bound = ListenWith(config_.port, *tcp_type_);
    if (!bound.ok()) return bound.status();
    port_ = *bound;
  }
  if (tls_type_) {
    StatusOr<int> bound = ListenWith(config_.tls_port, *tls_type_);
    if (!bound.ok()) {
      listeners_.clear();
      return bound.status();
    }
    tls_port_ = *bound;
  }
  if (config_.http_port != 0) {
    const ServerControl& control = *this;
    auto http = HttpServer::Start(
        base_.get(), StatsSources{config_, frontier_, stats_, control, pubsub_});
    if (!http.ok()) {
      listeners_.clear();
      return http.status();
    }
    http_ = std::move(http).value();
  }
  stats_.tcp_port = port_;
  return Status::OK();
}

StatusOr<int> Server::ListenWith(int port, const ConnectionType& type) {
  endpoints_.push_back(std::make_unique<Endpoint>(Endpoint{this, &type}));
  auto listeners = ListenOn(base_.get(), config_.bind, port, &Server::OnAccept,
                            endpoints_.back().get());
  if (!listeners.ok()) return listeners.status();
  int bound = listeners->empty() ? 0 : ListenerPort(listeners->front().get());
  for (ListenerPtr& l : std::move(listeners).value()) {
    listeners_.push_back(std::move(l));
  }
  return bound;
}

bool Server::Run() {
  tick_timer_->Start(config_.timer_ms);
  if (config_.checkpoint_interval_ms > 0) {
    checkpoint_timer_->Start(config_.checkpoint_interval_ms);
  }
  if (config_.fsync == FsyncPolicy::kEverySec) fsync_timer_->Start(1000);
  clients_timer_->Start(kClientsCronMs);
  hint_timer_->Start(config_.hint_interval_ms);

  while (!stopping_) {
    if (event_base_loop(base_.get(), EVLOOP_ONCE) < 0) {
      Log(LogLevel::kWarning, "Event loop failed; shutting down");
      BeginShutdown(false, "event loop failure");
    }
    AfterPass();
  }
  // Replies still waiting for a sync: sync here instead, then send them.
  syncer_->Stop();
  if (!held_.empty()) {
    std::vector<uint64_t> held;
    held.swap(held_);
    Status s = TimedFlush();
    if (s.ok()) {
      for (uint64_t id : held) {
        if (Connection* conn = Find(id)) ReleaseHeld(*conn);
      }
    } else {
      DropUnsynced(held, s);
    }
  }
  DrainOutputs();
  return nosave_;
}

// --- Accepting and reading ---------------------------------------------

void Server::OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr* addr, int,
                      void* arg) {
  const auto* endpoint = static_cast<const Endpoint*>(arg);
  endpoint->server->Accept(fd, addr, *endpoint->type);
}

void Server::Accept(evutil_socket_t fd, sockaddr* addr,
                    const ConnectionType& type) {
  if (stopping_) {
    evutil_closesocket(fd);
    return;
  }
  if (connections_.size() >= config_.maxclients) {
    // Sent straight to the new socket: no transaction, nothing to flush.
    // A TLS client cannot read it before a handshake, which would cost
    // the loop exactly when it is overloaded: it is just closed (as Redis).
    if (type.plaintext()) {
      std::string reply;
      ReplyWriter(&reply).Error(errors::kMaxClients);
      (void)send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
    }
    evutil_closesocket(fd);
    ++stats_.rejected_connections;
    Log(LogLevel::kVerbose, "Rejected %s (%s): max number of clients reached",
        FormatPeer(addr).c_str(), type.name());
    return;
  }
  SetClientSocketOptions(fd, static_cast<int>(config_.tcp_keepalive_s));
  BufferEventPtr bev = type.Wrap(base_.get(), fd);  // closes fd on failure
  if (!bev) {
    Log(LogLevel::kWarning, "Could not create a %s buffer for a new client",
        type.name());
    return;
  }
  uint64_t id = ++next_client_id_;
  std::string peer = FormatPeer(addr);
  Log(LogLevel::kVerbose, "Accepted %s (id=%llu, %s)", peer.c_str(), Ull(id),
      type.name());
  RespLimits limits;
  limits.max_bulk_len = config_.proto_max_bulk_len;
  limits.max_multibulk_len = config_.proto_max_multibulk_len;
  ConnectionEvents* events = this;
  auto it = connections_
                .emplace(id, std::make_unique<Connection>(
                                 id, std::move(bev), type, limits,
                                 std::move(peer), NowMs(), events))
                .first;
  ++stats_.total_connections_received;
  UpdateClientCounts();
  Admit(*it->second, fd, addr);
}

void Server::OnReadable(Connection& conn) {
  conn.ReadSocket();
  if (conn.state() == Connection::State::kClosing ||
      conn.state() == Connection::State::kClosed) {
    conn.CompactInput();
    return;
  }
  conn.info().last_interaction_ms = NowMs();
  // client-query-buffer-limit: what was sent without becoming a command
  // (one huge argument, or input piling up behind a BPOP).
  if (conn.query_buffer_bytes() > config_.client_query_buffer_limit) {
    ++stats_.client_query_buffer_limit_disconnections;
    Log(LogLevel::kWarning,
        "Closing client that reached max query buffer length: id=%llu "
        "addr=%s qbuf=%zu (client-query-buffer-limit %llu)",
        Ull(conn.id()), conn.info().address.c_str(), conn.query_buffer_bytes(),
        Ull(config_.client_query_buffer_limit));
    Close(conn);
    return;
  }
  // A blocked client's input waits in its buffer until BPOP returns.
  if (conn.state() == Connection::State::kOpen) ProcessInput(conn);
}

void Server::OnDrained(Connection& conn) {
  conn.info().last_interaction_ms = NowMs();
  if (conn.state() == Connection::State::kClosing &&
      conn.unsent_bytes() == 0 && conn.held_until() == 0) {
    Close(conn);
  }
}

void Server::OnDisconnected(Connection& conn, short what) {
  if (what & BEV_EVENT_EOF) {
    Log(LogLevel::kVerbose, "Client id=%llu closed the connection",
        Ull(conn.id()));
  } else {
    // For TLS this is where a failed handshake shows (no or a bad client
    // certificate, a protocol version not offered).
    std::string why = conn.DescribeError();
    Log(LogLevel::kVerbose, "Client id=%llu addr=%s (%s) connection error%s%s",
        Ull(conn.id()), conn.info().address.c_str(), conn.type_name(),
        why.empty() ? "" : ": ", why.c_str());
  }
  Close(conn);
}

void Server::OnSignal(evutil_socket_t sig, short, void* arg) {
  static_cast<Server*>(arg)->BeginShutdown(
      false, sig == SIGINT ? "Received SIGINT" : "Received SIGTERM");
}

// --- Executing commands --------------------------------------------------

void Server::ProcessInput(Connection& conn) {
  while (conn.state() == Connection::State::kOpen && conn.held_until() == 0 &&
         !stopping_) {
    RespParser::Result r = conn.NextCommand();
    if (r == RespParser::Result::kNeedMore) break;
    if (r == RespParser::Result::kError) {
      ReplyProtocolError(conn);
      break;
    }
    if (!conn.args().empty()) Execute(conn);
  }
  conn.CompactInput();
}

void Server::Execute(Connection& conn) {
  CommandEffects effects;
  ReplyWriter writer(&conn.pending());
  ServerControl& control = *this;
  CommandContext ctx{conn.args(), writer,  frontier_, config_, stats_,
                     conn.info(), NowMs(), effects,   control, pubsub_};
  const auto started = std::chrono::steady_clock::now();
  const CommandSpec* spec = RunCommand(ctx);
  if (spec != nullptr) {  // it ran: the slow log may keep it
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
    stats_.commands.Record(static_cast<size_t>(spec - Commands().data()),
                           static_cast<uint64_t>(ns));
    const int64_t us = ns / 1000;
    slowlog_.Record(conn.args(), us, ctx.now_ms / 1000, conn.info().address,
                    conn.info().name, config_.slowlog_log_slower_than_us,
                    config_.slowlog_max_len);
  }
  ++stats_.total_commands_processed;
  ListOutput(conn);

  if (effects.close_after_reply) {
    conn.set_state(Connection::State::kClosing);
    conn.StopReading();
  }
  if (effects.block) {
    conn.set_state(Connection::State::kBlocked);
    blocked_.Add(conn.id(), *effects.block);
    UpdateClientCounts();
  }
  if (effects.shutdown_nosave) {
    // As Redis: no reply; this client is closed with all the others.
    BeginShutdown(*effects.shutdown_nosave, "User requested shutdown");
  }
}

void Server::ReplyProtocolError(Connection& conn) {
  ++stats_.protocol_errors;
  Log(LogLevel::kVerbose, "Protocol error (%s) from client id=%llu %s",
      conn.parse_error().c_str(), static_cast<unsigned long long>(conn.id()),
      conn.info().address.c_str());
  std::string text(errors::kProtocolErrorPrefix);
  text += conn.parse_error();
  ReplyWriter(&conn.pending()).Error(text);
  conn.set_state(Connection::State::kClosing);
  conn.StopReading();
  ListOutput(conn);
}

// --- The end of a pass ---------------------------------------------------

void Server::AfterPass() {
  ++stats_.passes;
  int64_t now = NowMs();
  const bool refused = WritesRefused();
  if (!blocked_.empty()) {
    if (!refused) ServeBlocked(now);  // a POP is a write
    ExpireBlocked(now);
  }
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
  const auto can_serve = [this, now_ms](std::string_view name) {
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
    auto urls =
        PopFromPartition(frontier_, entry.request.partition,
                         entry.request.count, entry.request.lease_ms, now_ms);
    if (urls.ok() && urls->empty()) break;  // not ready after all: wait
    blocked_.Remove(entry.conn_id);
    ReplyWriter writer(&conn->pending());
    if (!urls.ok()) {
      ReplyStatus(writer, urls.status());
    } else {
      ReplyPopped(writer, *urls, entry.request.with_count);
    }
    Unblock(*conn);
  }
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

// --- Timers ----------------------------------------------------------------

void Server::RunTick() {
  if (WritesRefused()) return;  // expiring leases writes; it waits
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
  Log(LogLevel::kVerbose, "Checkpoint done in %lld ms",
      static_cast<long long>(stats_.last_checkpoint_duration_ms));
}

void Server::RunEverySecFlush() {
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
    // client is already on its way out.
    if (idle_ms > 0 && conn->state() == Connection::State::kOpen &&
        !conn->info().subscribed &&
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

// --- Shutdown --------------------------------------------------------------

void Server::BeginShutdown(bool nosave, const char* why) {
  if (stopping_) return;
  Log(LogLevel::kWarning, "%s, shutting down%s", why,
      nosave ? " without a checkpoint (NOSAVE)" : "");
  stopping_ = true;
  nosave_ = nosave;
  listeners_.clear();  // stop accepting at once
  http_.reset();
}

void Server::DrainOutputs() {
  tick_timer_->Stop();
  wake_timer_->Stop();
  tick_again_timer_->Stop();
  checkpoint_timer_->Stop();
  fsync_timer_->Stop();
  resume_timer_->Stop();
  clients_timer_->Stop();
  write_retry_timer_->Stop();
  hint_timer_->Stop();
  // Give replies already released a moment to reach slow clients. A short
  // periodic timer makes each EVLOOP_ONCE return even if nothing happens.
  Timer guard(base_.get(), Timer::Kind::kPeriodic, [] {});
  guard.Start(20);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(kShutdownGraceMs);
  auto unsent = [this] {
    return std::any_of(
        connections_.begin(), connections_.end(), [](const auto& entry) {
          return entry.second->state() != Connection::State::kClosed &&
                 entry.second->unsent_bytes() > 0;
        });
  };
  while (unsent() && std::chrono::steady_clock::now() < deadline) {
    event_base_loop(base_.get(), EVLOOP_ONCE);
    ReapClosed();
  }
  blocked_ = BlockedClients();
  with_output_.clear();
  closed_.clear();
  connections_.clear();
  UpdateClientCounts();
}

// --- Connection bookkeeping -----------------------------------------------

void Server::ListOutput(Connection& conn) {
  if (conn.output_listed() || conn.pending().empty()) return;
  conn.set_output_listed(true);
  with_output_.push_back(conn.id());
}

void Server::Unblock(Connection& conn) {
  conn.set_state(Connection::State::kOpen);
  ListOutput(conn);
  UpdateClientCounts();
  if (conn.unparsed_bytes() > 0) {
    // Its pipelined commands run in the next pass, after this reply.
    to_resume_.push_back(conn.id());
    resume_timer_->Fire();
  }
}

void Server::Close(Connection& conn) {
  if (conn.state() == Connection::State::kClosed) return;
  conn.set_state(Connection::State::kClosed);
  conn.StopReading();
  blocked_.Remove(conn.id());
  pubsub_.RemoveClient(conn.id());
  closed_.push_back(conn.id());
  UpdateClientCounts();
}

Connection* Server::Find(uint64_t id) {
  auto it = connections_.find(id);
  return it == connections_.end() ? nullptr : it->second.get();
}

void Server::UpdateClientCounts() {
  stats_.connected_clients = connections_.size() - closed_.size();
  stats_.blocked_clients = blocked_.size();
}

}  // namespace frontier
