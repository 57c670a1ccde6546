// End to end over a raw socket: RESP framing as clients really send it
// (multibulk, inline, pipelines, split reads) and malformed input, which
// gets "-ERR Protocol error: ..." and a closed connection.
#include <chrono>
#include <string>
#include <thread>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ProtocolTest = FrontierdTest;

// Sends `bytes` on a fresh connection and expects a protocol error reply
// followed by the server closing the connection.
void ExpectProtocolError(int port, const std::string& bytes,
                         const std::string& expect_before = "") {
  RawConnection raw(port);
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(raw.Send(bytes));
  bool closed = false;
  std::string got = raw.ReadUntilClosed(seconds(5), &closed);
  EXPECT_TRUE(closed)
      << "the server kept the connection open after a protocol error; got: "
      << got;
  ASSERT_EQ(got.compare(0, expect_before.size(), expect_before), 0) << got;
  std::string rest = got.substr(expect_before.size());
  EXPECT_EQ(rest.rfind("-ERR Protocol error: ", 0), 0u) << "got: " << got;
  ASSERT_GE(rest.size(), 2u);
  EXPECT_EQ(rest.substr(rest.size() - 2), "\r\n");
  EXPECT_EQ(rest.find("\r\n"), rest.size() - 2)
      << "more than one reply: " << got;
}

TEST_F(ProtocolTest, BadMultibulkLength) {
  ExpectProtocolError(server_->port(), "*abc\r\n");
  // Other clients do not notice.
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(ProtocolTest, BadBulkLength) {
  ExpectProtocolError(server_->port(), "*1\r\n$abc\r\n");
}

TEST_F(ProtocolTest, MissingDollar) {
  ExpectProtocolError(server_->port(), "*1\r\nPING\r\n");
}

TEST_F(ProtocolTest, HugeLengthsAreRefusedNotAllocated) {
  ExpectProtocolError(server_->port(), "*99999999999\r\n");
  ExpectProtocolError(server_->port(), "*1\r\n$99999999999\r\n");
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(ProtocolTest, CommandsBeforeTheErrorAreAnswered) {
  ExpectProtocolError(server_->port(),
                      Resp({"PING"}) + Resp({"ECHO", "x"}) + "*zz\r\n",
                      "+PONG\r\n$1\r\nx\r\n");
}

TEST_F(ProtocolTest, UnbalancedQuotesInline) {
  ExpectProtocolError(server_->port(), "ECHO \"abc\r\n");
}

TEST_F(ProtocolTest, EndlessInlineLineIsRefused) {
  // 1 MB without a newline: no command is that long; the server must not
  // buffer it forever (Redis: "too big inline request").
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.ok());
  const std::string chunk(16 * 1024, 'A');
  for (int i = 0; i < 64 && raw.Send(chunk); ++i) {
  }
  bool closed = false;
  std::string got = raw.ReadUntilClosed(seconds(5), &closed);
  EXPECT_TRUE(closed) << "the server kept buffering an endless line";
  // The error may be lost if the close resets the connection first.
  EXPECT_TRUE(got.empty() || got.rfind("-ERR Protocol error: ", 0) == 0) << got;
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(ProtocolTest, InlineCommands) {
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.Send("PING\r\n"));
  EXPECT_EQ(raw.Read(7, seconds(5)), "+PONG\r\n");
  ASSERT_TRUE(raw.Send("ADD http://a.com/\r\n"));
  EXPECT_EQ(raw.Read(4, seconds(5)), ":1\r\n");
  ASSERT_TRUE(raw.Send("seen   http://a.com/\n"));  // bare LF, extra spaces
  EXPECT_EQ(raw.Read(4, seconds(5)), ":1\r\n");
  ASSERT_TRUE(raw.Send("ECHO \"a b\"\r\n"));
  EXPECT_EQ(raw.Read(9, seconds(5)), "$3\r\na b\r\n");
  ASSERT_TRUE(raw.Send("\r\nPING\r\n"));  // an empty line is skipped
  EXPECT_EQ(raw.Read(7, seconds(5)), "+PONG\r\n");
}

TEST_F(ProtocolTest, PipelineInOneWrite) {
  RawConnection raw(server_->port());
  std::string batch;
  for (int i = 0; i < 1000; ++i) batch += Resp({"PING"});
  ASSERT_TRUE(raw.Send(batch));
  std::string expected;
  for (int i = 0; i < 1000; ++i) expected += "+PONG\r\n";
  EXPECT_EQ(raw.Read(expected.size(), seconds(10)), expected);
}

TEST_F(ProtocolTest, PipelinedFrontierCommandsAnswerInOrder) {
  RawConnection raw(server_->port());
  ASSERT_TRUE(
      raw.Send(Resp({"ADD", "http://a.com/"}) + Resp({"ADD", "http://a.com/"}) +
               Resp({"SEEN", "http://a.com/"}) + Resp({"POP"}) + Resp({"POP"}) +
               Resp({"CONFIRM", "http://a.com/"}) + "PING\r\n"));
  const std::string expected =
      ":1\r\n:0\r\n:1\r\n$13\r\nhttp://a.com/\r\n$-1\r\n:1\r\n+PONG\r\n";
  EXPECT_EQ(raw.Read(expected.size(), seconds(5)), expected);
}

TEST_F(ProtocolTest, CommandSplitAtEveryByte) {
  RawConnection raw(server_->port());
  const std::string cmd =
      Resp({"ECHO", "hello"}) + Resp({"ADD", "http://split.com/"});
  for (char c : cmd) {
    ASSERT_TRUE(raw.Send(std::string(1, c)));
    std::this_thread::sleep_for(milliseconds(1));
  }
  const std::string expected = "$5\r\nhello\r\n:1\r\n";
  EXPECT_EQ(raw.Read(expected.size(), seconds(5)), expected);
}

TEST_F(ProtocolTest, BinarySafeAndLargeArguments) {
  std::string binary("a\0b\r\nc", 6);
  EXPECT_EQ(Cmd({"ECHO", binary}), Bulk(binary));
  std::string big(1 << 20, 'x');
  EXPECT_EQ(Cmd({"ECHO", big}), Bulk(big));
}

TEST_F(ProtocolTest, ASlowReaderDoesNotBlockOthers) {
  // 1.4 MB of inline PINGs whose replies this client never reads.
  RawConnection greedy(server_->port());
  std::string flood;
  for (int i = 0; i < 200'000; ++i) flood += "PING\r\n";
  std::thread sender([&] { greedy.Send(flood); });
  std::this_thread::sleep_for(milliseconds(100));
  Stopwatch watch;
  auto other = Connect(seconds(5));
  EXPECT_EQ(other->Cmd({"PING"}), StatusReply("PONG"));
  EXPECT_EQ(other->Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_LT(watch.Elapsed(), seconds(2));
  // Now read everything: every PING was answered, in order.
  std::string expected;
  for (int i = 0; i < 200'000; ++i) expected += "+PONG\r\n";
  std::string got = greedy.Read(expected.size(), seconds(30));
  sender.join();
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST_F(ProtocolTest, ClientVanishingMidCommandIsHarmless) {
  {
    RawConnection raw(server_->port());
    ASSERT_TRUE(raw.Send("*2\r\n$3\r\nADD\r\n$100\r\nhttp://half"));
  }
  {
    RawConnection raw(server_->port());
    ASSERT_TRUE(raw.Send(Resp({"BPOP", "0"})));
  }
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
  EXPECT_EQ(Cmd({"SEEN", "http://half"}), Int(0));
  EXPECT_EQ(Stats()["urls"], 0);
}

TEST_F(ProtocolTest, RepliesAreRedisShaped) {
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.Send(Resp({"SELECT", "0"}) +
                       Resp({"SEEN", "http://none.com/"}) +
                       Resp({"POP", "COUNT", "2"}) + Resp({"NOPE"})));
  const std::string prefix = "+OK\r\n:0\r\n*0\r\n-ERR unknown command 'NOPE'";
  std::string got = raw.Read(prefix.size(), seconds(5));
  EXPECT_EQ(got.compare(0, prefix.size(), prefix), 0) << got;
}

}  // namespace
}  // namespace frontier::itest
