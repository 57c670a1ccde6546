// RespParser: an incremental RESP2 request parser with no I/O.
//
// Bytes in, commands out. Accepts the multibulk form ("*2\r\n$4\r\nPING\r\n
// ...") and the inline form ("PING\r\n", words split on whitespace, with
// Redis's quoting rules for "..." and '...'). Pipelining is the caller
// feeding the rest of its buffer again after each command.
//
// The parser remembers a partly received command between calls, so a large
// request arriving in small reads is scanned once, not once per read.
//
// Typical use by a connection:
//
//   size_t used = 0;
//   RespParser::Result r = parser.Parse(buffer_view, &used);
//   drop the first `used` bytes of the buffer;
//   kCommand  -> run parser.args(), then call Parse again on the rest;
//   kNeedMore -> wait for more bytes, append them to what is left, call again;
//   kError    -> reply "-ERR Protocol error: " + parser.error(), then close.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace frontier {

struct RespLimits {
  size_t max_bulk_len = 512ull << 20;      // proto-max-bulk-len
  size_t max_multibulk_len = 1024 * 1024;  // arguments per command
  size_t max_inline_len = 64 * 1024;       // one inline command line
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
  //
  // What kNeedMore leaves unconsumed is at most an incomplete line (an
  // inline command, a "*N"/"$N" header, or the CRLF after bulk data), so
  // it is bounded by the line limits; the bytes of a bulk argument are
  // consumed as they arrive. The unconsumed bytes must be passed again,
  // followed by the new ones. `input` is only read during the call.
  //
  // Empty multibulk commands ("*0\r\n", "*-1\r\n") are skipped like empty
  // inline lines. After kError, *consumed and the parser state are
  // unspecified; the parser must not be used again.
  Result Parse(std::string_view input, size_t* consumed);

  const std::vector<std::string>& args() const { return args_; }
  // For moving the arguments out after kCommand; the next Parse call
  // clears the vector whatever state it was left in.
  std::vector<std::string>& mutable_args() { return args_; }
  // After kError: the text after "Protocol error: ", e.g.
  // "invalid multibulk length", "invalid bulk length",
  // "expected '$', got 'x'", "too big inline request",
  // "unbalanced quotes in request", "too big mbulk count string",
  // "too big bulk count string", "expected CRLF after bulk data".
  const std::string& error() const { return error_; }

  // Bytes of argument data held for a command that is not complete yet
  // (0 between commands). With the bytes the caller still holds unconsumed,
  // this is what a client has sent that has not become a command: the
  // measure client-query-buffer-limit applies to.
  size_t partial_bytes() const { return partial_bytes_; }

 private:
  // Where a search for a line terminator ended.
  enum class LineScan { kFound, kNeedMore, kTooLong };

  Result Fail(std::string message);
  // Looks for the '\r' ending a "*N" or "$N" header line that starts at
  // `line` (the type byte). On kFound sets *cr to its offset in `line`.
  LineScan FindHeaderEnd(std::string_view line, size_t* cr);
  // Parses one inline command if its line is complete; *used is set to
  // the bytes of the line including its terminator.
  Result ParseInline(std::string_view rest, size_t* used);

  RespLimits limits_;
  std::vector<std::string> args_;
  std::string error_;
  // Multibulk progress: -1 when between commands.
  long long pending_args_ = -1;  // arguments still expected
  long long bulk_len_ = -1;      // length of the bulk being read, or -1
  // Bytes at the start of the unconsumed input already searched for a line
  // terminator without finding one. A line that arrives a byte at a time
  // is then scanned once instead of once per read.
  size_t scan_pos_ = 0;
  size_t partial_bytes_ = 0;  // see partial_bytes()
};

}  // namespace frontier
