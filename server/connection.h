// Connection: one client socket (a libevent bufferevent), its input buffer
// and RESP parser, and the replies it has been given but not yet released.
//
// Replies are written into pending() through a ReplyWriter and reach the
// socket only when the event loop calls ReleasePending() after the pass's
// group commit (see docs/event-loop.md). The connection knows nothing of
// commands; the Server drives it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/resp_parser.h"
#include "server/command_context.h"
#include "server/connection_type.h"
#include "server/libevent_ptr.h"

namespace frontier {

class Connection;

// Where the replies of a connection without a socket go: an internal
// client, which another thread drives through the loop (the URL Frontier
// door, server/urlfrontier_door.h). Both calls come on the loop thread.
class ReplySink {
 public:
  virtual ~ReplySink() = default;
  // Released replies (durable, as a socket client's), in order.
  virtual void Deliver(std::string bytes) = 0;
  // The connection was closed; nothing more comes. `why` is "" for an
  // ordinary close, or the error that refused the client (protected mode).
  virtual void Closed(std::string_view why) = 0;
};

// What a connection reports to the event loop that owns it.
class ConnectionEvents {
 public:
  virtual ~ConnectionEvents() = default;
  // New bytes were read from the socket (already in the bufferevent).
  virtual void OnReadable(Connection& conn) = 0;
  // Everything handed to the socket has been written.
  virtual void OnDrained(Connection& conn) = 0;
  // EOF, a socket error, or a timeout (`what` holds BEV_EVENT_* bits).
  virtual void OnDisconnected(Connection& conn, short what) = 0;
};

class Connection {
 public:
  enum class State {
    kOpen,     // reading and executing commands
    kBlocked,  // waiting in BPOP or for its BACKUP to end: input is
               // buffered but not executed
    kClosing,  // a last reply is on its way out; nothing more is read
    kClosed,   // gone: waiting to be destroyed at the end of the pass
  };

  // Takes ownership of `bev` (and so of its socket), made by `type`;
  // parses requests within `limits`; starts reading, and reports to
  // `events`. `type` and `events` must outlive the connection.
  Connection(uint64_t id, BufferEventPtr bev, const ConnectionType& type,
             RespLimits limits, std::string address, int64_t now_ms,
             ConnectionEvents* events);
  // An internal client: no socket; its input comes from AppendInput()
  // and its released replies go to `sink`.
  Connection(uint64_t id, std::shared_ptr<ReplySink> sink, RespLimits limits,
             std::string address, int64_t now_ms);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  uint64_t id() const { return info_.id; }
  ClientInfo& info() { return info_; }
  // Stops reading from the socket (closing, closed, or waiting for a
  // forwarded command's reply), and starts again.
  void StopReading();
  void StartReading();
  State state() const { return state_; }
  void set_state(State state) { state_ = state; }
  // "tcp", "tls" or "internal".
  const char* type_name() const {
    return type_ == nullptr ? "internal" : type_->name();
  }
  bool internal() const { return sink_ != nullptr; }
  // An internal client's sink hears that it is closed (Server::Close).
  void NotifyClosed() {
    if (sink_) sink_->Closed("");
  }
  // Why the connection failed (for OnDisconnected's log line); "" if
  // nothing says. See ConnectionType::DescribeError.
  std::string DescribeError() const {
    return type_ == nullptr ? "" : type_->DescribeError(bev_.get());
  }

  // --- Input ---
  // Moves everything the bufferevent has read into the input buffer.
  void ReadSocket();
  // An internal client's request bytes, as if read.
  void AppendInput(std::string_view bytes) { input_.append(bytes); }
  // Parses the next command from the input buffer; after kCommand it is in
  // args() until the next call. See RespParser for kNeedMore/kError.
  RespParser::Result NextCommand();
  const std::vector<std::string>& args() const { return parser_.args(); }
  const std::string& parse_error() const { return parser_.error(); }
  // Bytes read but not yet parsed.
  size_t unparsed_bytes() const { return input_.size() - input_pos_; }
  // What the client sent that has not become a command yet: unparsed
  // bytes plus the arguments of a command still arriving. The measure of
  // client-query-buffer-limit.
  size_t query_buffer_bytes() const {
    return unparsed_bytes() + parser_.partial_bytes();
  }
  // Drops parsed bytes from the front of the input buffer.
  void CompactInput();

  // --- Output ---
  // Reply bytes of this pass, not yet on the socket.
  std::string& pending() { return pending_; }
  // True once the connection is on the loop's "has output" list this pass.
  bool output_listed() const { return output_listed_; }
  void set_output_listed(bool listed) { output_listed_ = listed; }
  // fsync always: pending() holds replies that wait for the log to be
  // synced up to held_until() (a commit sequence number; 0 = not held).
  // Meanwhile the connection's further input is buffered, not executed, so
  // its replies keep their order.
  uint64_t held_until() const { return held_until_; }
  void set_held_until(uint64_t seq) { held_until_ = seq; }
  // Hands pending() to the socket and clears it.
  void ReleasePending();
  // Discards pending() unsent.
  void DropPending() { pending_.clear(); }
  // Bytes handed to the socket but not yet written.
  size_t unsent_bytes() const;
  // Reply bytes not yet on the socket, released or not: the measure of
  // client-output-buffer-limit.
  size_t output_bytes() const { return pending_.size() + unsent_bytes(); }
  // When output_bytes() was first seen above the soft output limit, or 0.
  int64_t soft_limit_since_ms() const { return soft_limit_since_ms_; }
  void set_soft_limit_since_ms(int64_t ms) { soft_limit_since_ms_ = ms; }

  // --- The pass's transaction (docs/event-loop.md) ---
  // Commands of this connection that ran since the loop's last commit of
  // the pass's transaction, and where their replies start in pending():
  // if that commit fails, each of them is answered with its error instead.
  struct PassCommands {
    bool listed = false;     // on the server's list of such connections
    size_t reply_start = 0;  // pending().size() before the first of them
    uint32_t count = 0;      // commands that replied (a BPOP that blocked
                             // is counted when it is served)
  };
  PassCommands& pass_commands() { return pass_commands_; }

 private:
  static void ReadCallback(bufferevent* bev, void* arg);
  static void WriteCallback(bufferevent* bev, void* arg);
  static void EventCallback(bufferevent* bev, short what, void* arg);

  ConnectionEvents* events_ = nullptr;
  const ConnectionType* type_ = nullptr;  // nullptr for an internal client
  std::shared_ptr<ReplySink> sink_;       // only for an internal client
  ClientInfo info_;
  BufferEventPtr bev_;
  State state_ = State::kOpen;
  RespParser parser_;
  std::string input_;
  size_t input_pos_ = 0;  // first unparsed byte of input_
  std::string pending_;
  bool output_listed_ = false;
  uint64_t held_until_ = 0;
  int64_t soft_limit_since_ms_ = 0;
  PassCommands pass_commands_;
};

}  // namespace frontier
