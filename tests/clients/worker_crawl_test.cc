// frontier-worker end to end: a real frontierd, the real worker, and a small
// multi-host web site on loopback addresses served by the test itself. The
// checks are what a crawl operator relies on: every reachable page fetched
// exactly once, nothing unreachable fetched, every host visited politely,
// and the frontier's counters agreeing; and on SIGINT, the worker's leases
// handed back.
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "clients/loopback_site.h"
#include "clients/worker_process.h"
#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr double kPolitenessSecs = 0.3;
constexpr milliseconds kPageDelay{40};  // long enough for overlaps to show
constexpr milliseconds kDrainTimeout{60'000};
constexpr int kHosts = 4;  // A = 127.0.0.2, B = .3, C = .4, D = .5
constexpr int A = 0, B = 1, C = 2, D = 3;

class WorkerCrawlTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--politeness-delay", "0.3", "--site-max-leases", "1",
            "--timer-ms",         "10"};
  }

  void SetUp() override {
    FrontierdTest::SetUp();
    site_ = std::make_unique<LoopbackSite>(kHosts);
    ASSERT_EQ(site_->error(), "");
  }

  void Page(int host, const std::string& path, const std::string& body,
            int status = 200,
            std::vector<std::pair<std::string, std::string>> headers = {},
            milliseconds delay = kPageDelay) {
    site_->SetPage(host, path, {status, body, std::move(headers), delay});
  }
  std::string Link(int host, const std::string& path) {
    return "<a href=\"" + site_->Url(host, path) + "\">x</a>";
  }

  // Polls STATS until nothing is queued, leased or scheduled and `urls`
  // URLs are known; false after kDrainTimeout.
  bool WaitForDrained(long long urls) {
    Stopwatch watch;
    while (watch.Elapsed() < kDrainTimeout) {
      auto s = Stats();
      if (s["urls"] == urls && s["queued"] == 0 && s["leased"] == 0 &&
          s["scheduled"] == 0) {
        return true;
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
  }

  bool WaitForLeased(long long n, milliseconds timeout) {
    Stopwatch watch;
    while (watch.Elapsed() < timeout) {
      if (Stats()["leased"] == n) return true;
      std::this_thread::sleep_for(milliseconds(20));
    }
    return false;
  }

  std::unique_ptr<LoopbackSite> site_;
};

// Three hosts of pages linking across hosts, with a 404, a redirect, a
// <base href>, relative links, fragments, duplicates and a mailto: link,
// plus pages nobody links to.
TEST_F(WorkerCrawlTest, CrawlsEveryReachablePageOncePolitely) {
  Page(A, "/",
       "<html><body><a href=\"/a1\">a1</a> <a href=\"a2#part\">a2</a> " +
           Link(B, "/") +
           " <a href=\"/missing\">broken</a> <a href=\"/old\">moved</a>"
           " <a href=\"mailto:someone@example.com\">mail</a>"
           " <a href=\"/a1#top\">a1 again</a></body></html>");
  Page(A, "/a1",
       "<html><body><a href=\"../\">home</a> " + Link(C, "/c1") +
           " <a href=\"  /a2  \">a2</a></body></html>");
  Page(A, "/a2",
       "<html><head><base href=\"" + site_->Url(B, "/sub/") +
           "\"></head><body><a href=\"b3\">b3</a> <a href=\"/b4\">b4</a>"
           "</body></html>");
  Page(A, "/old", "", 301, {{"Location", "/new"}});
  Page(A, "/new", "<html><body>" + Link(C, "/c2") + "</body></html>");
  Page(A, "/secret", "<html><body>nobody links here</body></html>");
  Page(B, "/",
       "<html><body><a href=\"/b1\">b1</a> " + Link(A, "/") +
           "<map><area href=\"" + site_->Url(D, "/d1") +
           "\"></map></body></html>");
  Page(B, "/b1", "<html><body>" + Link(D, "/") + "</body></html>");
  Page(B, "/sub/b3", "<html><body>leaf</body></html>");
  Page(C, "/c1", "<html><body><a href=\"/c3\">c3</a></body></html>");
  Page(C, "/c2", "<html><body><a href=\"c3\">c3</a></body></html>");
  Page(C, "/c3", "<html><body>leaf</body></html>");
  Page(C, "/orphan", "<html><body>nobody links here</body></html>");
  Page(D, "/", "<html><body><a href=\"/d1\">d1</a></body></html>");
  Page(D, "/d1", "<html><body>leaf</body></html>");

  // host -> paths the crawl must fetch exactly once.
  const std::map<int, std::set<std::string>> reachable = {
      {A, {"/", "/a1", "/a2", "/missing", "/old", "/new"}},
      {B, {"/", "/b1", "/sub/b3", "/b4"}},
      {C, {"/c1", "/c2", "/c3"}},
      {D, {"/", "/d1"}},
  };
  const long long kUrls = 15;  // the frontier also knows /new, via MADD

  ASSERT_EQ(Cmd({"ADD", site_->Url(A, "/")}), Int(1));
  TempDir saved;
  WorkerProcess worker(server_->port(),
                       {"-c", "8", "--user-agent", "worker-test/1.0",
                        "--save-dir", saved.path()});
  ASSERT_TRUE(worker.ok());
  bool drained = WaitForDrained(kUrls);
  EXPECT_TRUE(drained) << "STATS: " << Cmd({"STATS"});
  ASSERT_TRUE(worker.Signal(SIGINT));
  EXPECT_EQ(worker.Wait(seconds(15)), 0) << worker.Stderr();

  // Every reachable page exactly once, nothing else.
  std::vector<SiteRequest> log = site_->Requests();
  std::map<std::pair<std::string, std::string>, int> fetches;
  for (const SiteRequest& r : log) {
    ++fetches[{r.host, r.path}];
    EXPECT_EQ(r.user_agent, "worker-test/1.0");
    EXPECT_TRUE(r.answered) << r.host << r.path;
  }
  size_t expected = 0;
  for (const auto& [host, paths] : reachable) {
    for (const std::string& path : paths) {
      ++expected;
      EXPECT_EQ((fetches[{LoopbackSite::Host(host), path}]), 1)
          << LoopbackSite::Host(host) << path;
    }
  }
  EXPECT_EQ(log.size(), expected) << worker.Stdout();
  EXPECT_EQ((fetches[{LoopbackSite::Host(A), "/secret"}]), 0);
  EXPECT_EQ((fetches[{LoopbackSite::Host(C), "/orphan"}]), 0);

  // Politeness, per host: no two fetches at once, and the delay between
  // the end of one and the start of the next. The worker follows a
  // redirect at once, under the one lease: /old and /new are one fetch.
  for (int host = 0; host < kHosts; ++host) {
    std::vector<SiteRequest> on_host;
    for (const SiteRequest& r : log) {
      if (r.host == LoopbackSite::Host(host)) on_host.push_back(r);
    }
    std::sort(on_host.begin(), on_host.end(),
              [](const auto& x, const auto& y) { return x.start < y.start; });
    for (size_t i = 1; i < on_host.size(); ++i) {
      const SiteRequest& prev = on_host[i - 1];
      const SiteRequest& next = on_host[i];
      EXPECT_GE(next.start, prev.end) << "overlap on " << next.host << ": "
                                      << prev.path << " and " << next.path;
      if (prev.path == "/old" && next.path == "/new") continue;
      double gap = std::chrono::duration<double>(next.start - prev.end).count();
      EXPECT_GE(gap, kPolitenessSecs - 0.02)
          << next.host << ": " << prev.path << " then " << next.path;
    }
  }

  // The frontier agrees: everything fetched once and confirmed.
  auto stats = Stats();
  EXPECT_EQ(stats["urls"], kUrls);
  EXPECT_EQ(stats["done"], kUrls);
  EXPECT_EQ(stats["popped"], kUrls - 1);  // /new was never handed out
  EXPECT_EQ(stats["confirmed"], kUrls);
  EXPECT_EQ(stats["failed"], 0);
  EXPECT_EQ(stats["dead"], 0);
  EXPECT_EQ(UrlInfo(site_->Url(A, "/missing"))["state"], "done");
  EXPECT_EQ(UrlInfo(site_->Url(B, "/sub/b3"))["state"], "done");
  EXPECT_EQ(UrlInfo(site_->Url(A, "/new"))["state"], "done");
  // MADD's ref is the page: /a2, linked from the seed, is one level deeper.
  EXPECT_EQ(UrlInfo(site_->Url(A, "/a2"))["depth"], "2");

  // --save-dir: one file per 2xx page, listed in index.tsv.
  std::string index = ReadFile(saved.path() + "/index.tsv");
  EXPECT_EQ(std::count(index.begin(), index.end(), '\n'), 12) << index;
  EXPECT_NE(index.find(site_->Url(A, "/old") + "\t" + site_->Url(A, "/new")),
            std::string::npos)
      << index;
  bool found_leaf = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           saved.path() + "/" + LoopbackSite::Host(C) + "_" +
           std::to_string(site_->port()))) {
    if (ReadFile(entry.path()) == "<html><body>leaf</body></html>") {
      found_leaf = true;
    }
  }
  EXPECT_TRUE(found_leaf);
}

// A 503 with Retry-After is a transient failure: FAIL with that DELAY and
// the STATUS, which backs the whole site off without counting an attempt.
TEST_F(WorkerCrawlTest, RetriesA503AfterItsRetryAfter) {
  Page(A, "/busy", "busy", 503, {{"Retry-After", "120"}});
  ASSERT_EQ(Cmd({"ADD", site_->Url(A, "/busy")}), Int(1));
  WorkerProcess worker(server_->port(), {});
  ASSERT_TRUE(worker.ok());
  Stopwatch watch;
  while (Stats()["scheduled"] != 1 && watch.Elapsed() < seconds(20)) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  auto info = UrlInfo(site_->Url(A, "/busy"));
  EXPECT_EQ(info["state"], "scheduled");
  EXPECT_EQ(info["attempts"], "0");
  auto stats = Stats();
  EXPECT_EQ(stats["backoffs"], 1);
  EXPECT_EQ(stats["blocked_sites"], 1);
  double due = std::stod(info["due"].empty() ? "0" : info["due"]);
  double now = std::chrono::duration<double>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  EXPECT_GT(due, now + 100);
  EXPECT_LT(due, now + 121);
  ASSERT_TRUE(worker.Signal(SIGTERM));
  EXPECT_EQ(worker.Wait(seconds(10)), 0) << worker.Stderr();
  EXPECT_EQ(site_->Requests().size(), 1u);
}

// SIGINT while fetches hang: after the grace period they are abandoned and
// the leases handed back at once with RELEASE (no attempt counted), not
// left to expire.
TEST_F(WorkerCrawlTest, HandsBackLeasesOnSigint) {
  for (int host : {A, B, C}) {
    Page(host, "/slow", "slow", 200, {}, seconds(60));
    ASSERT_EQ(Cmd({"ADD", site_->Url(host, "/slow")}), Int(1));
  }
  WorkerProcess worker(server_->port(), {"--grace", "0.5"});
  ASSERT_TRUE(worker.ok());
  ASSERT_TRUE(WaitForLeased(3, seconds(10))) << Cmd({"STATS"});
  Stopwatch watch;
  while (site_->Requests().size() < 3 && watch.Elapsed() < seconds(10)) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_EQ(site_->Requests().size(), 3u);

  watch.Reset();
  ASSERT_TRUE(worker.Signal(SIGINT));
  EXPECT_EQ(worker.Wait(seconds(10)), 0) << worker.Stderr();
  EXPECT_LT(watch.Elapsed(), seconds(5));
  auto stats = Stats();
  EXPECT_EQ(stats["leased"], 0);
  EXPECT_EQ(stats["queued"], 3);
  EXPECT_EQ(stats["confirmed"], 0);
  for (int host : {A, B, C}) {
    auto info = UrlInfo(site_->Url(host, "/slow"));
    EXPECT_EQ(info["state"], "queued");
    EXPECT_EQ(info["attempts"], "0");
  }
  EXPECT_NE(worker.Stdout().find("handed back " + site_->Url(A, "/slow")),
            std::string::npos)
      << worker.Stdout();
}

// SIGINT while fetches are about to finish: within the grace period they
// complete and are reported as usual.
TEST_F(WorkerCrawlTest, FinishesInFlightFetchesWithinGrace) {
  for (int host : {A, B}) {
    Page(host, "/", "<html><body>" + Link(host, "/next") + "</body></html>",
         200, {}, milliseconds(800));
    ASSERT_EQ(Cmd({"ADD", site_->Url(host, "/")}), Int(1));
  }
  WorkerProcess worker(server_->port(), {"--grace", "10"});
  ASSERT_TRUE(worker.ok());
  Stopwatch watch;
  while (site_->Requests().size() < 2 && watch.Elapsed() < seconds(10)) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(site_->Requests().size(), 2u);
  ASSERT_TRUE(worker.Signal(SIGINT));
  EXPECT_EQ(worker.Wait(seconds(10)), 0) << worker.Stderr();
  auto stats = Stats();
  EXPECT_EQ(stats["confirmed"], 2);
  EXPECT_EQ(stats["leased"], 0);
  EXPECT_EQ(stats["queued"], 2);  // the two /next links, not fetched
  EXPECT_EQ(site_->Requests().size(), 2u);
}

// frontierd restarts under a running worker: the worker reconnects and the
// crawl finishes. What was in flight at the restart is fetched again once
// its lease (2 s here) expires, so pages may be fetched twice, never lost.
TEST_F(WorkerCrawlTest, ReconnectsWhenFrontierdRestarts) {
  constexpr int kPagesPerHost = 10;
  for (int host : {A, B}) {
    std::string links;
    for (int i = 1; i < kPagesPerHost; ++i) {
      links += "<a href='/p" + std::to_string(i) + "'>p</a>";
      Page(host, "/p" + std::to_string(i), "<p>leaf</p>");
    }
    Page(host, "/", links);
    ASSERT_EQ(Cmd({"ADD", site_->Url(host, "/")}), Int(1));
  }
  WorkerProcess worker(server_->port(), {"--lease", "2", "--reconnect", "30"});
  ASSERT_TRUE(worker.ok());
  Stopwatch watch;
  while (Stats()["confirmed"] < 4 && watch.Elapsed() < seconds(20)) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_GE(Stats()["confirmed"], 4);
  EXPECT_EQ(server_->Stop(), 0);
  std::this_thread::sleep_for(milliseconds(1500));
  ASSERT_TRUE(server_->Restart());
  EXPECT_TRUE(WaitForDrained(2 * kPagesPerHost)) << Cmd({"STATS"});
  EXPECT_EQ(Stats()["done"], 2 * kPagesPerHost);
  ASSERT_TRUE(worker.Signal(SIGINT));
  EXPECT_EQ(worker.Wait(seconds(15)), 0) << worker.Stderr();
  EXPECT_NE(worker.Stderr().find("reconnected"), std::string::npos)
      << worker.Stderr();
}

// With --reconnect 0 a lost frontierd ends the worker with status 3.
TEST_F(WorkerCrawlTest, ExitsWhenFrontierdGoesAwayWithoutReconnect) {
  WorkerProcess worker(server_->port(), {"--reconnect", "0"});
  ASSERT_TRUE(worker.ok());
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(server_->Stop(), 0);
  EXPECT_EQ(worker.Wait(seconds(10)), 3);
  EXPECT_NE(worker.Stderr().find("lost frontierd"), std::string::npos)
      << worker.Stderr();
}

TEST_F(WorkerCrawlTest, RefusesBadOptions) {
  WorkerProcess bad(server_->port(), {"-c", "0"});
  EXPECT_EQ(bad.Wait(seconds(5)), 2);
  EXPECT_NE(bad.Stderr().find("bad value for -c"), std::string::npos);
  WorkerProcess no_port(server_->port(), {"-p", "70000"});
  EXPECT_EQ(no_port.Wait(seconds(5)), 2);
  EXPECT_NE(no_port.Stderr().find("bad value for -p: '70000'"),
            std::string::npos);
  WorkerProcess short_lease(server_->port(), {"--lease", "0.0001"});
  EXPECT_EQ(short_lease.Wait(seconds(5)), 2);
  WorkerProcess bad_node(server_->port(), {"--nodes", "127.0.0.1:1,nope"});
  EXPECT_EQ(bad_node.Wait(seconds(5)), 2);
  EXPECT_NE(bad_node.Stderr().find("bad value for --nodes"),
            std::string::npos);
  WorkerProcess both(server_->port(), {"--nodes", "127.0.0.1:1",
                                       "--sentinels", "127.0.0.1:2"});
  EXPECT_EQ(both.Wait(seconds(5)), 2);
  EXPECT_NE(both.Stderr().find("--nodes and --sentinels exclude each other"),
            std::string::npos);
  WorkerProcess unknown(server_->port(), {"--fast"});
  EXPECT_EQ(unknown.Wait(seconds(5)), 2);
  EXPECT_NE(unknown.Stderr().find("unknown option '--fast'"),
            std::string::npos);
  EXPECT_EQ(Stats()["popped"], 0);
}

TEST(WorkerConnectTest, ExitsWhenFrontierdIsUnreachable) {
  WorkerProcess worker(PickFreePort(), {});
  EXPECT_EQ(worker.Wait(seconds(10)), 3);
  EXPECT_NE(worker.Stderr().find("connect to 127.0.0.1:"), std::string::npos)
      << worker.Stderr();
}

}  // namespace
}  // namespace frontier::itest

namespace frontier::itest {
namespace {

// --exit-when-done: the worker stops by itself (exit 0) once the frontier
// has nothing queued or leased, and the server's scope, not the worker,
// keeps the crawl on host A (docs/worker.md).
TEST_F(WorkerCrawlTest, ExitsWhenDoneWithTheScopeInTheServer) {
  const std::string a = site_->Url(A, "/");
  ASSERT_EQ(Cmd({"CONFIG", "SET", "scope-hosts", LoopbackSite::Host(A)}),
            StatusReply("OK"));
  Page(A, "/", "<html><body><a href=\"/a1\">a1</a> " + Link(B, "/") +
                   "</body></html>");
  Page(A, "/a1", "<html><body>" + Link(C, "/c1") + "</body></html>");
  Page(B, "/", "<html><body>never fetched</body></html>");
  Page(C, "/c1", "<html><body>never fetched</body></html>");
  ASSERT_EQ(Cmd({"ADD", a}), Int(1));
  WorkerProcess worker(server_->port(), {"--exit-when-done", "-q"});
  ASSERT_TRUE(worker.ok());
  EXPECT_EQ(worker.Wait(seconds(30)), 0) << worker.Stderr();
  EXPECT_NE(worker.Stderr().find("done"), std::string::npos)
      << worker.Stderr();
  auto s = Stats();
  EXPECT_EQ(s["urls"], 2);
  EXPECT_EQ(s["done"], 2);
  EXPECT_EQ(s["scope_refused_host"], 2);
  for (const SiteRequest& r : site_->Requests()) {
    EXPECT_EQ(r.host, LoopbackSite::Host(A)) << r.path;
  }
}

}  // namespace
}  // namespace frontier::itest
