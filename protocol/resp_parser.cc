// RespParser implementation. The behaviour follows Redis's
// processMultibulkBuffer / processInlineBuffer and sdssplitargs, with two
// deliberate differences that make the result independent of how the bytes
// were split into reads: line limits are checked against the length of the
// line, not against how much happened to be buffered, and a multibulk
// element that does not start with '$' is rejected as soon as its first byte
// arrives.
#include "protocol/resp_parser.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace frontier {
namespace {

// Redis's PROTO_INLINE_MAX_SIZE, which it also applies to "*N" and "$N".
constexpr size_t kMaxHeaderLine = 64 * 1024;
// A declared length is only a claim: memory is reserved for at most this
// much beyond the bytes that have actually arrived.
constexpr size_t kMaxSpeculativeReserve = 64 * 1024;
// Same idea for the argument vector of "*N".
constexpr size_t kMaxArgsReserve = 1024;
// Counts are kept in signed members; this bounds them whatever the limits.
constexpr unsigned long long kMaxCount = std::numeric_limits<long long>::max();

// Plain decimal digits as Redis's string2ll accepts them (no sign, no
// leading zeros, no spaces). Fails on overflow.
bool ParseUnsigned(std::string_view s, unsigned long long* out) {
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;
  unsigned long long value = 0;
  constexpr unsigned long long kMax =
      std::numeric_limits<unsigned long long>::max();
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const unsigned digit = static_cast<unsigned>(c - '0');
    if (value > (kMax - digit) / 10) return false;
    value = value * 10 + digit;
  }
  *out = value;
  return true;
}

// isspace() in the C locale, which sdssplitargs uses to skip between
// arguments and to check what follows a closing quote.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

// The bytes that end an unquoted argument in sdssplitargs. Narrower than
// IsSpace: "a\vb" is one argument in Redis, so it is one here. (Redis also
// stops at NUL because it works on C strings; here NUL is data.)
bool EndsWord(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits an inline command line (without its terminator) into *args with
// Redis's quoting rules. Returns false for unbalanced quotes, including a
// closing quote that is not followed by whitespace or the end of the line.
bool SplitInline(std::string_view line, std::vector<std::string>* args) {
  const size_t n = line.size();
  size_t i = 0;
  for (;;) {
    while (i < n && IsSpace(line[i])) ++i;
    if (i == n) return true;
    std::string word;
    bool in_double = false;
    bool in_single = false;
    for (bool done = false; !done;) {
      if (in_double) {
        if (i == n) return false;
        const char c = line[i];
        if (c == '\\' && i + 3 < n && line[i + 1] == 'x' &&
            HexValue(line[i + 2]) >= 0 && HexValue(line[i + 3]) >= 0) {
          word.push_back(static_cast<char>(HexValue(line[i + 2]) * 16 +
                                           HexValue(line[i + 3])));
          i += 4;
        } else if (c == '\\' && i + 1 < n) {
          char escaped = line[i + 1];
          switch (escaped) {
            case 'n':
              escaped = '\n';
              break;
            case 'r':
              escaped = '\r';
              break;
            case 't':
              escaped = '\t';
              break;
            case 'b':
              escaped = '\b';
              break;
            case 'a':
              escaped = '\a';
              break;
            default:
              break;  // \\, \" and any other char stand for themselves
          }
          word.push_back(escaped);
          i += 2;
        } else if (c == '"') {
          if (i + 1 < n && !IsSpace(line[i + 1])) return false;
          ++i;
          done = true;
        } else {
          word.push_back(c);
          ++i;
        }
      } else if (in_single) {
        if (i == n) return false;
        const char c = line[i];
        if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
          word.push_back('\'');
          i += 2;
        } else if (c == '\'') {
          if (i + 1 < n && !IsSpace(line[i + 1])) return false;
          ++i;
          done = true;
        } else {
          word.push_back(c);
          ++i;
        }
      } else {
        if (i == n || EndsWord(line[i])) {
          done = true;
        } else if (line[i] == '"') {
          // As in Redis, a quote opens even in the middle of a word:
          // a"b c" is the single argument "ab c".
          in_double = true;
          ++i;
        } else if (line[i] == '\'') {
          in_single = true;
          ++i;
        } else {
          word.push_back(line[i]);
          ++i;
        }
      }
    }
    args->push_back(std::move(word));
  }
}

}  // namespace

RespParser::RespParser(RespLimits limits) : limits_(limits) {}

RespParser::Result RespParser::Fail(std::string message) {
  error_ = std::move(message);
  return Result::kError;
}

RespParser::LineScan RespParser::FindHeaderEnd(std::string_view line,
                                               size_t* cr) {
  // A header whose '\r' lies beyond the limit is too long whether or not
  // the '\r' has arrived yet, so only the first kMaxHeaderLine + 1 bytes
  // are ever searched.
  const size_t window = std::min(line.size(), kMaxHeaderLine + 1);
  const size_t start = std::min(scan_pos_, window);
  const void* found = std::memchr(line.data() + start, '\r', window - start);
  if (found == nullptr) {
    if (line.size() > kMaxHeaderLine) return LineScan::kTooLong;
    scan_pos_ = window;
    return LineScan::kNeedMore;
  }
  *cr = static_cast<size_t>(static_cast<const char*>(found) - line.data());
  if (*cr + 1 >= line.size()) {
    scan_pos_ = *cr;  // found again at once when the '\n' arrives
    return LineScan::kNeedMore;
  }
  scan_pos_ = 0;
  return LineScan::kFound;
}

RespParser::Result RespParser::ParseInline(std::string_view rest,
                                           size_t* used) {
  // The limit applies to the line without its "\n" or "\r\n". One byte
  // beyond the limit is searched so that a maximal line ending in "\r\n"
  // is found.
  const size_t max = limits_.max_inline_len;
  size_t window = rest.size();
  if (window > max && window - max > 2) window = max + 2;  // no overflow
  const size_t start = std::min(scan_pos_, window);
  const void* found = std::memchr(rest.data() + start, '\n', window - start);
  if (found == nullptr) {
    // A trailing '\r' may still turn out to be the terminator's.
    const size_t content =
        window - (window > 0 && rest[window - 1] == '\r' ? 1 : 0);
    if (content > max) return Fail("too big inline request");
    scan_pos_ = window;
    *used = 0;
    return Result::kNeedMore;
  }
  scan_pos_ = 0;
  const size_t newline =
      static_cast<size_t>(static_cast<const char*>(found) - rest.data());
  std::string_view line = rest.substr(0, newline);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > max) return Fail("too big inline request");
  *used = newline + 1;
  if (!SplitInline(line, &args_)) return Fail("unbalanced quotes in request");
  return Result::kCommand;  // the caller skips it if args_ is empty
}

RespParser::Result RespParser::Parse(std::string_view input, size_t* consumed) {
  size_t pos = 0;
  // Every exit reports how far the parser got; for kError it is unused.
  auto done = [&](Result result) {
    *consumed = pos;
    return result;
  };
  if (pending_args_ < 0) {
    args_.clear();
    partial_bytes_ = 0;
  }

  for (;;) {
    if (pending_args_ < 0) {
      // Between commands: the first byte decides the form.
      if (pos == input.size()) return done(Result::kNeedMore);
      if (input[pos] != '*') {
        size_t used = 0;
        const Result result = ParseInline(input.substr(pos), &used);
        pos += used;
        if (result != Result::kCommand) return done(result);
        if (args_.empty()) continue;  // blank line
        return done(Result::kCommand);
      }
      size_t cr = 0;
      const std::string_view line = input.substr(pos);
      switch (FindHeaderEnd(line, &cr)) {
        case LineScan::kNeedMore:
          return done(Result::kNeedMore);
        case LineScan::kTooLong:
          return done(Fail("too big mbulk count string"));
        case LineScan::kFound:
          break;
      }
      const std::string_view number = line.substr(1, cr - 1);
      if (line[cr + 1] != '\n') return done(Fail("invalid multibulk length"));
      pos += cr + 2;
      if (number == "-1") continue;  // empty command, as in Redis
      unsigned long long count = 0;
      if (!ParseUnsigned(number, &count) || count > limits_.max_multibulk_len ||
          count > kMaxCount) {
        return done(Fail("invalid multibulk length"));
      }
      if (count == 0) continue;
      pending_args_ = static_cast<long long>(count);
      bulk_len_ = -1;
      args_.reserve(std::min<size_t>(count, kMaxArgsReserve));
    }

    while (pending_args_ > 0) {
      if (bulk_len_ < 0) {
        if (pos == input.size()) return done(Result::kNeedMore);
        if (input[pos] != '$') {
          return done(
              Fail(std::string("expected '$', got '") + input[pos] + "'"));
        }
        size_t cr = 0;
        const std::string_view line = input.substr(pos);
        switch (FindHeaderEnd(line, &cr)) {
          case LineScan::kNeedMore:
            return done(Result::kNeedMore);
          case LineScan::kTooLong:
            return done(Fail("too big bulk count string"));
          case LineScan::kFound:
            break;
        }
        unsigned long long len = 0;
        if (line[cr + 1] != '\n' ||
            !ParseUnsigned(line.substr(1, cr - 1), &len) ||
            len > limits_.max_bulk_len || len > kMaxCount) {
          return done(Fail("invalid bulk length"));
        }
        pos += cr + 2;
        bulk_len_ = static_cast<long long>(len);
        args_.emplace_back();
        args_.back().reserve(std::min<size_t>(
            len, kMaxSpeculativeReserve + (input.size() - pos)));
      }

      // Bulk data is taken as it arrives so that the caller never has to
      // hold (and hand back) a partly received argument.
      std::string& arg = args_.back();
      const size_t want = static_cast<size_t>(bulk_len_) - arg.size();
      const size_t take = std::min(want, input.size() - pos);
      arg.append(input.data() + pos, take);
      pos += take;
      partial_bytes_ += take;
      if (take < want) return done(Result::kNeedMore);

      // The CRLF after the data is checked byte by byte so that garbage is
      // reported as soon as it arrives, but only consumed as a pair.
      if (pos < input.size() && input[pos] != '\r') {
        return done(Fail("expected CRLF after bulk data"));
      }
      if (pos + 1 < input.size() && input[pos + 1] != '\n') {
        return done(Fail("expected CRLF after bulk data"));
      }
      if (pos + 2 > input.size()) return done(Result::kNeedMore);
      pos += 2;
      bulk_len_ = -1;
      --pending_args_;
    }
    pending_args_ = -1;
    partial_bytes_ = 0;
    return done(Result::kCommand);
  }
}

}  // namespace frontier
