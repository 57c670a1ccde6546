// End to end: BPOP, the blocking POP: waking on ADD and on lease expiry,
// timeouts, first come first served among waiting clients, and a server
// that keeps serving others while clients wait.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using BpopTest = FrontierdTest;

// Runs `args` on a fresh connection in another thread; the future holds the
// reply and how long it took.
std::future<std::pair<Reply, milliseconds>> CmdAsync(
    const FrontierdProcess& server, std::vector<std::string> args) {
  auto client = server.Connect(seconds(20));
  return std::async(std::launch::async, [c = std::move(client), args]() {
    Stopwatch watch;
    Reply r = c->Cmd(args);
    return std::make_pair(r, watch.Elapsed());
  });
}

TEST_F(BpopTest, ReturnsAtOnceWhenAUrlIsReady) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  Stopwatch watch;
  EXPECT_EQ(Cmd({"BPOP", "5"}), Bulk("http://a.com/"));
  EXPECT_LT(watch.Elapsed(), seconds(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "leased");
}

TEST_F(BpopTest, TimesOutWithNil) {
  Stopwatch watch;
  EXPECT_EQ(Cmd({"BPOP", "0.3"}), Nil());
  EXPECT_GE(watch.Elapsed(), milliseconds(280));
  EXPECT_LT(watch.Elapsed(), seconds(3));
  // With COUNT a timeout is a null (nil in hiredis), not an empty array.
  watch.Reset();
  EXPECT_EQ(Cmd({"BPOP", "0.2", "COUNT", "3"}), Nil());
  EXPECT_GE(watch.Elapsed(), milliseconds(180));
  // The connection is fine afterwards.
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(BpopTest, WakesWhenAnotherClientAdds) {
  auto waiting = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_EQ(waiting.wait_for(milliseconds(0)), std::future_status::timeout)
      << "BPOP returned before anything was added";
  Stopwatch watch;
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  auto [reply, took] = waiting.get();
  EXPECT_EQ(reply, Bulk("http://a.com/"));
  EXPECT_LT(watch.Elapsed(), seconds(1))
      << "the waiting client was served late";
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "leased");
  EXPECT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(Stats()["popped"], 1);
}

TEST_F(BpopTest, ZeroTimeoutWaitsUntilServed) {
  auto waiting = CmdAsync(*server_, {"BPOP", "0"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_EQ(waiting.wait_for(milliseconds(0)), std::future_status::timeout);
  ASSERT_EQ(Cmd({"MADD", "", "http://a.com/"}), Array({Int(1)}));
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiting.get().first, Bulk("http://a.com/"));
}

TEST_F(BpopTest, CountWakesWithAnArray) {
  auto waiting = CmdAsync(*server_, {"BPOP", "10", "COUNT", "5"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_EQ(Cmd({"MADD", "", "http://a.com/", "http://b.com/"}),
            Array({Int(1), Int(1)}));
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  Reply r = waiting.get().first;
  ASSERT_TRUE(r.IsArray()) << r;
  // At least the first URL; both if the server serves them together.
  ASSERT_GE(r.elements.size(), 1u);
  ASSERT_LE(r.elements.size(), 2u);
  auto s = Stats();
  EXPECT_EQ(s["popped"], static_cast<long long>(r.elements.size()));
}

TEST_F(BpopTest, CountWithReadyUrlsReturnsThemAtOnce) {
  ASSERT_EQ(Cmd({"MADD", "", "http://a.com/", "http://b.com/"}),
            Array({Int(1), Int(1)}));
  Reply r = Cmd({"BPOP", "5", "COUNT", "3"});
  ASSERT_TRUE(r.IsArray()) << r;
  EXPECT_EQ(r.elements.size(), 2u) << r;
}

TEST_F(BpopTest, FirstComeFirstServed) {
  auto first = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  auto second = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(2));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(first.wait_for(seconds(5)), std::future_status::ready)
      << "the first waiting client was not served first";
  EXPECT_EQ(first.get().first, Bulk("http://a.com/"));
  EXPECT_EQ(second.wait_for(milliseconds(100)), std::future_status::timeout)
      << "one URL served two clients";
  ASSERT_EQ(Cmd({"ADD", "http://b.com/"}), Int(1));
  ASSERT_EQ(second.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(second.get().first, Bulk("http://b.com/"));
}

TEST_F(BpopTest, WakesWhenALeaseExpires) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"POP", "LEASE", "1"}), Bulk("http://a.com/"));
  auto waiting = CmdAsync(*server_, {"BPOP", "10"});
  // It waits (the lease has most of a second to run), and the expiry is
  // what wakes it.
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_LT(watch.Elapsed(), milliseconds(1000)) << "registered too late";
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiting.get().first, Bulk("http://a.com/"));
  EXPECT_GE(watch.Elapsed(), milliseconds(950));
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "1");
}

TEST_F(BpopTest, WakesWhenAFailedUrlIsRequeued) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  auto waiting = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(1));
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiting.get().first, Bulk("http://a.com/"));
}

TEST_F(BpopTest, WakesWhenARecrawlFallsDue) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "RECRAWL", "1"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  auto waiting = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_LT(watch.Elapsed(), milliseconds(1000)) << "registered too late";
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiting.get().first, Bulk("http://a.com/"));
  EXPECT_GE(watch.Elapsed(), milliseconds(970));
}

TEST_F(BpopTest, OneMaddServesTwoWaitingClients) {
  auto first = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  auto second = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(2));
  ASSERT_EQ(Cmd({"MADD", "", "http://a.com/", "http://b.com/"}),
            Array({Int(1), Int(1)}));
  ASSERT_EQ(first.wait_for(seconds(5)), std::future_status::ready);
  ASSERT_EQ(second.wait_for(seconds(5)), std::future_status::ready)
      << "the second URL did not reach the second waiting client";
  std::vector<std::string> got = {first.get().first.str,
                                  second.get().first.str};
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"http://a.com/", "http://b.com/"}));
}

TEST_F(BpopTest, ShutdownIsNotHeldUpByWaitingClients) {
  auto waiting = CmdAsync(*server_, {"BPOP", "0"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  EXPECT_EQ(server_->Stop(), 0);
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_TRUE(waiting.get().first.IsIoError());
}

TEST_F(BpopTest, OthersAreServedWhileClientsWait) {
  auto waiting = CmdAsync(*server_, {"BPOP", "2"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  Stopwatch watch;
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/"}), Int(0));
  EXPECT_LT(watch.Elapsed(), seconds(1)) << "the loop blocked on BPOP";
  EXPECT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
}

TEST_F(BpopTest, AClientThatLeavesWhileWaitingTakesNothing) {
  {
    auto gone = Connect();
    gone->Append({"BPOP", "10"});
    // Flush the command by asking for a reply with a short timeout.
    gone->SetTimeout(milliseconds(100));
    EXPECT_TRUE(gone->GetReply().IsIoError());
    ASSERT_TRUE(WaitForBlockedClients(1));
  }  // disconnects
  // The server has seen it leave: nobody waits any more.
  ASSERT_TRUE(WaitForBlockedClients(0));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_EQ(Stats()["popped"], 1);
}

TEST_F(BpopTest, BadArguments) {
  EXPECT_EQ(Cmd({"BPOP", "-1"}), Error("ERR timeout is negative"));
  EXPECT_TRUE(Cmd({"BPOP", "soon"}).IsError());
  EXPECT_EQ(Cmd({"BPOP", "1", "COUNT", "0"}),
            Error("ERR value is not an integer or out of range"));
  EXPECT_EQ(Cmd({"BPOP", "1", "BOGUS", "2"}), Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"BPOP"}),
            Error("ERR wrong number of arguments for 'bpop' command"));
}

class BpopPolitenessTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--politeness-delay", "0.3", "--site-max-leases", "1",
            "--timer-ms",         "10"};
  }
};

TEST_F(BpopPolitenessTest, WakesWhenTheSiteBecomesReady) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  auto waiting = CmdAsync(*server_, {"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/1"}), Int(1));
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  auto [reply, took] = waiting.get();
  EXPECT_EQ(reply, Bulk("http://a.com/2"));
  EXPECT_GE(watch.Elapsed(), milliseconds(270))
      << "politeness delay not kept for BPOP";
}

}  // namespace
}  // namespace frontier::itest
