// libFuzzer target for RespParser (protocol/resp_parser.h).
//
// The input is a byte stream as a client would send it. It is parsed three
// ways, as a connection does (feed, drop what was consumed, keep the rest,
// feed more): all at once, one byte at a time, and in chunks whose sizes
// come from a generator seeded by the input. Checked:
//   - every call reports consumed <= the bytes it was given;
//   - what kNeedMore leaves unconsumed is one incomplete line at most
//     (see UnconsumedIsOneLine), which inputs of -max_len bytes can break;
//   - the three ways give the same commands, in the same order, and end
//     the same way (the same protocol error text, or "need more").
// Small limits make the limit paths reachable with short inputs.
//
// Run longer: docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/resp_parser.h"

namespace {

using frontier::RespLimits;
using frontier::RespParser;

RespLimits FuzzLimits() {
  RespLimits limits;
  limits.max_bulk_len = 4096;
  limits.max_multibulk_len = 64;
  limits.max_inline_len = 256;
  return limits;
}

// The parser's own cap on a "*N" or "$N" header line (resp_parser.cc,
// Redis's PROTO_INLINE_MAX_SIZE).
constexpr size_t kMaxHeaderLine = 64 * 1024;

// Whether `rest`, what a kNeedMore left unconsumed, is what the parser's
// contract allows: at most one incomplete line, never a complete line or
// bulk data it could have taken. That is one of
//   - nothing, or the "\r" of the CRLF after bulk data;
//   - a header line ("*N" or "$N") without its '\r', or ending in it: no
//     other '\r' (at the first '\r' the line is complete or an error), and
//     at most kMaxHeaderLine bytes before it;
//   - an inline line: no '\n' (which would end it), and at most
//     max_inline_len bytes besides a '\r' that may begin its terminator.
// A length bound alone could not fail: inputs (-max_len=4096) are smaller
// than kMaxHeaderLine. The shape can: a parser that held back bulk data or
// a complete line would leave bytes past a line's end ('\n', an inner
// '\r') or more than an inline line may hold (max_inline_len is 256).
bool UnconsumedIsOneLine(std::string_view rest) {
  if (rest.empty() || rest == "\r") return true;
  const size_t cr = rest.find('\r');
  const bool header = (rest[0] == '*' || rest[0] == '$') &&
                      (cr == std::string_view::npos || cr == rest.size() - 1) &&
                      rest.size() <= kMaxHeaderLine + 1;
  // An inline line never starts with '*' (that is a multibulk header).
  const size_t content = rest.size() - (rest.back() == '\r' ? 1 : 0);
  const bool inline_line = rest[0] != '*' &&
                           rest.find('\n') == std::string_view::npos &&
                           content <= FuzzLimits().max_inline_len;
  return header || inline_line;
}

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  bool failed = false;
  std::string error;
};

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "resp_parser_fuzz: invariant broken: %s\n", what);
  std::abort();
}

// Parses `data` delivered in pieces whose sizes `next_chunk` chooses.
template <typename NextChunk>
Outcome ParseInPieces(std::string_view data, NextChunk next_chunk) {
  Outcome out;
  RespParser parser(FuzzLimits());
  std::string buffer;  // received, not yet consumed
  size_t fed = 0;
  while (fed < data.size()) {
    size_t n = next_chunk();
    if (n == 0) n = 1;
    if (n > data.size() - fed) n = data.size() - fed;
    buffer.append(data.substr(fed, n));
    fed += n;
    for (;;) {
      size_t consumed = 0;
      RespParser::Result r = parser.Parse(buffer, &consumed);
      if (r == RespParser::Result::kError) {
        out.failed = true;
        out.error = parser.error();
        if (out.error.empty()) Die("kError with an empty error()");
        return out;
      }
      if (consumed > buffer.size()) Die("consumed more than the input");
      buffer.erase(0, consumed);
      if (r == RespParser::Result::kNeedMore) {
        if (!UnconsumedIsOneLine(buffer)) {
          Die("kNeedMore left more than one incomplete line unconsumed");
        }
        break;
      }
      if (parser.args().empty()) Die("kCommand with no arguments");
      out.commands.push_back(parser.args());
    }
  }
  return out;
}

bool SameOutcome(const Outcome& a, const Outcome& b) {
  return a.commands == b.commands && a.failed == b.failed && a.error == b.error;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);

  Outcome whole = ParseInPieces(data, [&] { return data.size(); });
  Outcome by_byte = ParseInPieces(data, [] { return size_t{1}; });
  // A small xorshift generator seeded by the input, so every run of one
  // input splits it the same way (reproducible crashes).
  uint64_t state = 0x9E3779B97F4A7C15ull ^ size;
  for (unsigned char c : data) state = (state ^ c) * 0x100000001B3ull;
  if (state == 0) state = 1;
  Outcome random = ParseInPieces(data, [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    // Mostly small pieces, sometimes large ones.
    return static_cast<size_t>((state & 7) == 0 ? state % 512 : state % 8);
  });

  if (!SameOutcome(whole, by_byte)) Die("whole vs byte-at-a-time differ");
  if (!SameOutcome(whole, random)) Die("whole vs random pieces differ");
  return 0;
}
