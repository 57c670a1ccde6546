// Storage-layer tests of robots.txt applied by the frontier (issue 8 §1):
// the robots fetch handed out first, excluded URLs, the reports' effects,
// expiry, Crawl-delay, the re-check and durability, with the clock passed
// in by the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "storage/frontier.h"
#include "storage/policy_records.h"
#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

constexpr int64_t kDay = 86'400'000;

class FrontierRobotsTest : public FrontierFixture {
 protected:
  void SetUp() override {
    FrontierFixture::SetUp();
    opts_.robots = true;
    opts_.robots_agent = "testbot";
  }
  std::vector<std::string> Pop(size_t n = 100) {
    auto r = fr_->Pop(n, 0, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> urls = r.ok() ? *r : std::vector<std::string>{};
    std::sort(urls.begin(), urls.end());
    return urls;
  }
  bool Confirm(std::string_view url, std::optional<int> status,
               std::optional<std::string_view> body = std::nullopt) {
    ConfirmOptions o;
    o.status = status;
    o.body = body;
    auto r = fr_->Confirm(url, o, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  bool Fail(std::string_view url) {
    auto r = fr_->Fail(url, FailOptions(), now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  UrlState State(std::string_view url) {
    auto r = fr_->Info(url);
    EXPECT_TRUE(r.ok() && r->has_value()) << url;
    return r.ok() && r->has_value() ? (*r)->state : UrlState::kDead;
  }
  std::string RobotsState(std::string_view origin) {
    auto r = fr_->RobotsGet(origin);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->has_value() ? (*r)->state : "none";
  }

  using Urls = std::vector<std::string>;
};

TEST_F(FrontierRobotsTest, RobotsTxtGoesFirstOncePerOrigin) {
  Open();
  Add("http://a.test/1");
  Add("http://a.test/2");
  Add("http://b.test/1");
  Add("https://a.test/1");  // another origin of the same host
  // Each origin's robots.txt, and nothing else, however many ask. The
  // site a.test waits for its first origin's robots.txt before the second.
  EXPECT_EQ(Pop(), (Urls{"http://a.test/robots.txt",
                         "http://b.test/robots.txt"}));
  EXPECT_EQ(Pop(), Urls{});
  now_ += 10'000;
  EXPECT_EQ(Pop(), Urls{});
  EXPECT_EQ(RobotsState("http://a.test/anything"), "fetching");
  EXPECT_EQ(RobotsState("http://c.test/"), "none");
  auto info = fr_->Info("http://a.test/robots.txt");
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->state, UrlState::kLeased);
  EXPECT_EQ((*info)->depth, 0);

  // Held (https://a.test/1) and not fetched yet: unknown, not nil.
  EXPECT_EQ(RobotsState("https://a.test"), "unknown");
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200, ""));
  EXPECT_EQ(Pop(), (Urls{"http://a.test/1", "http://a.test/2",
                         "https://a.test/robots.txt"}));
  EXPECT_EQ(RobotsState("http://a.test"), "ok");
  EXPECT_EQ(RobotsState("https://a.test"), "fetching");
  EXPECT_TRUE(Confirm("https://a.test/robots.txt", 404));
  EXPECT_EQ(Pop(), (Urls{"https://a.test/1"}));
}

TEST_F(FrontierRobotsTest, ASiteOfSeveralOriginsFetchesEachRobotsTxt) {
  opts_.politeness_scope = SiteScope::kDomain;  // one site: example.com
  Open();
  Add("http://a.example.com/1");
  Add("http://b.example.com/1");
  Add("http://b.example.com/2");
  Urls popped;
  for (int i = 0; i < 10 && popped.size() < 5; ++i) {
    Urls now = Pop();
    for (const std::string& url : now) {
      popped.push_back(url);
      if (url.ends_with("/robots.txt")) {
        EXPECT_TRUE(Confirm(url, 200, "User-agent: *\nDisallow: /2\n"));
      }
    }
  }
  std::sort(popped.begin(), popped.end());
  EXPECT_EQ(popped, (Urls{"http://a.example.com/1",
                          "http://a.example.com/robots.txt",
                          "http://b.example.com/1",
                          "http://b.example.com/robots.txt"}));
  EXPECT_EQ(State("http://b.example.com/2"), UrlState::kExcluded);
}

TEST_F(FrontierRobotsTest, AnAddedRobotsTxtBecomesTheRobotsFetch) {
  Open();
  Add("http://a.test/robots.txt");  // depth 1, queued like any URL
  Add("http://a.test/1");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_EQ(RobotsState("http://a.test"), "fetching");
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 404));
  EXPECT_EQ(RobotsState("http://a.test"), "allow-all");
  EXPECT_EQ(Pop(), Urls{"http://a.test/1"});
}

TEST_F(FrontierRobotsTest, RobotsOffChangesNothing) {
  opts_.robots = false;
  Open();
  Add("http://a.test/1");
  EXPECT_EQ(Pop(), Urls{"http://a.test/1"});
  EXPECT_EQ(RobotsState("http://a.test"), "unknown");  // never fetched
}

TEST_F(FrontierRobotsTest, DisallowedIsExcludedThenBackAfterNewRules) {
  Open();
  Add("http://a.test/public");
  Add("http://a.test/private/x");
  Add("http://a.test/private/y");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200,
                      "User-agent: testbot\nDisallow: /private\n"));
  EXPECT_EQ(Pop(), Urls{"http://a.test/public"});
  EXPECT_TRUE(Confirm("http://a.test/public", 200));
  EXPECT_EQ(Pop(), Urls{});
  EXPECT_EQ(State("http://a.test/private/x"), UrlState::kExcluded);
  EXPECT_EQ(fr_->Stats().excluded, 2u);
  EXPECT_EQ(fr_->Stats().queued, 0u);
  auto seen = fr_->Seen("http://a.test/private/x");
  EXPECT_TRUE(seen.ok() && *seen);
  auto again = fr_->Add("http://a.test/private/x", "", {}, now_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, AddOutcome::kKnown);
  auto check = fr_->RobotsCheck("http://a.test/private/x");
  ASSERT_TRUE(check.ok() && check->has_value());
  EXPECT_FALSE(**check);

  // The rules expire: the next URL brings a fresh fetch first, and the
  // new rules let the excluded URLs back.
  now_ += opts_.robots_ttl_ms;
  Add("http://a.test/new");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200,
                      "User-agent: *\nDisallow: /private/y\n"));
  EXPECT_EQ(State("http://a.test/private/x"), UrlState::kQueued);
  EXPECT_EQ(Pop(), (Urls{"http://a.test/new", "http://a.test/private/x"}));
  EXPECT_EQ(State("http://a.test/private/y"), UrlState::kExcluded);
  EXPECT_EQ(fr_->Stats().excluded, 1u);
}

TEST_F(FrontierRobotsTest, StatusCodesPickTheState) {
  Open();
  for (const char* host : {"s404", "s429", "s503", "none", "s301"}) {
    Add(std::string("http://") + host + ".test/private");
  }
  EXPECT_EQ(Pop().size(), 5u);
  EXPECT_TRUE(Confirm("http://s404.test/robots.txt", 404));
  EXPECT_TRUE(Confirm("http://s429.test/robots.txt", 429));
  EXPECT_TRUE(Confirm("http://s503.test/robots.txt", 503));
  EXPECT_TRUE(Confirm("http://none.test/robots.txt", std::nullopt));
  EXPECT_TRUE(Confirm("http://s301.test/robots.txt", 301));
  EXPECT_EQ(RobotsState("http://s404.test"), "allow-all");
  EXPECT_EQ(RobotsState("http://s429.test"), "unreachable");
  EXPECT_EQ(RobotsState("http://s503.test"), "unreachable");
  EXPECT_EQ(RobotsState("http://none.test"), "allow-all");
  EXPECT_EQ(RobotsState("http://s301.test"), "allow-all");
  EXPECT_EQ(Pop(), (Urls{"http://none.test/private", "http://s301.test/private",
                         "http://s404.test/private"}));
}

// A robots.txt CONFIRM is a confirmation like any other: its STATUS counts
// in its class (STATS: "URLs confirmed with a STATUS of 200-299"), and one
// without STATUS in none.
TEST_F(FrontierRobotsTest, RobotsConfirmationsCountTheirStatusClass) {
  Open();
  for (const char* host : {"a", "b", "c", "d", "e"}) {
    Add(std::string("http://") + host + ".test/page");
  }
  EXPECT_EQ(Pop().size(), 5u);
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200, "User-agent: *\n"));
  EXPECT_TRUE(Confirm("http://b.test/robots.txt", 301));
  EXPECT_TRUE(Confirm("http://c.test/robots.txt", 404));
  EXPECT_TRUE(Confirm("http://d.test/robots.txt", 503));
  EXPECT_TRUE(Confirm("http://e.test/robots.txt", std::nullopt));
  const FrontierStats stats = fr_->Stats();
  EXPECT_EQ(stats.confirmed, 5u);
  EXPECT_EQ(stats.confirmed_2xx, 1u);
  EXPECT_EQ(stats.confirmed_3xx, 1u);
  EXPECT_EQ(stats.confirmed_4xx, 1u);
  EXPECT_EQ(stats.confirmed_5xx, 1u);
}

TEST_F(FrontierRobotsTest, UnreachableHoldsTheOriginUntilALater200) {
  Open();
  Add("http://a.test/1");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 503));
  // Disallow-all meanwhile: nothing goes, however long before the retry.
  EXPECT_EQ(Pop(), Urls{});
  now_ += 50'000;
  EXPECT_EQ(Pop(), Urls{});
  // The retry comes with the back-off (60 s ±10%) and may fail again,
  // as a FAIL, without ever killing the robots fetch.
  for (int i = 0; i < 8; ++i) {
    now_ += 2 * kDay;
    EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"}) << i;
    EXPECT_TRUE(Fail("http://a.test/robots.txt"));
    EXPECT_EQ(Pop(), Urls{});
  }
  EXPECT_EQ(State("http://a.test/1"), UrlState::kQueued);
  now_ += 2 * kDay;
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200, "User-agent: *\n"));
  EXPECT_EQ(Pop(), Urls{"http://a.test/1"});
}

// Issue 18 §2: the retry of an unreachable robots.txt follows the
// operator's back-off series (backoff-initial, doubling, backoff-max,
// ±10%), not a built-in 60 s; a change applies from the next back-off.
TEST_F(FrontierRobotsTest, UnreachableRetryFollowsTheConfiguredBackoff) {
  opts_.backoff_initial_ms = 1'000;
  opts_.backoff_max_ms = 3'000;
  Open();
  Add("http://a.test/1");
  const std::string robots = "http://a.test/robots.txt";
  const int64_t expected[] = {1'000, 2'000, 3'000, 3'000};
  for (int64_t want : expected) {
    ASSERT_EQ(Pop(), Urls{robots}) << want;
    ASSERT_TRUE(Confirm(robots, 503));
    const int64_t wait = Info(robots).due_ms - now_;
    EXPECT_GE(wait, want * 9 / 10) << want;
    EXPECT_LE(wait, std::min<int64_t>(want * 11 / 10, 3'000)) << want;
    EXPECT_EQ(Pop(), Urls{});
    now_ += wait;
  }
  // CONFIG SET backoff-initial 5000: the next back-off uses it (the series
  // ends with a fetch that answers).
  FrontierOptions changed = fr_->options();
  changed.backoff_initial_ms = 5'000;
  changed.backoff_max_ms = 86'400'000;
  ASSERT_TRUE(fr_->UpdateOptions(changed, now_).ok());
  ASSERT_EQ(Pop(), Urls{robots});
  ASSERT_TRUE(Confirm(robots, 200, "User-agent: *\n"));
  EXPECT_EQ(Pop(), Urls{"http://a.test/1"});
  now_ += kDay + 1;  // the rules expire: fetched again
  Add("http://a.test/2");
  ASSERT_EQ(Pop(), Urls{robots});
  ASSERT_TRUE(Confirm(robots, 503));
  const int64_t wait = Info(robots).due_ms - now_;
  EXPECT_GE(wait, 4'500);
  EXPECT_LE(wait, 5'500);
}

// Issue 18 §3: an origin the frontier holds a URL of, and has not fetched
// robots.txt for, is "unknown"; nil is for an origin it never met.
TEST_F(FrontierRobotsTest, GetOfAKnownOriginNotFetchedYetIsUnknown) {
  opts_.robots = false;
  Open();
  Add("http://b.test/x");
  Add("https://b.test:8443/y");
  for (const char* asked : {"http://b.test", "http://b.test/x",
                            "http://b.test/other", "https://b.test:8443"}) {
    auto r = fr_->RobotsGet(asked);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->has_value()) << asked;
    EXPECT_EQ((*r)->state, "unknown") << asked;
    EXPECT_EQ((*r)->status, 0);
    EXPECT_EQ((*r)->fetched_ms, 0);
    EXPECT_EQ((*r)->groups, 0u);
    EXPECT_TRUE((*r)->rules.empty());
  }
  auto r = fr_->RobotsGet("http://b.test/x");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->origin, "http://b.test");
  // Same host, other scheme or port; other hosts: never met.
  EXPECT_EQ(RobotsState("https://b.test"), "none");
  EXPECT_EQ(RobotsState("http://b.test:8080"), "none");
  EXPECT_EQ(RobotsState("http://c.test"), "none");
  EXPECT_EQ(RobotsState("http://a.b.test"), "none");

  // Many URLs of one origin of a host, none of the other: still found
  // (and not) through the host's URLs.
  for (int i = 0; i < 300; ++i) Add("http://d.test/p" + std::to_string(i));
  Add("https://d.test/only");
  EXPECT_EQ(RobotsState("https://d.test"), "unknown");
  EXPECT_EQ(RobotsState("http://d.test:81"), "none");
}

TEST_F(FrontierRobotsTest, UnreachableKeepsEarlierRules) {
  Open();
  Add("http://a.test/ok");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200,
                      "User-agent: *\nDisallow: /no\n"));
  EXPECT_EQ(Pop(), Urls{"http://a.test/ok"});
  EXPECT_TRUE(Confirm("http://a.test/ok", 200));
  now_ += opts_.robots_ttl_ms;
  Add("http://a.test/ok2");
  Add("http://a.test/no");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 500));
  EXPECT_EQ(RobotsState("http://a.test"), "unreachable");
  // RFC 9309 §2.3.1.4: the earlier rules stay in force.
  EXPECT_EQ(Pop(), Urls{"http://a.test/ok2"});
  EXPECT_EQ(State("http://a.test/no"), UrlState::kExcluded);
}

TEST_F(FrontierRobotsTest, ExpiredLeaseOfTheRobotsFetchCountsNoAttempt) {
  opts_.max_attempts = 1;
  opts_.lease_timeout_ms = 1000;
  Open();
  Add("http://a.test/1");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
    now_ += 1000;
  }
  EXPECT_EQ(State("http://a.test/robots.txt"), UrlState::kLeased);
}

TEST_F(FrontierRobotsTest, CrawlDelaySpacesFetchesAndDelayWins) {
  opts_.robots_max_crawl_delay_ms = 7'000;
  Open();
  for (int i = 0; i < 3; ++i) Add("http://a.test/" + std::to_string(i));
  for (int i = 0; i < 3; ++i) Add("http://b.test/" + std::to_string(i));
  EXPECT_EQ(Pop().size(), 2u);
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200,
                      "User-agent: *\nCrawl-delay: 5\n"));
  EXPECT_TRUE(Confirm("http://b.test/robots.txt", 200,
                      "User-agent: *\nCrawl-delay: 60\n"));  // capped: 7 s
  auto info = fr_->RobotsGet("http://a.test");
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->crawl_delay_ms, 5000);
  // Which URL of a site comes first is Q order; here only the site counts.
  auto pop_hosts = [this] {
    Urls hosts;
    for (const std::string& url : Pop()) hosts.push_back(url.substr(0, 13));
    return hosts;
  };
  const int64_t t0 = now_;
  now_ = t0 + 4'999;
  EXPECT_EQ(pop_hosts(), Urls{});
  now_ = t0 + 5'000;
  EXPECT_EQ(pop_hosts(), Urls{"http://a.test"});
  now_ = t0 + 6'999;
  EXPECT_EQ(pop_hosts(), Urls{});
  now_ = t0 + 7'000;  // b's 60 s, capped at 7 s
  EXPECT_EQ(pop_hosts(), Urls{"http://b.test"});
  now_ = t0 + 9'999;
  EXPECT_EQ(pop_hosts(), Urls{});
  now_ = t0 + 10'000;
  EXPECT_EQ(pop_hosts(), Urls{"http://a.test"});
  // An operator's DELAY wins over Crawl-delay.
  ASSERT_TRUE(fr_->SetSiteDelay("a.test", 100, now_).ok());
  now_ += 100;
  EXPECT_EQ(pop_hosts(), Urls{"http://a.test"});
}

TEST_F(FrontierRobotsTest, RecheckOfManyExcludedUrlsIsBounded) {
  Open();
  constexpr int kUrls = 1200;  // more than one re-check batch
  for (int i = 0; i < kUrls; ++i) Add("http://a.test/p/" + std::to_string(i));
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200,
                      "User-agent: *\nDisallow: /p\n"));
  for (int i = 0; i < 100 && fr_->Stats().excluded < kUrls; ++i) Pop();
  ASSERT_EQ(fr_->Stats().excluded, uint64_t{kUrls});
  ASSERT_TRUE(fr_->RobotsSet("http://a.test", 200, "", now_).ok());
  const FrontierStats first = fr_->Stats();
  EXPECT_GT(first.excluded, 0u);  // the rest waits for Tick
  EXPECT_GT(first.queued, 0u);
  for (int i = 0; i < 10; ++i) Tick();
  EXPECT_EQ(fr_->Stats().excluded, 0u);
  EXPECT_EQ(fr_->Stats().queued, uint64_t{kUrls});
  EXPECT_EQ(Pop(2 * kUrls).size(), size_t{kUrls});
}

TEST_F(FrontierRobotsTest, RulesAndExclusionsSurviveAStopWithoutCheckpoint) {
  Open();
  Add("http://a.test/yes");
  Add("http://a.test/no");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200,
                      "User-agent: *\nDisallow: /no\nCrawl-delay: 3\n"
                      "Sitemap: http://a.test/s.xml\n"));
  const int64_t fetched = now_;
  now_ += 3000;
  EXPECT_EQ(Pop(), Urls{"http://a.test/yes"});
  ASSERT_TRUE(fr_->FlushLog().ok());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  auto info = fr_->RobotsGet("http://a.test/x");
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->state, "ok");
  EXPECT_EQ((*info)->status, 200);
  EXPECT_EQ((*info)->fetched_ms, fetched);
  EXPECT_EQ((*info)->expires_ms, fetched + opts_.robots_ttl_ms);
  EXPECT_EQ((*info)->rules, Urls{"disallow /no"});
  EXPECT_EQ((*info)->sitemaps, Urls{"http://a.test/s.xml"});
  EXPECT_EQ((*info)->crawl_delay_ms, 3000);
  EXPECT_EQ(fr_->Stats().excluded, 1u);
  EXPECT_EQ(State("http://a.test/no"), UrlState::kExcluded);
  // No new robots fetch: the stored rules are fresh.
  Add("http://a.test/yes2");
  now_ += 3000;
  EXPECT_EQ(Pop(), Urls{"http://a.test/yes2"});
}

TEST_F(FrontierRobotsTest, RobotsSetGetCheckAndBadInput) {
  Open();
  auto none = fr_->RobotsCheck("http://a.test/x");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(fr_->RobotsSet("http://a.test:8080", 200,
                             "User-agent: testbot\nAllow: /x\nDisallow: /\n",
                             now_)
                  .ok());
  auto yes = fr_->RobotsCheck("http://a.test:8080/x");
  auto no = fr_->RobotsCheck("http://a.test:8080/y");
  auto other_port = fr_->RobotsCheck("http://a.test/y");
  ASSERT_TRUE(yes.ok() && no.ok() && other_port.ok());
  EXPECT_EQ(*yes, std::optional<bool>(true));
  EXPECT_EQ(*no, std::optional<bool>(false));
  EXPECT_FALSE(other_port->has_value());
  auto robots_itself = fr_->RobotsCheck("http://a.test:8080/robots.txt");
  EXPECT_EQ(*robots_itself, std::optional<bool>(true));
  // A URL added later obeys the rules without a fetch.
  Add("http://a.test:8080/x");
  Add("http://a.test:8080/y");
  EXPECT_EQ(Pop(), Urls{"http://a.test:8080/x"});

  for (const char* bad : {"http://a.test/path", "http://a.test/?q", "nonsense",
                          "ftp://a.test"}) {
    Status s = fr_->RobotsSet(bad, 200, "", now_);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
  }
  EXPECT_TRUE(fr_->RobotsSet("http://b.test", 99, "", now_).IsInvalidArgument());
  EXPECT_TRUE(fr_->RobotsSet("http://b.test", 600, "", now_).IsInvalidArgument());
  EXPECT_EQ(RobotsState("http://b.test"), "none");
  EXPECT_TRUE(fr_->RobotsGet("not a url").status().IsInvalidArgument());
  EXPECT_TRUE(fr_->RobotsCheck("").status().IsInvalidArgument());
}

TEST_F(FrontierRobotsTest, BodyIsReadUpToRobotsMaxBytes) {
  opts_.robots_max_bytes = 600 << 10;
  Open();
  std::string body = "User-agent: *\n";
  while (body.size() < (600 << 10) - 10) body += "# padding padding\n";
  std::string after = body + "Disallow: /late\n";
  ASSERT_GT(after.size(), size_t{600 << 10});
  ASSERT_TRUE(fr_->RobotsSet("http://a.test", 200, after, now_).ok());
  auto check = fr_->RobotsCheck("http://a.test/late");
  EXPECT_EQ(*check, std::optional<bool>(true));  // beyond the limit: unread
  ASSERT_TRUE(
      fr_->RobotsSet("http://a.test", 200, "User-agent: *\nDisallow: /late\n",
                     now_)
          .ok());
  check = fr_->RobotsCheck("http://a.test/late");
  EXPECT_EQ(*check, std::optional<bool>(false));
}

TEST(PolicyRecordTest, RoundTripAndRefusal) {
  PolicyRecord r;
  r.origin = "https://example.com:8443";
  r.state = RobotsState::kUnreachable;
  r.status = 503;
  r.fetched_ms = 1;
  r.expires_ms = 2;
  r.until_ms = 3;
  r.failures = 4;
  r.rules = std::string("\x01\x02", 2);
  r.recheck = true;
  r.recheck_started = true;
  r.recheck_after = UrlKey{5, 6};
  PolicyRecord back;
  ASSERT_TRUE(DecodePolicyRecord(EncodePolicyRecord(r), &back));
  EXPECT_EQ(back.origin, r.origin);
  EXPECT_EQ(back.state, r.state);
  EXPECT_EQ(back.status, 503);
  EXPECT_EQ(back.until_ms, 3);
  EXPECT_EQ(back.failures, 4u);
  EXPECT_EQ(back.rules, r.rules);
  EXPECT_TRUE(back.recheck && back.recheck_started);
  EXPECT_EQ(back.recheck_after, (UrlKey{5, 6}));
  std::string bytes = EncodePolicyRecord(r);
  EXPECT_FALSE(DecodePolicyRecord("", &back));
  EXPECT_FALSE(DecodePolicyRecord(bytes.substr(0, 10), &back));
  bytes[0] = 9;  // unknown version
  EXPECT_FALSE(DecodePolicyRecord(bytes, &back));
}

TEST_F(FrontierRobotsTest, SiteDeleteTakesTheRulesAndExclusionsWithIt) {
  Open();
  Add("http://a.test/public");
  Add("http://a.test/private/x");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
  EXPECT_TRUE(Confirm("http://a.test/robots.txt", 200,
                      "User-agent: *\nDisallow: /private\n"));
  EXPECT_EQ(Pop(), Urls{"http://a.test/public"});
  ASSERT_EQ(State("http://a.test/private/x"), UrlState::kExcluded);
  ASSERT_EQ(RobotsState("http://a.test"), "ok");

  auto removed = fr_->DeleteSite("a.test", now_);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 3u);  // robots.txt, the leased page, the excluded one
  EXPECT_EQ(RobotsState("http://a.test"), "none");
  EXPECT_EQ(fr_->Stats().excluded, 0u);
  auto seen = fr_->Seen("http://a.test/private/x");
  ASSERT_TRUE(seen.ok());
  EXPECT_FALSE(*seen);
  // The site starts over: its robots.txt is fetched again first.
  Add("http://a.test/private/x");
  EXPECT_EQ(Pop(), Urls{"http://a.test/robots.txt"});
}

}  // namespace
}  // namespace frontier
