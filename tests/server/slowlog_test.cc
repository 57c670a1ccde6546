// SLOWLOG GET/LEN/RESET and the slowlog-* directives, as Redis has them
// (docs/operations.md#the-slow-log): which commands are kept, in what
// shape, how the log is bounded, and that it never shows a password.
//
// Timing is not under test control, so the tests use the two thresholds
// whose outcome does not depend on speed: 0 (every command is kept) and
// -1 (none is).
#include "server/slowlog.h"

#include <chrono>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier {
namespace {

TEST(SlowLogArgsTest, LongCommandsAreTrimmedLikeRedis) {
  std::vector<std::string> argv = {"MADD", ""};
  for (int i = 0; i < 40; ++i) argv.push_back("u" + std::to_string(i));
  std::vector<std::string> kept = SlowLogArgs(argv);
  ASSERT_EQ(kept.size(), 32u);
  EXPECT_EQ(kept[30], "u28");
  EXPECT_EQ(kept[31], "... (11 more arguments)");  // 42 - 31

  std::vector<std::string> one = {"ECHO", std::string(200, 'x')};
  kept = SlowLogArgs(one);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1], std::string(128, 'x') + "... (72 more bytes)");
}

TEST(SlowLogArgsTest, SecretsAreRedacted) {
  using V = std::vector<std::string>;
  EXPECT_EQ(SlowLogArgs(V{"AUTH", "pw"}), (V{"AUTH", "(redacted)"}));
  EXPECT_EQ(SlowLogArgs(V{"auth", "user", "pw"}),
            (V{"auth", "(redacted)", "(redacted)"}));
  EXPECT_EQ(
      SlowLogArgs(V{"HELLO", "2", "AUTH", "u", "pw", "SETNAME", "n"}),
      (V{"HELLO", "2", "AUTH", "(redacted)", "(redacted)", "SETNAME", "n"}));
  EXPECT_EQ(
      SlowLogArgs(V{"CONFIG", "SET", "maxclients", "5", "REQUIREPASS", "pw"}),
      (V{"CONFIG", "SET", "maxclients", "5", "REQUIREPASS", "(redacted)"}));
  EXPECT_EQ(SlowLogArgs(V{"ECHO", "pw"}), (V{"ECHO", "pw"}));
}

TEST(SlowLogTest, KeepsTheNewestWithinItsLength) {
  SlowLog log;
  std::vector<std::string> argv = {"PING"};
  for (int i = 0; i < 5; ++i) {
    log.Record(argv, /*duration_us=*/100 + i, /*unix_seconds=*/1000 + i,
               "127.0.0.1:1", "", /*slower_than_us=*/0, /*max_len=*/3);
  }
  ASSERT_EQ(log.size(), 3u);
  std::vector<const SlowLogEntry*> newest = log.Newest(-1);
  ASSERT_EQ(newest.size(), 3u);
  EXPECT_EQ(newest[0]->id, 4u);
  EXPECT_EQ(newest[2]->id, 2u);
  EXPECT_EQ(newest[0]->duration_us, 104);
  // Below the threshold, or with a negative threshold: not kept.
  log.Record(argv, 99, 0, "", "", /*slower_than_us=*/100, 3);
  log.Record(argv, 1'000'000, 0, "", "", /*slower_than_us=*/-1, 3);
  EXPECT_EQ(log.Newest(1)[0]->id, 4u);
  log.Record(argv, 100, 0, "", "", /*slower_than_us=*/100, 3);
  EXPECT_EQ(log.Newest(1)[0]->id, 5u);  // ids are never reused
  log.Reset();
  EXPECT_EQ(log.size(), 0u);
  log.Record(argv, 1, 0, "", "", 0, 3);
  EXPECT_EQ(log.Newest(1)[0]->id, 6u);
}

}  // namespace

namespace itest {
namespace {

class SlowlogTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--slowlog-log-slower-than", "0"});
    return args;
  }
};

TEST_F(SlowlogTest, EntriesHaveRedisShapeNewestFirst) {
  std::unique_ptr<Client> c = Connect();
  ASSERT_EQ(c->Cmd({"CLIENT", "SETNAME", "crawler-7"}), StatusReply("OK"));
  ASSERT_EQ(c->Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(c->Cmd({"POP"}), Bulk("http://a.com/"));
  Reply info = c->Cmd({"CLIENT", "INFO"});
  size_t at = info.str.find(" addr=");
  ASSERT_NE(at, std::string::npos) << info;
  at += 6;
  std::string addr = info.str.substr(at, info.str.find(' ', at) - at);

  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  Reply r = c->Cmd({"SLOWLOG", "GET", "3"});
  ASSERT_TRUE(r.IsArray()) << r;
  ASSERT_EQ(r.elements.size(), 3u) << r;
  // Newest first: CLIENT INFO, POP, ADD.
  const Reply& pop = r.elements[1];
  ASSERT_EQ(pop.elements.size(), 6u) << pop;
  EXPECT_TRUE(pop.elements[0].IsInteger());
  EXPECT_EQ(r.elements[0].elements[0].integer, pop.elements[0].integer + 1);
  EXPECT_NEAR(pop.elements[1].integer, now_s, 5);
  EXPECT_TRUE(pop.elements[2].IsInteger());
  EXPECT_GE(pop.elements[2].integer, 0);
  EXPECT_EQ(pop.elements[3], BulkArray({"POP"}));
  EXPECT_EQ(pop.elements[4], Bulk(addr));
  EXPECT_EQ(pop.elements[5], Bulk("crawler-7"));
  EXPECT_EQ(r.elements[2].elements[3], BulkArray({"ADD", "http://a.com/"}));
  EXPECT_EQ(r.elements[0].elements[3], BulkArray({"CLIENT", "INFO"}));
}

TEST_F(SlowlogTest, LenResetAndCounts) {
  ASSERT_EQ(Cmd({"SLOWLOG", "RESET"}), StatusReply("OK"));
  // The RESET itself ran after the log was emptied, so it is kept.
  EXPECT_EQ(Cmd({"SLOWLOG", "LEN"}), Int(1));
  for (int i = 0; i < 12; ++i) Cmd({"PING"});
  Reply ten = Cmd({"SLOWLOG", "GET"});  // default: 10
  ASSERT_TRUE(ten.IsArray());
  EXPECT_EQ(ten.elements.size(), 10u);
  Reply all = Cmd({"SLOWLOG", "GET", "-1"});
  EXPECT_GE(all.elements.size(), 14u);
  EXPECT_EQ(Cmd({"SLOWLOG", "GET", "0"}), Array({}));
  EXPECT_EQ(Cmd({"SLOWLOG", "GET", "-2"}),
            Error("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Cmd({"SLOWLOG", "GET", "many"}),
            Error("ERR count should be greater than or equal to -1"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"SLOWLOG", "NOPE"}),
                                  "ERR unknown subcommand 'NOPE'"));
  // Commands that did not run (unknown, wrong arity) are not kept.
  ASSERT_EQ(Cmd({"SLOWLOG", "RESET"}), StatusReply("OK"));
  Cmd({"NOSUCH"});
  Cmd({"ECHO"});
  EXPECT_EQ(Cmd({"SLOWLOG", "LEN"}), Int(1));
}

TEST_F(SlowlogTest, MaxLenBoundsTheLog) {
  for (int i = 0; i < 5; ++i) Cmd({"PING"});
  ASSERT_EQ(Cmd({"CONFIG", "SET", "slowlog-max-len", "3"}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"SLOWLOG", "LEN"}), Int(3));  // trimmed at once
  for (int i = 0; i < 10; ++i) Cmd({"ECHO", std::to_string(i)});
  EXPECT_EQ(Cmd({"SLOWLOG", "LEN"}), Int(3));
  Reply r = Cmd({"SLOWLOG", "GET", "-1"});
  ASSERT_EQ(r.elements.size(), 3u) << r;
  EXPECT_EQ(r.elements[0].elements[3], BulkArray({"SLOWLOG", "LEN"}));
  EXPECT_EQ(r.elements[1].elements[3], BulkArray({"ECHO", "9"}));
  EXPECT_EQ(r.elements[2].elements[3], BulkArray({"ECHO", "8"}));
}

TEST_F(SlowlogTest, ANegativeThresholdKeepsNothing) {
  ASSERT_EQ(Cmd({"CONFIG", "SET", "slowlog-log-slower-than", "-1"}),
            StatusReply("OK"));
  ASSERT_EQ(Cmd({"SLOWLOG", "RESET"}), StatusReply("OK"));
  for (int i = 0; i < 5; ++i) Cmd({"ADD", "http://a.com/" + std::to_string(i)});
  EXPECT_EQ(Cmd({"SLOWLOG", "LEN"}), Int(0));
}

TEST_F(SlowlogTest, LongCommandsAreTrimmed) {
  std::vector<std::string> madd = {"MADD", ""};
  for (int i = 0; i < 40; ++i)
    madd.push_back("http://a.com/" + std::to_string(i));
  ASSERT_TRUE(Cmd(madd).IsArray());
  Reply r = Cmd({"SLOWLOG", "GET", "1"});
  ASSERT_EQ(r.elements.size(), 1u);
  const Reply& argv = r.elements[0].elements[3];
  ASSERT_EQ(argv.elements.size(), 32u) << argv;
  EXPECT_EQ(argv.elements[31], Bulk("... (11 more arguments)"));
  ASSERT_EQ(Cmd({"ECHO", std::string(300, 'y')}), Bulk(std::string(300, 'y')));
  r = Cmd({"SLOWLOG", "GET", "1"});
  EXPECT_EQ(
      r.elements[0].elements[3],
      BulkArray({"ECHO", std::string(128, 'y') + "... (172 more bytes)"}));
}

class SlowlogAuthTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--slowlog-log-slower-than", "0", "--requirepass",
                             "Sl0wl0g-secret", "--user", "w", "on", ">w-secret",
                             "+@worker"});
    return args;
  }
};

TEST_F(SlowlogAuthTest, PasswordsAreRedacted) {
  std::unique_ptr<Client> c = Connect();
  ASSERT_EQ(c->Cmd({"AUTH", "Sl0wl0g-secret"}), StatusReply("OK"));
  ASSERT_TRUE(c->Cmd({"HELLO", "2", "AUTH", "w", "w-secret"}).IsArray());
  ASSERT_EQ(c->Cmd({"AUTH", "default", "Sl0wl0g-secret"}), StatusReply("OK"));
  ASSERT_EQ(c->Cmd({"CONFIG", "SET", "requirepass", "n3w-secret"}),
            StatusReply("OK"));
  Reply r = c->Cmd({"SLOWLOG", "GET", "4"});
  ASSERT_EQ(r.elements.size(), 4u) << r;
  EXPECT_EQ(r.elements[0].elements[3],
            BulkArray({"CONFIG", "SET", "requirepass", "(redacted)"}));
  EXPECT_EQ(r.elements[1].elements[3],
            BulkArray({"AUTH", "(redacted)", "(redacted)"}));
  EXPECT_EQ(r.elements[2].elements[3],
            BulkArray({"HELLO", "2", "AUTH", "(redacted)", "(redacted)"}));
  EXPECT_EQ(r.elements[3].elements[3], BulkArray({"AUTH", "(redacted)"}));
  std::string all = c->Cmd({"SLOWLOG", "GET", "-1"}).DebugString();
  for (const char* secret : {"Sl0wl0g-secret", "w-secret", "n3w-secret"}) {
    EXPECT_EQ(all.find(secret), std::string::npos) << secret;
  }
}

}  // namespace
}  // namespace itest
}  // namespace frontier
