// A blocking hiredis connection to frontierd (or any RESP server), shared by
// the client tools in clients/: explicit pipelining for frontier-bench, and
// a split send / wait-for-reply for frontier-worker, which waits for a BPOP
// reply in the same poll as its HTTP transfers.
//
// Debian's hiredis is 0.14, which has no TLS: the tools refuse --tls.
#pragma once

#include <hiredis/hiredis.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace frontier_client {

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

// The argument vector of one command. Views must stay valid until the
// command is appended (hiredis copies them then); numbers are kept inside
// (at most four per command).
class CommandArgs {
 public:
  void Clear() {
    argv_.clear();
    lens_.clear();
    numbers_used_ = 0;
  }
  void Push(std::string_view s) {
    argv_.push_back(s.data());
    lens_.push_back(s.size());
  }
  void PushNumber(int64_t n);

  int argc() const { return static_cast<int>(argv_.size()); }
  const char** argv() { return argv_.data(); }
  const size_t* lens() const { return lens_.data(); }

 private:
  std::vector<const char*> argv_;
  std::vector<size_t> lens_;
  std::array<std::array<char, 24>, 4> numbers_{};
  size_t numbers_used_ = 0;
};

class Connection {
 public:
  // Connects (TCP, blocking) and sends AUTH when password is non-empty.
  // Returns nullptr and sets *error on failure.
  static std::unique_ptr<Connection> Open(const std::string& host, int port,
                                          const std::string& password,
                                          std::string* error);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Queues one command in the output buffer; nothing is sent until Next()
  // or Flush().
  void Append(CommandArgs& args);
  // Sends what is queued, then blocks for the next reply. nullptr on an I/O
  // or protocol error; Error() says which.
  ReplyPtr Next();
  // One command, one round trip.
  ReplyPtr Call(CommandArgs& args);
  std::string Error() const;

  // For callers that wait for the socket themselves: Flush() writes what is
  // queued (blocking until it is all sent; false on an I/O error), and
  // once fd() is readable, ReadAvailable() reads what arrived and returns
  // a complete reply, or nullptr with *failed false if the reply is not
  // complete yet (wait for fd() again), or nullptr with *failed true on an
  // I/O or protocol error (including the server closing the connection).
  int fd() const { return ctx_->fd; }
  bool Flush();
  ReplyPtr ReadAvailable(bool* failed);

 private:
  explicit Connection(redisContext* ctx) : ctx_(ctx) {}
  redisContext* ctx_;
};

}  // namespace frontier_client
