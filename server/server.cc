// The Server's loop (server.h): set-up, listeners, accepting and reading
// clients, executing their commands, shutdown and connection bookkeeping.
// The end of a pass is in server_pass.cc, the timers in server_timers.cc
// and the administration side in server_admin.cc.
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
#include "server/replication_config.h"
#include "server/reply.h"

namespace frontier {
namespace {

// At shutdown, how long to keep writing replies to slow clients.
constexpr int64_t kShutdownGraceMs = 1000;
// How often idle clients and output buffer limits are checked.
constexpr int64_t kClientsCronMs = 1000;

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
  StartReplicationEvents();
  backup_ = std::make_unique<BackupRunner>(base);
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
  if (config_.urlfrontier_port != 0) {
    InternalClients& clients = *this;
    auto door = UrlFrontierDoor::Start(base_.get(), config_, clients);
    if (!door.ok()) {
      listeners_.clear();
      http_.reset();
      return door.status();
    }
    urlfrontier_ = std::move(door).value();
    stats_.urlfrontier = &urlfrontier_->rpc_stats();
  }
  stats_.tcp_port = port_;
  if (repl_events_) {
    // What this site tells its peers: the port it really listens on.
    client_address_ =
        AnnouncedClientAddress(config_, port_ != 0 ? port_ : tls_port_);
    SyncGroupDirectory();
  }
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
    ReopenDeadHandles();  // server_replication.cc
    frontier_.BeginPass();  // AfterPass commits it
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
  CancelBackup();
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
  NotePassCommand(conn);
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
  // A command that waits replies later, outside this pass.
  if (!effects.block && !effects.await_backup && !effects.await_forward &&
      !effects.await_handover) {
    ++conn.pass_commands().count;
  }
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
  if (effects.await_backup || effects.await_handover) {
    conn.set_state(Connection::State::kBlocked);
  }
  if (effects.await_forward) {
    // Unread until the reply comes (Server::OnForwardReply): the
    // back-pressure of ClusterForwarder's limit reaches the client.
    conn.set_state(Connection::State::kBlocked);
    conn.StopReading();
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

// --- Shutdown --------------------------------------------------------------

void Server::BeginShutdown(bool nosave, const char* why) {
  if (stopping_) return;
  Log(LogLevel::kWarning, "%s, shutting down%s", why,
      nosave ? " without a checkpoint (NOSAVE)" : "");
  stopping_ = true;
  nosave_ = nosave;
  listeners_.clear();  // stop accepting at once
  http_.reset();
  // Its calls end now (within a fraction of a second), open streams too.
  if (urlfrontier_) urlfrontier_->Stop();
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
  if (directory_timer_) directory_timer_->Stop();
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
  conn.NotifyClosed();
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
