// End to end: MSEEN, the batched SEEN (issue 9, section 4).
#include <chrono>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using MSeenTest = FrontierdTest;

TEST_F(MSeenTest, AnswersEachUrlInOrder) {
  ASSERT_EQ(Cmd({"MADD", "", "http://b.example/1", "http://a.example/2",
                 "http://c.example/3"}),
            Array({Int(1), Int(1), Int(1)}));
  const auto stats = Stats();
  EXPECT_EQ(
      Cmd({"MSEEN", "http://c.example/3", "http://a.example/9",
           "ftp://a.example/", "HTTP://A.example:80/x/../2#f",
           "http://b.example/1", "http://zz.example/"}),
      Array({Int(1), Int(0), Error("ERR invalid URL: unsupported scheme 'ftp'"),
             Int(1), Int(1), Int(0)}));
  // The error element is SEEN's.
  EXPECT_EQ(Cmd({"SEEN", "ftp://a.example/"}),
            Error("ERR invalid URL: unsupported scheme 'ftp'"));
  EXPECT_EQ(Cmd({"MSEEN", "http://a.example/2"}), Array({Int(1)}));
  // Read-only: nothing counted, nothing stored.
  EXPECT_EQ(Stats(), stats);
  EXPECT_EQ(UrlInfo("http://a.example/2")["backlinks"], "0");
  EXPECT_EQ(Cmd({"DBSIZE"}), Int(3));
}

TEST_F(MSeenTest, ArityAndCommandInfo) {
  EXPECT_EQ(Cmd({"MSEEN"}),
            Error("ERR wrong number of arguments for 'mseen' command"));
  Reply info = Cmd({"COMMAND", "INFO", "mseen"});
  ASSERT_TRUE(info.IsArray()) << info;
  ASSERT_EQ(info.elements.size(), 1u) << info;
  ASSERT_TRUE(info.elements[0].IsArray()) << info;
  ASSERT_GE(info.elements[0].elements.size(), 3u) << info;
  EXPECT_EQ(info.elements[0].elements[1], Int(-2));
  EXPECT_EQ(info.elements[0].elements[2].DebugString().find("write"),
            std::string::npos)
      << info;
  EXPECT_NE(info.elements[0].elements[2].DebugString().find("readonly"),
            std::string::npos)
      << info;
}

class MSeenWorkerTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--requirepass", "root-pw-MSEEN", "--user",
                             "crawler", "on", ">worker-pw-MSEEN", "+@worker"});
    return args;
  }
};

TEST_F(MSeenWorkerTest, AWorkerMayRunIt) {
  std::unique_ptr<Client> c = Connect();
  ASSERT_EQ(c->Cmd({"AUTH", "crawler", "worker-pw-MSEEN"}), StatusReply("OK"));
  EXPECT_EQ(c->Cmd({"ADD", "http://a.example/"}), Int(1));
  EXPECT_EQ(c->Cmd({"MSEEN", "http://a.example/", "http://b.example/"}),
            Array({Int(1), Int(0)}));
}

// The whole command line counts against proto-max-multibulk-len.
class MSeenLimitTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--proto-max-multibulk-len", "3"});
    return args;
  }
};

TEST_F(MSeenLimitTest, RespectsProtoMaxMultibulkLen) {
  EXPECT_EQ(Cmd({"MSEEN", "http://a.example/", "http://b.example/"}),
            Array({Int(0), Int(0)}));
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.Send(Resp({"MSEEN", "http://a.example/", "http://b.example/",
                             "http://c.example/"})));
  bool closed = false;
  EXPECT_EQ(raw.ReadUntilClosed(std::chrono::seconds(5), &closed),
            "-ERR Protocol error: invalid multibulk length\r\n");
  EXPECT_TRUE(closed);
}

}  // namespace
}  // namespace frontier::itest
