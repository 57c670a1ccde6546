// End to end: per-site politeness: the delay between a site's fetches,
// the cap on a site's leases, DELAY per site, and the politeness scope.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::vector<std::string> PolitenessArgs(const std::string& delay,
                                        const std::string& leases,
                                        std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"--politeness-delay", delay,
                                   "--site-max-leases",  leases,
                                   "--timer-ms",         "10"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

class PolitenessTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return PolitenessArgs("0.3", "1");
  }
  // a.com/1 < b.com/1 < a.com/2 in Q order (by priority).
  void AddTwoSites() {
    ASSERT_EQ(Cmd({"ADD", "http://a.com/1", "", "PRIORITY", "1"}), Int(1));
    ASSERT_EQ(Cmd({"ADD", "http://b.com/1", "", "PRIORITY", "2"}), Int(1));
    ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "", "PRIORITY", "3"}), Int(1));
  }
};

TEST_F(PolitenessTest, OneLeasePerSiteAndTheDelayAfterConfirm) {
  ASSERT_NO_FATAL_FAILURE(AddTwoSites());
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  // a.com holds its one lease: the other site is served meanwhile.
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://b.com/1"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  auto s = Stats();
  EXPECT_EQ(s["sites"], 2);
  EXPECT_EQ(s["ready_sites"], 0);
  EXPECT_EQ(s["queued"], 1);

  Stopwatch watch;
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/1"}), Int(1));
  // The lease is gone but the delay runs from the CONFIRM.
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/2", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(270)) << "politeness delay not kept";
}

TEST_F(PolitenessTest, PopCountTakesOneUrlPerSite) {
  ASSERT_NO_FATAL_FAILURE(AddTwoSites());
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://a.com/1", "http://b.com/1"}));
}

TEST_F(PolitenessTest, FailAlsoWaitsForTheDelay) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"FAIL", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/1", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(270));
}

TEST_F(PolitenessTest, ExpiredLeaseFreesTheSite) {
  ASSERT_NO_FATAL_FAILURE(AddTwoSites());
  ASSERT_EQ(Cmd({"POP", "LEASE", "0.2"}), Bulk("http://a.com/1"));
  // The site comes back once the lease has expired (and its delay passed);
  // a.com/1 is first in Q order again.
  ASSERT_TRUE(PopUntil("http://b.com/1", std::chrono::seconds(5)));
  ASSERT_TRUE(PopUntil("http://a.com/1", std::chrono::seconds(5)));
  EXPECT_EQ(UrlInfo("http://a.com/1")["attempts"], "1");
}

class PolitenessDelayOnlyTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return PolitenessArgs("0.3", "0");
  }
};

TEST_F(PolitenessDelayOnlyTest, DelayBetweenPopsOfOneSite) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/1", "", "PRIORITY", "3"}), Int(1));
  Stopwatch watch;
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://b.com/1"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/2", std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(270));
  // No lease cap: a.com/1 is still leased, and that did not matter.
  EXPECT_EQ(UrlInfo("http://a.com/1")["state"], "leased");
}

class PolitenessTwoLeasesTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return PolitenessArgs("0", "2");
  }
};

TEST_F(PolitenessTwoLeasesTest, AtMostTwoLeasesPerSite) {
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(Cmd({"ADD", "http://a.com/" + std::to_string(i), "", "PRIORITY",
                   std::to_string(i)}),
              Int(1));
  }
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/2"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/2"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/3"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

TEST_F(PolitenessTwoLeasesTest, PopCountRespectsTheCap) {
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(Cmd({"ADD", "http://a.com/" + std::to_string(i), "", "PRIORITY",
                   std::to_string(i)}),
              Int(1));
  }
  ASSERT_EQ(Cmd({"ADD", "http://b.com/", "", "PRIORITY", "9"}), Int(1));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://a.com/1", "http://a.com/2", "http://b.com/"}));
}

class PolitenessDelayCommandTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return PolitenessArgs("0", "0");
  }
};

TEST_F(PolitenessDelayCommandTest, DelaySetsOneSitesDelay) {
  EXPECT_EQ(Cmd({"DELAY", "a.com", "0.4"}), StatusReply("OK"));
  for (const char* url : {"http://a.com/1", "http://a.com/2", "http://b.com/1",
                          "http://b.com/2"}) {
    ASSERT_EQ(Cmd({"ADD", url}), Int(1));
  }
  Stopwatch watch;
  Reply first = Cmd({"POP", "COUNT", "10"});
  ASSERT_TRUE(first.IsArray()) << first;
  // b.com has no delay: both of its URLs; a.com: one.
  ASSERT_EQ(first.elements.size(), 3u) << first;
  std::string a_first;
  int b_count = 0;
  for (const Reply& e : first.elements) {
    if (e.str.rfind("http://a.com/", 0) == 0) a_first = e.str;
    if (e.str.rfind("http://b.com/", 0) == 0) ++b_count;
  }
  EXPECT_EQ(b_count, 2) << first;
  ASSERT_FALSE(a_first.empty()) << first;
  std::string a_second =
      a_first == "http://a.com/1" ? "http://a.com/2" : "http://a.com/1";
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil(a_second, std::chrono::seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(370));
}

TEST_F(PolitenessDelayCommandTest, NegativeDelayRestoresTheDefault) {
  ASSERT_EQ(Cmd({"DELAY", "a.com", "30"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"DELAY", "a.com", "-1"}), StatusReply("OK"));
  for (const char* url :
       {"http://a.com/1", "http://a.com/2", "http://a.com/3"}) {
    ASSERT_EQ(Cmd({"ADD", url}), Int(1));
  }
  Reply r = Cmd({"POP", "COUNT", "10"});
  ASSERT_TRUE(r.IsArray()) << r;
  EXPECT_EQ(r.elements.size(), 3u) << r;
}

TEST_F(PolitenessDelayCommandTest, DelayOfALongCrawlDelayHoldsTheSite) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"DELAY", "a.com", "30"}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

TEST_F(PolitenessDelayCommandTest, DelayBadArguments) {
  EXPECT_TRUE(Cmd({"DELAY", "a.com", "slow"}).IsError());
  EXPECT_EQ(Cmd({"DELAY", "a.com"}),
            Error("ERR wrong number of arguments for 'delay' command"));
}

class PolitenessDomainScopeTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return PolitenessArgs("0", "1", {"--politeness-scope", "domain"});
  }
};

TEST_F(PolitenessDomainScopeTest, HostsOfOneDomainShareTheSite) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://www.a.com/", "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/", "", "PRIORITY", "3"}), Int(1));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://a.com/", "http://b.com/"}));
  EXPECT_EQ(Stats()["sites"], 2);
}

TEST_F(PolitenessDomainScopeTest, DelayNamesTheSiteByHostDomainOrUrl) {
  // Scope domain, cap 1: the DELAY of any spelling of a.com's site holds
  // every host of a.com.
  ASSERT_EQ(Cmd({"DELAY", "www.a.com", "0.4"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"DELAY", "http://b.com/some/page", "0.4"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"MADD", "", "http://a.com/1", "http://blog.a.com/2",
                 "http://b.com/1", "http://www.b.com/2"}),
            Array({Int(1), Int(1), Int(1), Int(1)}));
  Reply first = Cmd({"POP", "COUNT", "10"});
  ASSERT_TRUE(first.IsArray()) << first;
  ASSERT_EQ(first.elements.size(), 2u) << first;
  ASSERT_EQ(Cmd({"CONFIRM", first.elements[0].str}), Int(1));
  ASSERT_EQ(Cmd({"CONFIRM", first.elements[1].str}), Int(1));
  Stopwatch watch;
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), Array({}));
  Reply second;
  while (watch.Elapsed() < std::chrono::seconds(5)) {
    second = Cmd({"POP", "COUNT", "10"});
    if (second.IsArray() && !second.elements.empty()) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_GE(watch.Elapsed(), milliseconds(350));
  ASSERT_TRUE(second.IsArray()) << second;
  EXPECT_GE(second.elements.size(), 1u);
}

class PolitenessHostScopeTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return PolitenessArgs("0", "1");
  }
};

TEST_F(PolitenessHostScopeTest, EachHostIsASite) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://www.a.com/", "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/x", "", "PRIORITY", "3"}), Int(1));
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}),
            BulkArray({"http://a.com/", "http://www.a.com/"}));
  EXPECT_EQ(Stats()["sites"], 2);
}

class PolitenessDefaultsTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override { return {}; }
};

TEST_F(PolitenessDefaultsTest, DefaultIsOneLeaseAndOneSecond) {
  EXPECT_EQ(Cmd({"CONFIG", "GET", "politeness-delay"}),
            BulkArray({"politeness-delay", "1"}));
  EXPECT_EQ(Cmd({"CONFIG", "GET", "site-max-leases"}),
            BulkArray({"site-max-leases", "1"}));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1", "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "", "PRIORITY", "2"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.com/1"));
  EXPECT_EQ(Cmd({"POP"}), Nil());  // one lease per site
  // The site's next URL comes one second after the CONFIRM: not before
  // (the watch starts before the CONFIRM is sent, so the server's second
  // lies wholly inside it), and not seconds later (loosely bounded, for a
  // loaded machine: CONFIG GET above pins the exact value).
  Stopwatch watch;
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_TRUE(PopUntil("http://a.com/2", seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(990));
  EXPECT_LT(watch.Elapsed(), milliseconds(2500));
}

class PolitenessManySitesTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return PolitenessArgs("60", "1");
  }
};

TEST_F(PolitenessManySitesTest, BusySitesDoNotHideReadyOnes) {
  // 300 sites with a first URL each, then a second URL of each: after one
  // round every site waits 60 s and only a fresh site can be served.
  auto c = Connect();
  for (int i = 0; i < 300; ++i) {
    c->Append({"MADD", "", "http://s" + std::to_string(i) + ".com/1",
               "http://s" + std::to_string(i) + ".com/2"});
  }
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ(c->GetReply(), Array({Int(1), Int(1)})) << i;
  Reply round = Cmd({"POP", "COUNT", "1000"});
  ASSERT_TRUE(round.IsArray()) << round;
  EXPECT_EQ(round.elements.size(), 300u);
  EXPECT_EQ(Cmd({"POP"}), Nil());
  ASSERT_EQ(Cmd({"ADD", "http://fresh.com/", "", "PRIORITY", "9999"}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://fresh.com/"));
  EXPECT_EQ(Stats()["sites"], 301);
}

}  // namespace
}  // namespace frontier::itest
