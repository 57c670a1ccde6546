// Tests for ReplyWriter: the exact RESP2 bytes of every reply type.
#include "protocol/reply_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "protocol/resp_parser.h"

namespace frontier {
namespace {

using namespace std::string_literals;  // "..."s keeps embedded NULs

std::string Write(void (*write)(ReplyWriter&)) {
  std::string out;
  ReplyWriter writer(&out);
  write(writer);
  return out;
}

TEST(ReplyWriterTest, Simple) {
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Simple("PONG"); }), "+PONG\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Simple(""); }), "+\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Ok(); }), "+OK\r\n");
}

TEST(ReplyWriterTest, SimpleNeverEndsTheLineEarly) {
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Simple("a\r\nb\nc\r"); }),
            "+a  b c \r\n");
}

TEST(ReplyWriterTest, Error) {
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Error("ERR unknown command 'x'"); }),
            "-ERR unknown command 'x'\r\n");
}

TEST(ReplyWriterTest, ErrorReplacesCrLfWithSpaces) {
  // A client-supplied name echoed in an error must not inject a reply.
  EXPECT_EQ(
      Write([](ReplyWriter& w) { w.Error("ERR unknown command 'a\r\n+OK'"); }),
      "-ERR unknown command 'a  +OK'\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Error("ERR\nx\r"); }), "-ERR x \r\n");
}

TEST(ReplyWriterTest, Int) {
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Int(0); }), ":0\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Int(42); }), ":42\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Int(-7); }), ":-7\r\n");
  EXPECT_EQ(
      Write([](ReplyWriter& w) { w.Int(std::numeric_limits<int64_t>::max()); }),
      ":9223372036854775807\r\n");
  EXPECT_EQ(
      Write([](ReplyWriter& w) { w.Int(std::numeric_limits<int64_t>::min()); }),
      ":-9223372036854775808\r\n");
}

TEST(ReplyWriterTest, BulkIsBinarySafe) {
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Bulk("hello"); }), "$5\r\nhello\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Bulk(""); }), "$0\r\n\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Bulk("a\0\r\nb"s); }),
            "$5\r\na\0\r\nb\r\n"s);
}

TEST(ReplyWriterTest, Nulls) {
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Null(); }), "$-1\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.NullArray(); }), "*-1\r\n");
}

TEST(ReplyWriterTest, NestedArray) {
  EXPECT_EQ(Write([](ReplyWriter& w) {
              w.Array(3);
              w.Int(1);
              w.Array(2);
              w.Bulk("x");
              w.Null();
              w.Error("ERR no");
            }),
            "*3\r\n:1\r\n*2\r\n$1\r\nx\r\n$-1\r\n-ERR no\r\n");
  EXPECT_EQ(Write([](ReplyWriter& w) { w.Array(0); }), "*0\r\n");
}

TEST(ReplyWriterTest, AppendsToExistingOutput) {
  std::string out = "+earlier\r\n";
  ReplyWriter writer(&out);
  writer.Int(1);
  writer.Bulk("b");
  EXPECT_EQ(out, "+earlier\r\n:1\r\n$1\r\nb\r\n");
}

// An array of bulks has the shape of a request, so the parser reads back
// exactly what the writer wrote, whatever the bytes.
TEST(ReplyWriterTest, ArrayOfBulksRoundTripsThroughParser) {
  std::string big(100000, 'x');
  for (size_t i = 0; i < big.size(); i += 97) big[i] = static_cast<char>(i);
  const std::vector<std::string> args = {"SET", "", "a\0\r\nb"s, big};
  std::string out;
  ReplyWriter writer(&out);
  writer.Array(args.size());
  for (const std::string& a : args) writer.Bulk(a);

  RespParser parser;
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(out, &consumed), RespParser::Result::kCommand);
  EXPECT_EQ(consumed, out.size());
  EXPECT_TRUE(parser.args() == args);
}

}  // namespace
}  // namespace frontier
