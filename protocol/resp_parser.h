// RespParser: an incremental RESP2 request parser with no I/O.
//
// Bytes in, commands out. Accepts the multibulk form ("*2\r\n$4\r\nPING\r\n
// ...") and the inline form ("PING\r\n", words split on spaces/tabs, with
// Redis's quoting rules for "..." and '...'). Pipelining is the caller
// feeding the rest of its buffer again after each command.
//
// The parser remembers a partly received command between calls, so a large
// request arriving in small reads is scanned once, not once per read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace frontier {

struct RespLimits {
  size_t max_bulk_len = 512ull << 20;     // proto-max-bulk-len
  size_t max_multibulk_len = 1024 * 1024; // arguments per command
  size_t max_inline_len = 64 * 1024;      // one inline command line
};

class RespParser {
 public:
  enum class Result {
    kCommand,   // a whole command is in args(); `consumed` bytes were used
    kNeedMore,  // all of `input` that can be used was used; feed more bytes
    kError,     // protocol error: error() says what; the connection must close
  };

  explicit RespParser(RespLimits limits = {});

  // Parses from the start of `input`, which must begin where the previous
  // call's `consumed` ended. Sets *consumed to the bytes taken from `input`
  // (also for kNeedMore: completed arguments are kept inside the parser).
  // After kCommand, args() holds the command until the next Parse call.
  // An empty inline line is skipped (consumed) as Redis does.
  Result Parse(std::string_view input, size_t* consumed);

  const std::vector<std::string>& args() const { return args_; }
  std::vector<std::string>& mutable_args() { return args_; }
  // After kError: the text after "Protocol error: ", e.g.
  // "invalid multibulk length", "invalid bulk length",
  // "expected '$', got 'x'", "too big inline request",
  // "unbalanced quotes in request".
  const std::string& error() const { return error_; }

 private:
  RespLimits limits_;
  std::vector<std::string> args_;
  std::string error_;
  // Multibulk progress: -1 when between commands.
  long long pending_args_ = -1;  // arguments still expected
  long long bulk_len_ = -1;      // length of the bulk being read, or -1
};

}  // namespace frontier
