// A blocking connection to frontierd (or any RESP server), shared by the
// client tools in clients/: explicit pipelining for frontier-bench, and a
// split send / wait-for-reply for frontier-worker, which waits for a BPOP
// reply in the same poll as its HTTP transfers.
//
// Over TCP, hiredis does the I/O. Debian's hiredis (0.14) has no TLS, so
// over TLS the bytes go through TlsStream (OpenSSL) and hiredis only formats
// commands and parses replies.
#pragma once

#include <hiredis/hiredis.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tls_stream.h"

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
  // The same over TLS (to a tls-port), with `tls` as redis-cli's options.
  static std::unique_ptr<Connection> OpenTls(const std::string& host, int port,
                                             const std::string& password,
                                             const TlsOptions& tls,
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
  int fd() const { return tls_ ? tls_->fd() : ctx_->fd; }
  bool Flush();
  ReplyPtr ReadAvailable(bool* failed);

 private:
  explicit Connection(redisContext* ctx) : ctx_(ctx) {}
  explicit Connection(std::unique_ptr<TlsStream> tls);
  // Sends AUTH; false with *error set if it is refused or fails.
  bool Authenticate(const std::string& password, std::string* error);
  // TLS: feeds what the stream has (one read, then anything buffered) to
  // the reader; without `wait`, only what can be read without blocking.
  // False if nothing was read; tls_error_ is set if the stream failed.
  bool FillReader(bool wait);

  redisContext* ctx_ = nullptr;     // TCP: hiredis does the I/O
  std::unique_ptr<TlsStream> tls_;  // TLS: the stream does,
  redisReader* reader_ = nullptr;   // and hiredis's reader parses
  std::string out_;                 // TLS: formatted commands not yet sent
  std::string tls_error_;
};

}  // namespace frontier_client
