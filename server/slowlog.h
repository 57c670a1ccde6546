// SlowLog: the last commands that took longer than slowlog-log-slower-than,
// as Redis keeps them for SLOWLOG GET/LEN/RESET.
//
// Each entry keeps a trimmed, redacted copy of the arguments: at most 32
// (the last one then reads "... (N more arguments)"), each cut to 128 bytes
// ("... (N more bytes)"), and the arguments that may be passwords (AUTH,
// HELLO ... AUTH, CONFIG SET of a secret directive) replaced by
// "(redacted)", so the slow log never shows a password.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

namespace frontier {

struct SlowLogEntry {
  uint64_t id = 0;           // increasing, never reused (not even by RESET)
  int64_t unix_seconds = 0;  // when the command ran
  int64_t duration_us = 0;   // how long it ran
  std::vector<std::string> argv;
  std::string client_address;  // "ip:port"
  std::string client_name;
};

class SlowLog {
 public:
  // Adds an entry for `argv` (copied, trimmed and redacted) if
  // `duration_us` >= `slower_than_us` and `slower_than_us` >= 0, then drops
  // the oldest entries beyond `max_len`.
  void Record(std::span<const std::string> argv, int64_t duration_us,
              int64_t unix_seconds, const std::string& client_address,
              const std::string& client_name, int64_t slower_than_us,
              uint64_t max_len);
  // Drops the oldest entries beyond `max_len` (after CONFIG SET).
  void Trim(uint64_t max_len);

  // The newest `count` entries, newest first (all of them for count < 0).
  std::vector<const SlowLogEntry*> Newest(int64_t count) const;
  size_t size() const { return entries_.size(); }
  void Reset() { entries_.clear(); }

 private:
  std::deque<SlowLogEntry> entries_;  // newest at the front
  uint64_t next_id_ = 0;
};

// The arguments as the slow log keeps them (see the file comment).
std::vector<std::string> SlowLogArgs(std::span<const std::string> argv);

}  // namespace frontier
