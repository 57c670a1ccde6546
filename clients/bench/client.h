// A blocking hiredis connection with explicit pipelining, and the spelling of
// the frontier verbs for each target: frontierd's own commands, or FCALLs of
// the Redis Functions peer in redis_frontier.lua.
#pragma once

#include <hiredis/hiredis.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "options.h"

namespace bench {

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

// The argument vector of one command. Views must stay valid until the
// command is appended (hiredis copies them then); numbers are kept inside.
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

  // Queues one command in the output buffer; nothing is sent until Next().
  void Append(CommandArgs& args);
  // Sends what is queued, then blocks for the next reply. nullptr on an I/O
  // or protocol error; Error() says which.
  ReplyPtr Next();
  // One command, one round trip.
  ReplyPtr Call(CommandArgs& args);
  std::string Error() const;

 private:
  explicit Connection(redisContext* ctx) : ctx_(ctx) {}
  redisContext* ctx_;
};

// Builds the command for each verb. The Redis peer's keys are passed as
// KEYS, as Redis Functions expect.
class Verbs {
 public:
  explicit Verbs(Target target) : target_(target) {}

  void Add(CommandArgs& a, std::string_view url) const;
  void Madd(CommandArgs& a, std::string_view ref,
            const std::vector<std::string_view>& urls) const;
  // count 0: the single form (bulk or nil reply); else an array reply.
  void Pop(CommandArgs& a, int count) const;
  void Confirm(CommandArgs& a, std::string_view url) const;
  // Flat array of counter name/value pairs (STATS, or the peer's fstats).
  void Stats(CommandArgs& a) const;

 private:
  Target target_;
};

}  // namespace bench
