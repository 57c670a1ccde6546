// Tests for RespParser: both request forms, every way the bytes can be split
// into reads, the consumed-bytes contract, limits and every protocol error.
#include "protocol/resp_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace frontier {
namespace {

using namespace std::string_literals;  // "..."s keeps embedded NULs
using Command = std::vector<std::string>;
using Result = RespParser::Result;

// What a connection saw after feeding a sequence of reads.
struct Outcome {
  std::vector<Command> commands;
  bool failed = false;
  std::string error;
  size_t total_consumed = 0;  // sum of *consumed over all calls
  size_t bytes_offered = 0;   // sum of input.size() over all calls: the work
  size_t max_pending = 0;     // most unconsumed bytes the caller had to keep
  std::string leftover;       // unconsumed bytes at the end
};

// Drives a parser the way a connection does: append each read to a buffer,
// parse until kNeedMore, drop what was consumed.
Outcome Feed(const std::vector<std::string>& reads, RespLimits limits = {}) {
  RespParser parser(limits);
  Outcome out;
  std::string buffer;
  for (const std::string& read : reads) {
    buffer += read;
    for (;;) {
      size_t consumed = buffer.size() + 1;  // must be overwritten
      const Result result = parser.Parse(buffer, &consumed);
      out.bytes_offered += buffer.size();
      if (result == Result::kError) {
        out.failed = true;
        out.error = parser.error();
        out.leftover = buffer;
        return out;
      }
      EXPECT_LE(consumed, buffer.size());
      if (consumed > buffer.size()) return out;
      buffer.erase(0, consumed);
      out.total_consumed += consumed;
      if (result == Result::kNeedMore) break;
      out.commands.push_back(parser.args());
      EXPECT_GT(consumed, 0u) << "a command must consume bytes";
      if (consumed == 0) return out;
    }
    out.max_pending = std::max(out.max_pending, buffer.size());
  }
  out.leftover = buffer;
  return out;
}

std::vector<std::string> Whole(const std::string& s) { return {s}; }

std::vector<std::string> Pieces(const std::string& s, size_t size) {
  std::vector<std::string> reads;
  for (size_t i = 0; i < s.size(); i += size)
    reads.push_back(s.substr(i, size));
  return reads;
}

std::vector<std::string> SplitAt(const std::string& s, size_t i) {
  return {s.substr(0, i), s.substr(i)};
}

// Split points to try: all of them for short inputs, a sample plus both ends
// for long ones (each try copies the input).
std::vector<size_t> SplitPoints(const std::string& s) {
  std::vector<size_t> points;
  const size_t step = s.size() <= 4096 ? 1 : 997;
  for (size_t i = 0; i <= s.size(); i += step) points.push_back(i);
  for (size_t i = 0; i < 8 && i <= s.size(); ++i) {
    points.push_back(i);
    points.push_back(s.size() - i);
  }
  return points;
}

// Every way of reading `input` yields `expected`, all bytes consumed.
void ExpectCommandsInEverySplit(const std::string& input,
                                const std::vector<Command>& expected,
                                RespLimits limits = {}) {
  SCOPED_TRACE("input: " + input);
  std::vector<std::vector<std::string>> ways = {Whole(input), Pieces(input, 1)};
  for (size_t i : SplitPoints(input)) ways.push_back(SplitAt(input, i));
  for (const auto& reads : ways) {
    const Outcome out = Feed(reads, limits);
    ASSERT_FALSE(out.failed)
        << out.error << " (first read " << reads[0].size() << " bytes)";
    ASSERT_EQ(out.commands, expected) << "first read " << reads[0].size();
    EXPECT_EQ(out.total_consumed, input.size());
    EXPECT_EQ(out.leftover, "");
  }
}

// Every way of reading `input` fails with `error`, after `before` commands.
void ExpectErrorInEverySplit(const std::string& input, const std::string& error,
                             RespLimits limits = {},
                             const std::vector<Command>& before = {}) {
  SCOPED_TRACE("input: " + input);
  std::vector<std::vector<std::string>> ways = {Whole(input), Pieces(input, 1)};
  for (size_t i : SplitPoints(input)) ways.push_back(SplitAt(input, i));
  for (const auto& reads : ways) {
    const Outcome out = Feed(reads, limits);
    ASSERT_TRUE(out.failed) << "first read " << reads[0].size() << " bytes";
    EXPECT_EQ(out.error, error) << "first read " << reads[0].size();
    EXPECT_EQ(out.commands, before);
  }
}

std::string Multibulk(const Command& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return s;
}

TEST(RespParserTest, ParsesMultibulkCommand) {
  RespParser parser;
  const std::string input = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n";
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(input, &consumed), Result::kCommand);
  EXPECT_EQ(consumed, input.size());
  EXPECT_EQ(parser.args(), (Command{"SET", "key", "value"}));
}

TEST(RespParserTest, ParsesInlineCommandWithEitherLineEnding) {
  for (const std::string ending : {"\r\n", "\n"}) {
    RespParser parser;
    const std::string input = "SET  key\tvalue " + ending;
    size_t consumed = 0;
    ASSERT_EQ(parser.Parse(input, &consumed), Result::kCommand);
    EXPECT_EQ(consumed, input.size());
    EXPECT_EQ(parser.args(), (Command{"SET", "key", "value"}));
  }
}

TEST(RespParserTest, StopsAfterOneCommandAndReportsItsLength) {
  RespParser parser;
  const std::string input = "PING\r\n*1\r\n$4\r\nQUIT\r\n";
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(input, &consumed), Result::kCommand);
  EXPECT_EQ(consumed, 6u);
  EXPECT_EQ(parser.args(), (Command{"PING"}));
  ASSERT_EQ(parser.Parse(std::string_view(input).substr(6), &consumed),
            Result::kCommand);
  EXPECT_EQ(consumed, input.size() - 6);
  EXPECT_EQ(parser.args(), (Command{"QUIT"}));
}

TEST(RespParserTest, BinarySafeBulks) {
  const std::string nul_crlf = "a\0\r\nb"s;
  ASSERT_EQ(nul_crlf.size(), 5u);
  const std::string nested = "*1\r\n$4\r\nPING";  // RESP inside a bulk is data
  ExpectCommandsInEverySplit("*4\r\n$3\r\nSET\r\n$5\r\n"s + nul_crlf +
                                 "\r\n$0\r\n\r\n$12\r\n" + nested + "\r\n",
                             {{"SET", nul_crlf, "", nested}});
  std::string all_bytes;
  for (int c = 0; c < 256; ++c) all_bytes.push_back(static_cast<char>(c));
  ExpectCommandsInEverySplit(Multibulk({all_bytes, "\r\n", "\n", "\r"}),
                             {{all_bytes, "\r\n", "\n", "\r"}});
}

// One pipeline holding every kind of command and skipped input.
TEST(RespParserTest, EveryByteBoundaryGivesTheSameCommands) {
  const std::string input =
      "*3\r\n$3\r\nSET\r\n$5\r\nk\0\r\ny\r\n$0\r\n\r\n"s
      "PING\r\n"
      "*0\r\n"
      "  \r\n"
      "\n"
      "*-1\r\n"
      "SET \"a b\\x41\" 'c\\'d'\n"
      "*1\r\n$4\r\nQUIT\r\n"
      "ECHO\t x\r\n"
      "*2\r\n$12\r\n*1\r\n$4\r\nPING\r\n$1\r\n\n\r\n"
      "LAST\n";
  ExpectCommandsInEverySplit(input, {{"SET", "k\0\r\ny"s, ""},
                                     {"PING"},
                                     {"SET", "a bA", "c'd"},
                                     {"QUIT"},
                                     {"ECHO", "x"},
                                     {"*1\r\n$4\r\nPING", "\n"},
                                     {"LAST"}});
}

TEST(RespParserTest, LongPipelineOfMixedForms) {
  std::string input;
  std::vector<Command> expected;
  for (int i = 0; i < 3000; ++i) {
    const std::string key = "k" + std::to_string(i);
    const std::string value = "v " + std::to_string(i);
    switch (i % 3) {
      case 0:
        input += Multibulk({"SET", key, value});
        break;
      case 1:
        input += "SET " + key + " \"" + value + "\"\r\n";
        break;
      default:
        input += "SET " + key + " '" + value + "'\n";
        break;
    }
    expected.push_back({"SET", key, value});
  }
  for (size_t piece : {input.size(), size_t{1}, size_t{7}, size_t{4096}}) {
    SCOPED_TRACE("read size " + std::to_string(piece));
    const Outcome out = Feed(Pieces(input, piece));
    ASSERT_FALSE(out.failed) << out.error;
    EXPECT_EQ(out.commands, expected);
    EXPECT_EQ(out.total_consumed, input.size());
  }
}

TEST(RespParserTest, InlineQuoting) {
  struct Case {
    std::string line;
    Command args;
  };
  const std::vector<Case> cases = {
      {R"(SET "a b" c)", {"SET", "a b", "c"}},
      {R"("\n\r\t\b\a\\\"")", {"\n\r\t\b\a\\\""}},
      {R"("\x41\x7a\x00\xfF")", {"Az\0\xff"s}},
      {R"("\xZZ" "\x4")", {"xZZ", "x4"}},  // not two hex digits: plain 'x'
      {R"("\q")", {"q"}},
      {R"('it\'s' 'a\nb' 'c\\d')", {"it's", R"(a\nb)", R"(c\\d)"}},
      {R"(a"b c" d)", {"ab c", "d"}},  // a quote may open mid-word
      {R"("" '')", {"", ""}},
      {"\"a\"\t'b'", {"a", "b"}},
      {R"(x "a'b" 'a"b')", {"x", "a'b", "a\"b"}},
      {"  PING  \t", {"PING"}},
      {"a\vb \vc", {"a\vb", "c"}},      // as sdssplitargs: \v skipped, not a
                                        // separator inside a word
      {"SET a\rb", {"SET", "a", "b"}},  // a lone CR separates
      {"ECHO a\0b"s, {"ECHO", "a\0b"s}},
  };
  for (const Case& c : cases) {
    ExpectCommandsInEverySplit(c.line + "\r\n", {c.args});
    ExpectCommandsInEverySplit(c.line + "\n", {c.args});
  }
}

TEST(RespParserTest, InlineQuotingErrors) {
  for (const std::string line : {
           R"("abc)",
           R"('abc)",
           R"("abc"x)",
           R"('abc'x)",
           R"("abc\")",
           R"('abc\')",
           R"("a\)",
           R"(SET "a)",
           R"(SET a "b"c d)",
           R"("""")",
       }) {
    ExpectErrorInEverySplit(line + "\r\n", "unbalanced quotes in request");
  }
}

TEST(RespParserTest, EmptyCommandsAreSkipped) {
  ExpectCommandsInEverySplit("*0\r\n*-1\r\n\r\n\n   \r\n\t\nPING\r\n*0\r\n",
                             {{"PING"}});

  RespParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.Parse("*0\r\n", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 4u);
  EXPECT_EQ(parser.Parse("\r\n\n", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 3u);
  EXPECT_TRUE(parser.args().empty());
  EXPECT_EQ(parser.Parse("*-1\r\nX\r\n", &consumed), Result::kCommand);
  EXPECT_EQ(consumed, 8u);
  EXPECT_EQ(parser.args(), (Command{"X"}));
}

// The consumed contract for kNeedMore: finished arguments and bulk bytes are
// taken, an incomplete line is left for the caller to pass again.
TEST(RespParserTest, NeedMoreReportsConsumedBytes) {
  RespParser parser;
  size_t consumed = 99;
  EXPECT_EQ(parser.Parse("", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 0u);

  // "*2\r\n" + "$3\r\nfoo\r\n" taken; "$3" is an incomplete header.
  EXPECT_EQ(parser.Parse("*2\r\n$3\r\nfoo\r\n$3", &consumed),
            Result::kNeedMore);
  EXPECT_EQ(consumed, 13u);
  EXPECT_EQ(parser.Parse("$3\r\nba", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 6u);
  EXPECT_EQ(parser.Parse("r\r", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 1u);  // the lone CR waits for its LF
  EXPECT_EQ(parser.Parse("\r\n", &consumed), Result::kCommand);
  EXPECT_EQ(consumed, 2u);
  EXPECT_EQ(parser.args(), (Command{"foo", "bar"}));

  EXPECT_EQ(parser.Parse("*1\r", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(parser.Parse("*1\r", &consumed), Result::kNeedMore);  // no news
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(parser.Parse("*1\r\n$4\r\nPING\r\n", &consumed), Result::kCommand);
  EXPECT_EQ(consumed, 14u);

  EXPECT_EQ(parser.Parse("PIN", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(parser.Parse("PIN", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(parser.Parse("PING\r", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(parser.Parse("PING\r\nPO", &consumed), Result::kCommand);
  EXPECT_EQ(consumed, 6u);
  EXPECT_EQ(parser.args(), (Command{"PING"}));
  EXPECT_EQ(parser.Parse("PO", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 0u);
}

TEST(RespParserTest, ArgsCanBeMovedOutBetweenCommands) {
  RespParser parser;
  const std::string input = "ECHO a\r\n*2\r\n$4\r\nECHO\r\n$1\r\nb\r\n";
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(input, &consumed), Result::kCommand);
  const Command first = std::move(parser.mutable_args());
  ASSERT_EQ(parser.Parse(std::string_view(input).substr(consumed), &consumed),
            Result::kCommand);
  EXPECT_EQ(first, (Command{"ECHO", "a"}));
  EXPECT_EQ(parser.args(), (Command{"ECHO", "b"}));
}

TEST(RespParserTest, LargeBulkInSmallReadsIsLinear) {
  std::string data(1 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) {
    data[i] = static_cast<char>((i * 7) % 256);  // includes NUL, CR and LF
  }
  const std::string input = Multibulk({"SET", "key", data}) + "PING\r\n";
  for (size_t piece : {size_t{1}, size_t{4096}}) {
    SCOPED_TRACE("read size " + std::to_string(piece));
    const Outcome out = Feed(Pieces(input, piece));
    ASSERT_FALSE(out.failed) << out.error;
    ASSERT_EQ(out.commands.size(), 2u);
    EXPECT_EQ(out.commands[0].size(), 3u);
    EXPECT_TRUE(out.commands[0][2] == data) << "bulk data differs";
    EXPECT_EQ(out.commands[1], (Command{"PING"}));
    EXPECT_EQ(out.total_consumed, input.size());
    // Bulk bytes are taken as they arrive: the caller only ever keeps part
    // of a header line, so no byte is handed to the parser more than a few
    // times.
    EXPECT_LE(out.max_pending, 16u);
    EXPECT_LE(out.bytes_offered, 2 * input.size());
  }
}

// A declared length is not trusted for allocation.
TEST(RespParserTest, HugeDeclaredLengthsDoNotAllocate) {
  RespParser parser;
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse("*1048576\r\n$536870912\r\nabc", &consumed),
            Result::kNeedMore);
  EXPECT_EQ(consumed, 25u);
  ASSERT_EQ(parser.args().size(), 1u);
  EXPECT_EQ(parser.args()[0], "abc");
  EXPECT_LT(parser.args()[0].capacity(), size_t{1} << 20);
  EXPECT_LT(parser.args().capacity(), size_t{1} << 16);
}

// --- Protocol errors: the text after "Protocol error: " is Redis's. ---

TEST(RespParserTest, InvalidMultibulkLength) {
  for (const std::string input :
       {"*abc\r\n", "*-2\r\n", "*-0\r\n", "*01\r\n", "*+1\r\n", "*\r\n",
        "* 1\r\n", "*1 \r\n", "*1x\r\n", "*18446744073709551616\r\n",
        "*99999999999999999999999\r\n", "*1\rX", "*1048577\r\n"}) {
    ExpectErrorInEverySplit(input, "invalid multibulk length");
  }
}

TEST(RespParserTest, InvalidBulkLength) {
  for (const std::string input :
       {"*1\r\n$abc\r\n", "*1\r\n$-1\r\n", "*1\r\n$-3\r\n", "*1\r\n$01\r\n",
        "*1\r\n$\r\n", "*1\r\n$+3\r\n", "*1\r\n$ 3\r\n",
        "*1\r\n$18446744073709551616\r\n", "*1\r\n$536870913\r\n",
        "*1\r\n$1\rX"}) {
    ExpectErrorInEverySplit(input, "invalid bulk length");
  }
}

TEST(RespParserTest, ElementMustBeBulk) {
  ExpectErrorInEverySplit("*1\r\nfoo\r\n", "expected '$', got 'f'");
  ExpectErrorInEverySplit("*2\r\n$1\r\na\r\n:1\r\n", "expected '$', got ':'");
  ExpectErrorInEverySplit("*1\r\n*1\r\n$1\r\na\r\n", "expected '$', got '*'");
  ExpectErrorInEverySplit("*1\r\n\r\n", "expected '$', got '\r'");

  // Decided by the first byte, without waiting for the rest of the line.
  RespParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.Parse("*1\r\nx", &consumed), Result::kError);
  EXPECT_EQ(parser.error(), "expected '$', got 'x'");
}

TEST(RespParserTest, BulkDataMustEndWithCrlf) {
  for (const std::string input :
       {"*1\r\n$3\r\nabcX\r", "*1\r\n$3\r\nabc\rX", "*1\r\n$3\r\nabcd\r\n",
        "*1\r\n$3\r\nabc\n\r", "*1\r\n$0\r\nX"}) {
    ExpectErrorInEverySplit(input, "expected CRLF after bulk data");
  }
}

TEST(RespParserTest, CommandsBeforeAnErrorAreDelivered) {
  ExpectErrorInEverySplit("PING\r\n*1\r\n$1\r\na\r\n*x\r\n",
                          "invalid multibulk length", {}, {{"PING"}, {"a"}});
}

TEST(RespParserTest, HeaderLinesAreLimitedTo64KiB) {
  // 65536 bytes before the CR are allowed (the number then overflows);
  // 65537 are too many, whether or not the CR has arrived.
  const std::string digits(65535, '1');
  ExpectErrorInEverySplit("*" + digits + "\r\n", "invalid multibulk length");
  ExpectErrorInEverySplit("*" + digits + "1\r\n", "too big mbulk count string");
  ExpectErrorInEverySplit("*" + digits + "1", "too big mbulk count string");
  ExpectErrorInEverySplit("*1\r\n$" + digits + "\r\n", "invalid bulk length");
  ExpectErrorInEverySplit("*1\r\n$" + digits + "1",
                          "too big bulk count string");

  // Below the limit and without a CR the parser simply waits.
  const Outcome out = Feed({"*1\r\n$" + digits});
  EXPECT_FALSE(out.failed);
  EXPECT_EQ(out.total_consumed, 4u);
}

TEST(RespParserTest, MultibulkCountLimit) {
  RespLimits limits;
  limits.max_multibulk_len = 3;
  ExpectCommandsInEverySplit(Multibulk({"a", "b", "c"}), {{"a", "b", "c"}},
                             limits);
  ExpectErrorInEverySplit("*4\r\n", "invalid multibulk length", limits);
}

TEST(RespParserTest, BulkLengthLimit) {
  RespLimits limits;
  limits.max_bulk_len = 4;
  ExpectCommandsInEverySplit(Multibulk({"abcd", ""}), {{"abcd", ""}}, limits);
  ExpectErrorInEverySplit("*1\r\n$5\r\n", "invalid bulk length", limits);
}

TEST(RespParserTest, InlineLengthLimit) {
  RespLimits limits;
  limits.max_inline_len = 8;
  // The limit counts the line without its terminator, however it arrives.
  ExpectCommandsInEverySplit("12345678\r\n1234 678\n",
                             {{"12345678"}, {"1234", "678"}}, limits);
  ExpectErrorInEverySplit("123456789\n", "too big inline request", limits);
  ExpectErrorInEverySplit("123456789\r\n", "too big inline request", limits);
  ExpectErrorInEverySplit("123456789", "too big inline request", limits);
  ExpectErrorInEverySplit("PING\r\n12345678\r\r\n", "too big inline request",
                          limits, {{"PING"}});

  // A full line whose CR might still be the terminator's is not yet too big.
  const Outcome out = Feed({"12345678\r"}, limits);
  EXPECT_FALSE(out.failed);
  EXPECT_EQ(out.total_consumed, 0u);

  // The default limit is 64 KiB.
  ExpectErrorInEverySplit(std::string(64 * 1024 + 1, 'a'),
                          "too big inline request");
  ExpectCommandsInEverySplit(std::string(64 * 1024, 'a') + "\r\n",
                             {{std::string(64 * 1024, 'a')}});
}

// partial_bytes() counts the argument data of a command still arriving, so
// that the connection can hold a client to client-query-buffer-limit even
// though the parser consumes bulk data as it comes.
TEST(RespParserTest, PartialBytesCountTheIncompleteCommand) {
  RespParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.partial_bytes(), 0u);
  ASSERT_EQ(parser.Parse("*2\r\n$4\r\nECHO\r\n$10\r\nabc", &consumed),
            RespParser::Result::kNeedMore);
  EXPECT_EQ(parser.partial_bytes(), 7u);  // "ECHO" and "abc"
  ASSERT_EQ(parser.Parse("defghij\r\n", &consumed),
            RespParser::Result::kCommand);
  EXPECT_EQ(parser.partial_bytes(), 0u);
  ASSERT_EQ(parser.Parse("*1\r\n$4\r\nPI", &consumed),
            RespParser::Result::kNeedMore);
  EXPECT_EQ(parser.partial_bytes(), 2u);
}

}  // namespace
}  // namespace frontier
