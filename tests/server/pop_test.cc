// End to end: POP's order (bfs and priority), COUNT, and leases.
#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using PopTest = FrontierdTest;

// Five URLs whose (depth, priority) differ:
//   W (1, 50)  Z (1, 100)  X (1, 9000)  Y (2, 0)  V (2, 50)
void AddOrderFixture(FrontierdProcess& server) {
  auto cmd = [&server](std::vector<std::string> args) {
    return server.Cmd(args);
  };
  ASSERT_EQ(cmd({"ADD", "http://x.com/", "", "PRIORITY", "9000"}), Int(1));
  ASSERT_EQ(cmd({"ADD", "http://x.com/deep", "http://x.com/", "PRIORITY", "0"}),
            Int(1));
  ASSERT_EQ(cmd({"ADD", "http://z.com/", "", "PRIORITY", "100"}), Int(1));
  ASSERT_EQ(cmd({"ADD", "http://w.com/", "", "PRIORITY", "50"}), Int(1));
  ASSERT_EQ(cmd({"ADD", "http://w.com/v", "http://w.com/", "PRIORITY", "50"}),
            Int(1));
}

TEST_F(PopTest, EmptyFrontier) {
  EXPECT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(Cmd({"POP", "COUNT", "5"}), Array({}));
}

TEST_F(PopTest, BfsOrderIsDepthThenPriority) {
  ASSERT_NO_FATAL_FAILURE(AddOrderFixture(*server_));
  EXPECT_EQ(UrlInfo("http://x.com/deep")["depth"], "2");
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://w.com/"));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://z.com/"));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://x.com/"));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://x.com/deep"));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://w.com/v"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

class PopPriorityOrderTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--order", "priority"});
    return args;
  }
};

TEST_F(PopPriorityOrderTest, PriorityOrderIsPriorityThenDepth) {
  ASSERT_NO_FATAL_FAILURE(AddOrderFixture(*server_));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://x.com/deep", "http://w.com/", "http://w.com/v",
                       "http://z.com/", "http://x.com/"}));
}

class PopDefaultPriorityTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(),
                {"--order", "priority", "--default-priority", "10"});
    return args;
  }
};

TEST_F(PopDefaultPriorityTest, DefaultPriorityApplies) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "PRIORITY", "20"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://b.com/")["priority"], "10");
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://b.com/"));
}

TEST_F(PopTest, CountReturnsUpToN) {
  ASSERT_NO_FATAL_FAILURE(AddOrderFixture(*server_));
  EXPECT_EQ(Cmd({"POP", "COUNT", "3"}),
            BulkArray({"http://w.com/", "http://z.com/", "http://x.com/"}));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://x.com/deep", "http://w.com/v"}));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), Array({}));
  EXPECT_EQ(Cmd({"POP", "COUNT", "1"}), Array({}));
}

TEST_F(PopTest, CountOneIsStillAnArray) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"POP", "COUNT", "1"}), BulkArray({"http://a.com/"}));
}

TEST_F(PopTest, BadArguments) {
  const Reply kNotInt = Error("ERR value is not an integer or out of range");
  EXPECT_EQ(Cmd({"POP", "COUNT", "0"}), kNotInt);
  EXPECT_EQ(Cmd({"POP", "COUNT", "abc"}), kNotInt);
  EXPECT_EQ(Cmd({"POP", "COUNT", "2.5"}), kNotInt);
  EXPECT_TRUE(Cmd({"POP", "COUNT", "-1"}).IsError());
  EXPECT_TRUE(Cmd({"POP", "LEASE", "abc"}).IsError());
  EXPECT_TRUE(Cmd({"POP", "LEASE", "-1"}).IsError());
  EXPECT_EQ(Cmd({"POP", "BOGUS", "1"}), Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"POP", "COUNT"}), Error("ERR syntax error"));
  // A refused POP leased nothing.
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"POP", "COUNT", "0"}), kNotInt);
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "queued");
  // Options are case-insensitive and combine.
  EXPECT_EQ(Cmd({"pop", "lease", "60", "count", "2"}),
            BulkArray({"http://a.com/"}));
}

TEST_F(PopTest, PoppedUrlIsLeasedNotPoppedAgain) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  auto info = UrlInfo("http://a.com/");
  EXPECT_EQ(info["state"], "leased");
  // due is the lease's end in Unix seconds: now + lease-timeout (300 s).
  double due = std::stod(info["due"]);
  double now = static_cast<double>(std::time(nullptr));
  EXPECT_NEAR(due, now + 300, 5) << info["due"];
  EXPECT_EQ(Cmd({"POP"}), Nil());
  auto s = Stats();
  EXPECT_EQ(s["popped"], 1);
  EXPECT_EQ(s["leased"], 1);
  EXPECT_EQ(s["queued"], 0);
}

TEST_F(PopTest, PopCountsUrlsNotCommands) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Cmd({"ADD", "http://a.com/" + std::to_string(i)}), Int(1));
  }
  Reply r = Cmd({"POP", "COUNT", "3"});
  ASSERT_TRUE(r.IsArray());
  ASSERT_EQ(r.elements.size(), 3u);
  auto s = Stats();
  EXPECT_EQ(s["popped"], 3);
  EXPECT_EQ(s["leased"], 3);
  EXPECT_EQ(s["queued"], 2);
}

TEST_F(PopTest, LeaseExpiresAndTheUrlComesBack) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"POP", "LEASE", "0.3"}), Bulk("http://a.com/"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(280)) << "the lease ended early";
  auto info = UrlInfo("http://a.com/");
  EXPECT_EQ(info["attempts"], "1");
  EXPECT_EQ(info["state"], "leased");
  auto s = Stats();
  EXPECT_EQ(s["expired"], 1);
  EXPECT_EQ(s["popped"], 2);
}

class PopLeaseTimeoutTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--lease-timeout", "0.3"});
    return args;
  }
};

TEST_F(PopLeaseTimeoutTest, DefaultLeaseComesFromTheConfig) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/", "", "PRIORITY", "2"}), Int(1));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"POP", "LEASE", "60"}), Bulk("http://a.com/"));
  EXPECT_NEAR(std::stod(UrlInfo("http://a.com/")["due"]),
              static_cast<double>(std::time(nullptr)) + 60, 5);
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://b.com/"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  // b.com's 0.3 s lease runs out; a.com's explicit 60 s lease does not.
  ASSERT_TRUE(PopUntil("http://b.com/", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(280));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "leased");
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "0");
}

}  // namespace
}  // namespace frontier::itest
