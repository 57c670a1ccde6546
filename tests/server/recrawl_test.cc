// End to end: recrawl periods (ADD ... RECRAWL and the RECRAWL command):
// a done URL comes back `secs` after its CONFIRM, again after each CONFIRM.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using RecrawlTest = FrontierdTest;

TEST_F(RecrawlTest, ConfirmedUrlComesBackAfterItsPeriod) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/news", "", "RECRAWL", "0.3"}), Int(1));
  for (int round = 1; round <= 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    if (round == 1) {
      ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/news"));
    }
    Stopwatch watch;
    ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/news"}), Int(1));
    EXPECT_EQ(UrlInfo("http://a.com/news")["state"], "scheduled");
    EXPECT_EQ(Cmd({"POP"}), Nil());
    ASSERT_TRUE(PopUntil("http://a.com/news", std::chrono::seconds(5)));
    EXPECT_GE(watch.Elapsed(), milliseconds(280)) << "recrawled too early";
  }
  auto s = Stats();
  EXPECT_EQ(s["recrawled"], 2);
  EXPECT_EQ(s["confirmed"], 2);
  EXPECT_EQ(s["popped"], 3);
}

TEST_F(RecrawlTest, RecrawlCommandOnAKnownUrl) {
  EXPECT_EQ(Cmd({"RECRAWL", "http://unknown.com/", "10"}), Int(0));
  EXPECT_EQ(Cmd({"SEEN", "http://unknown.com/"}), Int(0));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "0");
  EXPECT_EQ(Cmd({"RECRAWL", "http://a.com/", "0.3"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "0.3");
  // Still queued as before: the period starts at the CONFIRM.
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(280));
}

TEST_F(RecrawlTest, RecrawlOfADoneUrlWhosePeriodHasPassedIsAtOnce) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "done");
  std::this_thread::sleep_for(milliseconds(150));
  // Last CONFIRM + 0.1 s is already past: poppable now.
  EXPECT_EQ(Cmd({"RECRAWL", "HTTP://A.COM:80/", "0.1"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_EQ(Stats()["recrawled"], 1);
}

TEST_F(RecrawlTest, RecrawlOfADoneUrlWaitsForTheRestOfThePeriod) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"RECRAWL", "http://a.com/", "0.4"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "scheduled");
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(370));
}

TEST_F(RecrawlTest, ZeroClearsThePeriod) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "RECRAWL", "0.2"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_EQ(Cmd({"RECRAWL", "http://a.com/", "0"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "0");
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "done");
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

TEST_F(RecrawlTest, ClearingAScheduledRecrawlMakesItDone) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "RECRAWL", "0.2"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  ASSERT_EQ(UrlInfo("http://a.com/")["state"], "scheduled");
  EXPECT_EQ(Cmd({"RECRAWL", "http://a.com/", "-1"}), Int(1));
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "done");
}

TEST_F(RecrawlTest, ConfirmOfAScheduledUrlRestartsThePeriod) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "RECRAWL", "0.4"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  std::this_thread::sleep_for(milliseconds(200));
  // Fetched again by other means: counts from now.
  Stopwatch watch;
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(370));
}

TEST_F(RecrawlTest, BadArguments) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_TRUE(Cmd({"RECRAWL", "http://a.com/", "often"}).IsError());
  EXPECT_EQ(Cmd({"RECRAWL", "http://a.com/"}),
            Error("ERR wrong number of arguments for 'recrawl' command"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"RECRAWL", "ftp://a.com/", "10"}),
                                  "ERR invalid URL: "));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "0");
}

}  // namespace
}  // namespace frontier::itest
