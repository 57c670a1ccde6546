// End to end: CONFIRM and FAIL, retries, FAIL DELAY, lease expiry counting
// attempts, and dead URLs.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using ConfirmFailTest = FrontierdTest;

TEST_F(ConfirmFailTest, ConfirmALeasedUrl) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "done");
  // Done once: a second CONFIRM is 0, and it is never popped again.
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(0));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  // Still known: ADD says known, and does not queue it again.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/"}), Int(0));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/"}), Int(1));
  auto s = Stats();
  EXPECT_EQ(s["confirmed"], 1);
  EXPECT_EQ(s["done"], 1);
  EXPECT_EQ(s["leased"], 0);
  EXPECT_EQ(s["queued"], 0);
}

TEST_F(ConfirmFailTest, ConfirmUnknownIsZero) {
  EXPECT_EQ(Cmd({"CONFIRM", "http://nowhere.com/"}), Int(0));
  EXPECT_EQ(Cmd({"SEEN", "http://nowhere.com/"}), Int(0));
  EXPECT_EQ(Stats()["confirmed"], 0);
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"CONFIRM", "ftp://a.com/"}),
                                  "ERR invalid URL: "));
}

TEST_F(ConfirmFailTest, ConfirmAcceptsAnySpelling) {
  ASSERT_EQ(Cmd({"ADD", "http://example.com/a/c"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://example.com/a/c"));
  EXPECT_EQ(Cmd({"CONFIRM", "HTTP://Example.COM:80/a/./b/../c#frag"}), Int(1));
  EXPECT_EQ(UrlInfo("http://example.com/a/c")["state"], "done");
}

TEST_F(ConfirmFailTest, ConfirmANeverPoppedUrlTakesItOutOfTheQueue) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "", "PRIORITY", "2"}), Int(1));
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/2"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

TEST_F(ConfirmFailTest, FailRequeuesAtOnceAndCountsTheAttempt) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(1));
  auto info = UrlInfo("http://a.com/");
  EXPECT_EQ(info["state"], "queued");
  EXPECT_EQ(info["attempts"], "1");
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_EQ(Stats()["failed"], 1);
}

TEST_F(ConfirmFailTest, FailOnlyCountsForLeasedUrls) {
  EXPECT_EQ(Cmd({"FAIL", "http://unknown.com/"}), Int(0));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(0));  // queued, not leased
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "0");
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(0));  // done
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "done");
  EXPECT_EQ(Stats()["failed"], 0);
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"FAIL", "gopher://a.com/"}),
                                  "ERR invalid URL: "));
}

TEST_F(ConfirmFailTest, FailDelayHoldsTheUrlBack) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  Stopwatch watch;
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/", "DELAY", "0.3"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  auto info = UrlInfo("http://a.com/");
  EXPECT_NE(info["state"], "leased");
  EXPECT_NE(info["state"], "dead");
  EXPECT_EQ(info["attempts"], "1");
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(280))
      << "FAIL DELAY was not honoured";
}

TEST_F(ConfirmFailTest, FailBadArguments) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_TRUE(Cmd({"FAIL", "http://a.com/", "DELAY", "soon"}).IsError());
  EXPECT_TRUE(Cmd({"FAIL", "http://a.com/", "DELAY", "-1"}).IsError());
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/", "BOGUS", "1"}),
            Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"FAIL"}),
            Error("ERR wrong number of arguments for 'fail' command"));
  // None of them counted an attempt.
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "leased");
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "0");
}

TEST_F(ConfirmFailTest, ReportOptionsAreCheckedBeforeAnythingChanges) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/page"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/page"));
  const std::string url = "http://a.com/page";
  EXPECT_EQ(Cmd({"CONFIRM", url, "STATUS", "99"}),
            Error("ERR STATUS must be an HTTP status code between 100 and 599"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "STATUS", "600"}),
            Error("ERR STATUS must be an HTTP status code between 100 and 599"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "STATUS", "2xx"}),
            Error("ERR STATUS must be an HTTP status code between 100 and 599"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "FETCH-MS", "-5"}),
            Error("ERR FETCH-MS must be a non-negative integer (milliseconds)"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "FETCH-MS", "fast"}),
            Error("ERR FETCH-MS must be a non-negative integer (milliseconds)"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "CHANGED", "UNCHANGED"}),
            Error("ERR CHANGED and UNCHANGED exclude each other and may "
                  "appear once"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "STATUS", "200", "STATUS", "200"}),
            Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "STATUS"}), Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"CONFIRM", url, "LATER", "1"}), Error("ERR syntax error"));
  Reply body = Cmd({"CONFIRM", url, "BODY", "User-agent: *"});
  ASSERT_TRUE(body.IsError());
  EXPECT_NE(body.str.find("robots.txt"), std::string::npos) << body.str;
  EXPECT_EQ(Cmd({"FAIL", url, "STATUS", "1000"}),
            Error("ERR STATUS must be an HTTP status code between 100 and 599"));
  EXPECT_EQ(Cmd({"FAIL", url, "RETRY-AFTER"}), Error("ERR syntax error"));
  // Nothing changed: still leased, no attempt counted, nothing confirmed.
  EXPECT_EQ(UrlInfo(url)["state"], "leased");
  EXPECT_EQ(UrlInfo(url)["attempts"], "0");
  // The well-formed spellings are accepted.
  EXPECT_EQ(Cmd({"CONFIRM", url, "status", "200", "fetch-ms", "120",
                 "unchanged"}),
            Int(1));
  EXPECT_EQ(UrlInfo(url)["state"], "done");
}

class MaxAttemptsTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--max-attempts", "3"});
    return args;
  }
};

TEST_F(MaxAttemptsTest, FailUntilDead) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  for (int attempt = 1; attempt <= 3; ++attempt) {
    ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/")) << "attempt " << attempt;
    ASSERT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(1)) << "attempt " << attempt;
  }
  auto info = UrlInfo("http://a.com/");
  EXPECT_EQ(info["state"], "dead");
  EXPECT_EQ(info["attempts"], "3");
  EXPECT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(0));
  // A dead URL stays known.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/"}), Int(0));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  auto s = Stats();
  EXPECT_EQ(s["dead"], 1);
  EXPECT_EQ(s["failed"], 3);
  EXPECT_EQ(s["queued"], 0);
  // CONFIRM still accepts it (the crawler fetched it after all).
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "done");
}

TEST_F(MaxAttemptsTest, ExpiredLeasesCountTowardsDeath) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  ASSERT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP", "LEASE", "0.1"}), Bulk("http://a.com/"));
  ASSERT_TRUE(
      PopUntil("http://a.com/", std::chrono::seconds(5)));  // expired once
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "2");
  ASSERT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(1));  // third attempt
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "dead");
  auto s = Stats();
  EXPECT_EQ(s["expired"], 1);
  EXPECT_EQ(s["failed"], 2);
}

class MaxAttemptsExpiryTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--max-attempts", "2", "--lease-timeout", "0.1"});
    return args;
  }
};

TEST_F(MaxAttemptsExpiryTest, ALeaseNobodyConfirmsDies) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  // The second lease expires too: that is the last attempt.
  Stopwatch watch;
  while (UrlInfo("http://a.com/")["state"] != "dead" &&
         watch.Elapsed() < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "dead");
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "2");
  EXPECT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(Stats()["expired"], 2);
  EXPECT_EQ(Stats()["dead"], 1);
}

TEST_F(ConfirmFailTest, ExpiredLeaseIsQueuedAgainAndStillConfirmable) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/", "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"POP", "LEASE", "0.1"}), Bulk("http://a.com/"));
  // Wait for the expiry without popping it.
  Stopwatch watch;
  while (UrlInfo("http://a.com/")["state"] != "queued" &&
         watch.Elapsed() < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  auto info = UrlInfo("http://a.com/");
  EXPECT_EQ(info["state"], "queued");
  EXPECT_EQ(info["attempts"], "1");
  // The late worker's FAIL does not count (it no longer holds the lease)...
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/"}), Int(0));
  // ...but its CONFIRM does: the page was fetched.
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://b.com/"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

TEST_F(ConfirmFailTest, ConfirmOfAFailedWithDelayUrl) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  ASSERT_EQ(Cmd({"FAIL", "http://a.com/", "DELAY", "0.2"}), Int(1));
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(Cmd({"POP"}), Nil())
      << "a confirmed URL came back after its retry delay";
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "done");
}

}  // namespace
}  // namespace frontier::itest
