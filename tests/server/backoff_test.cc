// End to end (issue 8 §2, §4, SITE BLOCK): a 429 or 503 blocks its site
// and the block survives kill -9; the back-off directives; EXTEND keeps a
// lease past its old deadline; RELEASE frees the site's slot at once;
// SITE BLOCK and its unblock; every bad input gets a clear -ERR and
// changes nothing.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class BackoffCommandsTest : public FrontierdTest {
 protected:
  // a.com/1 (first in line), a.com/2 and b.com/1.
  void AddTwoSites() {
    ASSERT_EQ(Cmd({"ADD", "http://a.com/1", "", "PRIORITY", "1"}), Int(1));
    ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "", "PRIORITY", "2"}), Int(1));
    ASSERT_EQ(Cmd({"ADD", "http://b.com/1", "", "PRIORITY", "3"}), Int(1));
  }
};

TEST_F(BackoffCommandsTest, A429WithRetryAfterBlocksTheSiteAndSurvivesKill9) {
  AddTwoSites();
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  ASSERT_EQ(
      Cmd({"FAIL", "http://a.com/1", "STATUS", "429", "RETRY-AFTER", "3600"}),
      Int(1));
  auto info = UrlInfo("http://a.com/1");
  EXPECT_EQ(info["state"], "queued");
  EXPECT_EQ(info["attempts"], "0") << "a back-off is not an attempt";
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), BulkArray({"http://b.com/1"}));
  auto stats = Stats();
  EXPECT_EQ(stats["blocked_sites"], 1);
  EXPECT_EQ(stats["backoffs"], 1);
  EXPECT_EQ(stats["failed"], 1);

  server_->Kill9();
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), Array({})) << "the block is gone";
  stats = Stats();
  EXPECT_EQ(stats["blocked_sites"], 1);
  EXPECT_EQ(stats["backoffs"], 1);

  // A clean restart keeps it too.
  ASSERT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), Array({}));

  // The operator lifts it; the URL kept its place.
  EXPECT_EQ(Cmd({"SITE", "BLOCK", "a.com", "0"}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://a.com/1", "http://a.com/2"}));
  EXPECT_EQ(Stats()["blocked_sites"], 0);
}

TEST_F(BackoffCommandsTest, TheBlockEndsByItself) {
  AddTwoSites();
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/2"));
  Stopwatch watch;
  ASSERT_EQ(
      Cmd({"FAIL", "http://a.com/2", "STATUS", "503", "RETRY-AFTER", "1"}),
      Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://b.com/1"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  auto took = PopUntil("http://a.com/2", seconds(10));
  ASSERT_TRUE(took.has_value());
  // Retry-After has no jitter. Both the server's clock and the watch count
  // whole milliseconds, so a block of exactly 1 s can read as 999 ms here.
  EXPECT_GE(watch.Elapsed(), milliseconds(990));
  // STATS catches up at the next tick (timer-ms 10).
  Stopwatch settle;
  while (Stats()["blocked_sites"] != 0 && settle.Elapsed() < seconds(2)) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(Stats()["blocked_sites"], 0);
}

TEST_F(BackoffCommandsTest, AnUnreadableRetryAfterFallsBackToTheSeries) {
  ASSERT_EQ(Cmd({"CONFIG", "SET", "backoff-initial", "0.3"}),
            StatusReply("OK"));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  Stopwatch watch;
  // Not an error: ignored, as an HTTP client ignores such a header.
  ASSERT_EQ(Cmd({"FAIL", "http://a.com/", "STATUS", "429", "RETRY-AFTER",
                 "next tuesday"}),
            Int(1));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/", seconds(10)).has_value());
  EXPECT_GE(watch.Elapsed(), milliseconds(270));  // 0.3 s - 10%
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "0");
}

TEST_F(BackoffCommandsTest, TheDirectivesAreConfigSettable) {
  auto config = FieldMap(Cmd({"CONFIG", "GET", "backoff-*"}));
  EXPECT_EQ(config["backoff-status-codes"], "429 503");
  EXPECT_EQ(config["backoff-initial"], "60");
  EXPECT_EQ(config["backoff-max"], "86400");

  ASSERT_EQ(Cmd({"CONFIG", "SET", "backoff-status-codes", "418",
                 "backoff-initial", "0.2", "backoff-max", "0.5"}),
            StatusReply("OK"));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  // 429 is no longer listed: an ordinary failure, counted.
  ASSERT_EQ(Cmd({"FAIL", "http://a.com/", "STATUS", "429"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "1");
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/"));
  // 418 is; a Retry-After beyond backoff-max is cut to it.
  ASSERT_EQ(
      Cmd({"FAIL", "http://a.com/", "STATUS", "418", "RETRY-AFTER", "86400"}),
      Int(1));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/", seconds(10)).has_value());
  EXPECT_EQ(UrlInfo("http://a.com/")["attempts"], "1");

  // Bad values are refused and change nothing.
  for (const char* bad : {"99", "600", "abc", "429,503", "-429"}) {
    EXPECT_TRUE(
        IsErrorStartingWith(Cmd({"CONFIG", "SET", "backoff-status-codes", bad}),
                            "ERR CONFIG SET failed"))
        << bad;
  }
  for (const char* name : {"backoff-initial", "backoff-max"}) {
    EXPECT_TRUE(IsErrorStartingWith(Cmd({"CONFIG", "SET", name, "-1"}),
                                    "ERR CONFIG SET failed"))
        << name;
  }
  config = FieldMap(Cmd({"CONFIG", "GET", "backoff-*"}));
  EXPECT_EQ(config["backoff-status-codes"], "418");
  EXPECT_EQ(config["backoff-initial"], "0.2");
  EXPECT_EQ(config["backoff-max"], "0.5");
  // An empty list turns back-off off.
  ASSERT_EQ(Cmd({"CONFIG", "SET", "backoff-status-codes", ""}),
            StatusReply("OK"));
  EXPECT_EQ(FieldMap(Cmd({"CONFIG", "GET",
                          "backoff-status-codes"}))["backoff-status-codes"],
            "");
}

TEST_F(BackoffCommandsTest, ExtendKeepsALeasePastItsOldDeadline) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP", "LEASE", "0.5"}), Bulk("http://a.com/"));
  EXPECT_EQ(Cmd({"EXTEND", "http://a.com/", "30"}), Int(1));
  std::this_thread::sleep_for(milliseconds(1000));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "leased");
  EXPECT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(Stats()["expired"], 0);
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  // Not leased (done, unknown, queued): 0.
  EXPECT_EQ(Cmd({"EXTEND", "http://a.com/", "30"}), Int(0));
  EXPECT_EQ(Cmd({"EXTEND", "http://nowhere.com/", "30"}), Int(0));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/"}), Int(1));
  EXPECT_EQ(Cmd({"EXTEND", "http://b.com/", "30"}), Int(0));
  EXPECT_EQ(UrlInfo("http://b.com/")["state"], "queued");
}

TEST_F(BackoffCommandsTest, ExtendMayShortenALease) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"POP", "LEASE", "600"}), Bulk("http://a.com/"));
  EXPECT_EQ(Cmd({"EXTEND", "http://a.com/", "0.2"}), Int(1));
  ASSERT_TRUE(PopUntil("http://a.com/", seconds(10)).has_value());
  EXPECT_EQ(Stats()["expired"], 1);
}

class ReleaseCommandTest : public BackoffCommandsTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--site-max-leases", "1"});
    return args;
  }
};

TEST_F(ReleaseCommandTest, ReleaseFreesTheSitesSlotAtOnce) {
  AddTwoSites();
  ASSERT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://a.com/1", "http://b.com/1"}));
  EXPECT_EQ(Cmd({"POP"}), Nil()) << "a.com is at its lease cap";
  EXPECT_EQ(Cmd({"RELEASE", "http://a.com/1"}), Int(1));
  auto info = UrlInfo("http://a.com/1");
  EXPECT_EQ(info["state"], "queued");
  EXPECT_EQ(info["attempts"], "0");
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));  // at once, first again

  // With DELAY it waits; the slot is free meanwhile.
  EXPECT_EQ(Cmd({"RELEASE", "http://a.com/1", "DELAY", "600"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/1")["state"], "scheduled");
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/2"));
  auto stats = Stats();
  EXPECT_EQ(stats["leased"], 2);
  EXPECT_EQ(stats["scheduled"], 1);
  EXPECT_EQ(stats["failed"], 0);
  EXPECT_EQ(stats["expired"], 0);

  // Not leased: 0, nothing moves.
  EXPECT_EQ(Cmd({"RELEASE", "http://a.com/1"}), Int(0));
  EXPECT_EQ(Cmd({"RELEASE", "http://nowhere.com/"}), Int(0));
  EXPECT_EQ(UrlInfo("http://a.com/1")["state"], "scheduled");
}

TEST_F(ReleaseCommandTest, ReleaseServesAWaitingBpopAtOnce) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  auto waiter = Connect(seconds(10));
  Reply got;
  Stopwatch watch;
  std::thread bpop([&] { got = waiter->Cmd({"BPOP", "5"}); });
  const bool blocked = WaitForBlockedClients(1);  // waits before the RELEASE
  if (blocked) {
    EXPECT_EQ(Cmd({"RELEASE", "http://a.com/1"}), Int(1));
  }
  bpop.join();
  ASSERT_TRUE(blocked) << "the BPOP never waited";
  EXPECT_EQ(got, Bulk("http://a.com/1"));
  EXPECT_LT(watch.Elapsed(), seconds(3)) << "served by the RELEASE, not "
                                            "by the BPOP's timeout";
}

TEST_F(BackoffCommandsTest, SiteBlockHoldsASiteUntilUnblocked) {
  AddTwoSites();
  EXPECT_EQ(Cmd({"SITE", "BLOCK", "a.com", "600"}), StatusReply("OK"));
  EXPECT_EQ(Stats()["blocked_sites"], 1);
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), BulkArray({"http://b.com/1"}));
  // Durable.
  server_->Kill9();
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), Array({}));
  // A URL names its site; 0 unblocks.
  EXPECT_EQ(Cmd({"site", "block", "http://A.COM/some/page", "0"}),
            StatusReply("OK"));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://a.com/1", "http://a.com/2"}));
  EXPECT_EQ(Stats()["blocked_sites"], 0);

  // A short block ends by itself.
  ASSERT_EQ(Cmd({"ADD", "http://c.com/"}), Int(1));
  EXPECT_EQ(Cmd({"SITE", "BLOCK", "c.com", "0.3"}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://c.com/", seconds(10)).has_value());

  auto help = Cmd({"SITE", "HELP"});
  ASSERT_TRUE(help.IsArray()) << help;
  EXPECT_GT(help.elements.size(), 2u);
}

TEST_F(BackoffCommandsTest, BadInputGetsAClearErrorAndChangesNothing) {
  AddTwoSites();
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  const std::string due = UrlInfo("http://a.com/1")["due"];

  const Reply extend_secs =
      Error("ERR EXTEND needs a positive number of seconds");
  for (const char* bad : {"0", "-1", "abc", "", "1e999", "nan"}) {
    EXPECT_EQ(Cmd({"EXTEND", "http://a.com/1", bad}), extend_secs) << bad;
  }
  EXPECT_EQ(Cmd({"EXTEND", "http://a.com/1"}),
            Error("ERR wrong number of arguments for 'extend' command"));
  EXPECT_EQ(Cmd({"EXTEND", "http://a.com/1", "1", "2"}),
            Error("ERR wrong number of arguments for 'extend' command"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"EXTEND", "ftp://a.com/", "1"}),
                                  "ERR invalid URL: "));

  const Reply delay_secs =
      Error("ERR DELAY must be a non-negative number of seconds");
  for (const char* bad : {"-1", "abc", ""}) {
    EXPECT_EQ(Cmd({"RELEASE", "http://a.com/1", "DELAY", bad}), delay_secs)
        << bad;
  }
  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"RELEASE", "http://a.com/1", "DELAY"},
           {"RELEASE", "http://a.com/1", "WAIT", "1"},
           {"RELEASE", "http://a.com/1", "DELAY", "1", "DELAY", "2"}}) {
    EXPECT_EQ(Cmd(bad), Error("ERR syntax error"));
  }
  EXPECT_EQ(Cmd({"RELEASE"}),
            Error("ERR wrong number of arguments for 'release' command"));
  EXPECT_TRUE(
      IsErrorStartingWith(Cmd({"RELEASE", "not a url"}), "ERR invalid URL: "));

  const Reply block_secs = Error(
      "ERR SITE BLOCK needs a non-negative number of seconds (0 unblocks)");
  for (const char* bad : {"-1", "abc", ""}) {
    EXPECT_EQ(Cmd({"SITE", "BLOCK", "b.com", bad}), block_secs) << bad;
  }
  for (const char* bad : {"b.com/path", "x@b.com", "", "b com"}) {
    EXPECT_TRUE(IsErrorStartingWith(Cmd({"SITE", "BLOCK", bad, "10"}),
                                    "ERR invalid site"))
        << bad;
  }
  EXPECT_EQ(Cmd({"SITE", "BLOCK", "b.com"}),
            Error("ERR wrong number of arguments for 'site|block' command"));
  EXPECT_EQ(Cmd({"SITE", "BLOCK", "b.com", "1", "2"}),
            Error("ERR wrong number of arguments for 'site|block' command"));
  EXPECT_EQ(Cmd({"SITE"}),
            Error("ERR wrong number of arguments for 'site' command"));
  EXPECT_EQ(Cmd({"SITE", "NOPE"}),
            Error("ERR unknown subcommand 'NOPE'. Try SITE HELP."));

  EXPECT_EQ(Cmd({"FAIL", "http://a.com/1", "STATUS", "600"}),
            Error("ERR STATUS must be an HTTP status code between 100 and "
                  "599"));
  EXPECT_EQ(Cmd({"FAIL", "http://a.com/1", "STATUS", "429", "RETRY-AFTER"}),
            Error("ERR syntax error"));

  // Nothing moved: the lease, its deadline, the sites.
  auto info = UrlInfo("http://a.com/1");
  EXPECT_EQ(info["state"], "leased");
  EXPECT_EQ(info["due"], due);
  EXPECT_EQ(info["attempts"], "0");
  auto stats = Stats();
  EXPECT_EQ(stats["blocked_sites"], 0);
  EXPECT_EQ(stats["backoffs"], 0);
  EXPECT_EQ(stats["failed"], 0);
  EXPECT_EQ(stats["sites"], 2);
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/2"));
}

class BackoffRolesTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--user", "crawler", "on", ">wpw", "+@worker",
                             "--user", "ops", "on", ">apw", "+@admin"});
    return args;
  }
};

TEST_F(BackoffRolesTest, WorkersExtendAndReleaseOnlyAdminsBlock) {
  auto admin = Connect();
  ASSERT_EQ(admin->Cmd({"AUTH", "ops", "apw"}), StatusReply("OK"));
  auto worker = Connect();
  ASSERT_EQ(worker->Cmd({"AUTH", "crawler", "wpw"}), StatusReply("OK"));
  ASSERT_EQ(worker->Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(worker->Cmd({"POP"}), Bulk("http://a.com/"));
  EXPECT_EQ(worker->Cmd({"EXTEND", "http://a.com/", "60"}), Int(1));
  EXPECT_EQ(worker->Cmd({"RELEASE", "http://a.com/"}), Int(1));
  EXPECT_EQ(worker->Cmd({"SITE", "BLOCK", "a.com", "60"}),
            Error("NOPERM User crawler has no permissions to run the "
                  "'site|block' command"));
  EXPECT_TRUE(worker->Cmd({"SITE", "HELP"}).IsArray());
  EXPECT_EQ(FieldMap(worker->Cmd({"STATS"}))["blocked_sites"], "0");
  EXPECT_EQ(admin->Cmd({"SITE", "BLOCK", "a.com", "60"}), StatusReply("OK"));
  EXPECT_EQ(worker->Cmd({"POP"}), Nil());
  EXPECT_EQ(FieldMap(worker->Cmd({"STATS"}))["blocked_sites"], "1");
}

}  // namespace
}  // namespace frontier::itest
