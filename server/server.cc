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

// As Redis's client-query-buffer-limit: a client that sends this much
// without completing a command (or while blocked) is disconnected.
constexpr size_t kMaxQueryBuffer = size_t{1} << 30;
// Tick() calls per timer event; past it the rest waits for the next pass,
// so a burst of due entries never stalls the loop.
constexpr int kMaxTicksPerTimer = 8;
// At shutdown, how long to keep writing replies to slow clients.
constexpr int64_t kShutdownGraceMs = 1000;

}  // namespace

Server::Server(const Config& config, Frontier& frontier, ServerStats& stats)
    : config_(config),
      frontier_(frontier),
      stats_(stats),
      base_(event_base_new()) {
  event_base* base = base_.get();
  tick_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                        [this] { RunTick(); });
  wake_timer_ =
      std::make_unique<Timer>(base, Timer::Kind::kOnce, [this] { RunTick(); });
  checkpoint_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                              [this] { RunCheckpoint(); });
  fsync_timer_ = std::make_unique<Timer>(base, Timer::Kind::kPeriodic,
                                         [this] { RunEverySecFlush(); });
  resume_timer_ = std::make_unique<Timer>(base, Timer::Kind::kOnce,
                                          [this] { ResumeUnblocked(); });
  for (int sig : {SIGTERM, SIGINT}) {
    EventPtr ev(evsignal_new(base, sig, &Server::OnSignal, this));
    event_add(ev.get(), nullptr);
    signals_.push_back(std::move(ev));
  }
}

// Connections and timers go before the event base (member order).
Server::~Server() = default;

Status Server::Listen() {
  auto listeners = ListenOn(base_.get(), config_.bind, config_.port,
                            &Server::OnAccept, this);
  if (!listeners.ok()) return listeners.status();
  listeners_ = std::move(listeners).value();
  port_ = listeners_.empty() ? 0 : ListenerPort(listeners_.front().get());
  stats_.tcp_port = port_;
  return Status::OK();
}

bool Server::Run() {
  tick_timer_->Start(config_.timer_ms);
  if (config_.checkpoint_interval_ms > 0) {
    checkpoint_timer_->Start(config_.checkpoint_interval_ms);
  }
  if (config_.fsync == FsyncPolicy::kEverySec) fsync_timer_->Start(1000);

  while (!stopping_) {
    if (event_base_loop(base_.get(), EVLOOP_ONCE) < 0) {
      Log(LogLevel::kWarning, "Event loop failed; shutting down");
      BeginShutdown(false, "event loop failure");
    }
    AfterPass();
  }
  DrainOutputs();
  return nosave_;
}

// --- Accepting and reading ---------------------------------------------

void Server::OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr* addr, int,
                      void* arg) {
  static_cast<Server*>(arg)->Accept(fd, addr);
}

void Server::Accept(evutil_socket_t fd, sockaddr* addr) {
  if (stopping_) {
    evutil_closesocket(fd);
    return;
  }
  if (connections_.size() >= config_.maxclients) {
    // Sent straight to the new socket: no transaction, nothing to flush.
    std::string reply;
    ReplyWriter(&reply).Error(errors::kMaxClients);
    (void)send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
    evutil_closesocket(fd);
    ++stats_.rejected_connections;
    Log(LogLevel::kVerbose, "Rejected %s: max number of clients reached",
        FormatPeer(addr).c_str());
    return;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  BufferEventPtr bev(
      bufferevent_socket_new(base_.get(), fd, BEV_OPT_CLOSE_ON_FREE));
  if (!bev) {
    evutil_closesocket(fd);
    Log(LogLevel::kWarning, "Could not create a buffer for a new client");
    return;
  }
  uint64_t id = ++next_client_id_;
  std::string peer = FormatPeer(addr);
  Log(LogLevel::kVerbose, "Accepted %s (id=%llu)", peer.c_str(),
      static_cast<unsigned long long>(id));
  ConnectionEvents* events = this;
  connections_.emplace(
      id, std::make_unique<Connection>(id, std::move(bev), std::move(peer),
                                       NowMs(), events));
  ++stats_.total_connections_received;
  UpdateClientCounts();
}

void Server::OnReadable(Connection& conn) {
  conn.ReadSocket();
  if (conn.state() == Connection::State::kClosing ||
      conn.state() == Connection::State::kClosed) {
    conn.CompactInput();
    return;
  }
  if (conn.unparsed_bytes() > kMaxQueryBuffer) {
    Log(LogLevel::kWarning,
        "Closing client id=%llu: query buffer over %zu bytes",
        static_cast<unsigned long long>(conn.id()), kMaxQueryBuffer);
    Close(conn);
    return;
  }
  // A blocked client's input waits in its buffer until BPOP returns.
  if (conn.state() == Connection::State::kOpen) ProcessInput(conn);
}

void Server::OnDrained(Connection& conn) {
  if (conn.state() == Connection::State::kClosing && conn.unsent_bytes() == 0) {
    Close(conn);
  }
}

void Server::OnDisconnected(Connection& conn, short what) {
  Log(LogLevel::kVerbose, "Client id=%llu %s",
      static_cast<unsigned long long>(conn.id()),
      (what & BEV_EVENT_EOF) ? "closed the connection" : "connection error");
  Close(conn);
}

void Server::OnSignal(evutil_socket_t sig, short, void* arg) {
  static_cast<Server*>(arg)->BeginShutdown(
      false, sig == SIGINT ? "Received SIGINT" : "Received SIGTERM");
}

// --- Executing commands --------------------------------------------------

void Server::ProcessInput(Connection& conn) {
  while (conn.state() == Connection::State::kOpen && !stopping_) {
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
  CommandContext ctx{conn.args(), writer,      frontier_, config_,
                     stats_,      conn.info(), NowMs(),   effects};
  const CommandSpec* spec = RunCommand(ctx);
  ++stats_.total_commands_processed;
  if (spec != nullptr && (spec->flags & kCmdWrite)) unflushed_writes_ = true;
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
  if (!blocked_.empty()) {
    ServeBlocked(now);
    ExpireBlocked(now);
  }
  // fsync always: no reply leaves before the commits it reports are on
  // disk. One flush covers every command of the pass, from every client.
  if (config_.fsync == FsyncPolicy::kAlways && unflushed_writes_ &&
      !with_output_.empty()) {
    FlushPass();
  }
  ReleaseReplies();
  ReapClosed();
  ArmWakeTimer(now);
}

void Server::ServeBlocked(int64_t now_ms) {
  while (!blocked_.empty() && frontier_.HasReady(now_ms)) {
    BlockedClients::Entry entry = blocked_.front();
    Connection* conn = Find(entry.conn_id);
    if (conn == nullptr) {  // cannot happen: Close() unqueues
      blocked_.PopFront();
      continue;
    }
    auto urls =
        frontier_.Pop(entry.request.count, entry.request.lease_ms, now_ms);
    if (urls.ok() && urls->empty()) break;  // not ready after all: wait
    blocked_.PopFront();
    ReplyWriter writer(&conn->pending());
    if (!urls.ok()) {
      ReplyStatus(writer, urls.status());
    } else {
      unflushed_writes_ = true;
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

bool Server::FlushPass() {
  Status s = frontier_.FlushLog();
  ++stats_.log_flushes;
  stats_.last_flush_ok = s.ok();
  if (s.ok()) {
    unflushed_writes_ = false;
    return true;
  }
  // The pass's transactions committed but are not durable, and a commit
  // cannot be taken back. Sending the replies would acknowledge writes a
  // crash could lose, and an error reply would be a lie too (the change
  // may well survive). So these clients are disconnected without any
  // reply: to them it looks like a lost connection, and well-behaved
  // clients retry (every frontier verb is safe to repeat). The flag stays
  // set so the next pass with replies flushes again before answering.
  Log(LogLevel::kWarning,
      "Log flush failed: %s. Closing %zu client(s) without their replies "
      "(their commands committed but are not known to be durable)",
      s.ToString().c_str(), with_output_.size());
  for (uint64_t id : with_output_) {
    if (Connection* conn = Find(id)) {
      conn->set_output_listed(false);
      conn->DropPending();
      Close(*conn);
    }
  }
  with_output_.clear();
  return false;
}

void Server::ReleaseReplies() {
  for (uint64_t id : with_output_) {
    Connection* conn = Find(id);
    if (conn == nullptr) continue;
    conn->set_output_listed(false);
    if (conn->state() == Connection::State::kClosed) {
      conn->DropPending();
      continue;
    }
    conn->ReleasePending();
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
  int64_t now = NowMs();
  for (int i = 0; i < kMaxTicksPerTimer; ++i) {
    StatusOr<TickResult> r = frontier_.Tick(now);
    if (!r.ok()) {
      Log(LogLevel::kWarning, "Tick failed: %s", r.status().ToString().c_str());
      return;
    }
    if (r->expired > 0 || r->requeued > 0) {
      unflushed_writes_ = true;
      Log(LogLevel::kDebug, "Tick: %llu lease(s) expired, %llu URL(s) requeued",
          static_cast<unsigned long long>(r->expired),
          static_cast<unsigned long long>(r->requeued));
    }
    if (!r->more_due) return;
  }
  tick_timer_->Fire();  // more is due: continue in the next pass
}

void Server::RunCheckpoint() {
  Status s = frontier_.Checkpoint();
  stats_.last_checkpoint_ok = s.ok();
  if (!s.ok()) {
    Log(LogLevel::kWarning, "Checkpoint failed: %s", s.ToString().c_str());
    return;
  }
  ++stats_.checkpoints;
  stats_.last_checkpoint_ms = NowMs();
  Log(LogLevel::kVerbose, "Checkpoint done");
}

void Server::RunEverySecFlush() {
  if (!unflushed_writes_) return;
  Status s = frontier_.FlushLog();
  ++stats_.log_flushes;
  stats_.last_flush_ok = s.ok();
  if (s.ok()) {
    unflushed_writes_ = false;
  } else {
    Log(LogLevel::kWarning, "Log flush failed: %s", s.ToString().c_str());
  }
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
}

void Server::DrainOutputs() {
  tick_timer_->Stop();
  wake_timer_->Stop();
  checkpoint_timer_->Stop();
  fsync_timer_->Stop();
  resume_timer_->Stop();
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
