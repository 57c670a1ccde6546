// End to end: the SITE command family (INFO, LIST, TOP, DELAY, LIMIT,
// DELETE, HELP), its roles, its bad inputs and its durability.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

class SiteCommandsTest : public FrontierdTest {
 protected:
  std::map<std::string, std::string> SiteInfo(const std::string& site) {
    return FieldMap(Cmd({"SITE", "INFO", site}));
  }
  // SITE LIST pages until the cursor is "0" again; every site seen.
  std::vector<std::string> ScanAll(std::vector<std::string> options,
                                   size_t* pages) {
    std::vector<std::string> all;
    std::string cursor = "0";
    *pages = 0;
    do {
      std::vector<std::string> cmd = {"SITE", "LIST"};
      cmd.insert(cmd.end(), options.begin(), options.end());
      cmd.insert(cmd.end(), {"CURSOR", cursor});
      Reply r = Cmd(cmd);
      EXPECT_TRUE(r.IsArray() && r.elements.size() == 2) << r;
      if (!r.IsArray() || r.elements.size() != 2) break;
      cursor = r.elements[0].str;
      for (const Reply& site : r.elements[1].elements) all.push_back(site.str);
      ++*pages;
    } while (cursor != "0" && *pages < 1000);
    return all;
  }
};

TEST_F(SiteCommandsTest, InfoShowsTheSiteState) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/3"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/4", "", "RECRAWL", "3600"}), Int(1));
  Reply popped = Cmd({"POP"});
  ASSERT_TRUE(popped.IsString()) << popped;
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/4"}), Int(1));  // scheduled
  std::string done =
      popped.str == "http://a.com/1" ? "http://a.com/2" : "http://a.com/1";
  ASSERT_EQ(Cmd({"CONFIRM", done}), Int(1));

  Reply r = Cmd({"SITE", "INFO", "a.com"});
  ASSERT_TRUE(r.IsArray()) << r;
  std::vector<std::string> names;
  for (size_t i = 0; i < r.elements.size(); i += 2) {
    names.push_back(r.elements[i].str);
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "site", "queued", "leased", "done", "scheduled", "dead",
                       "excluded", "delay", "delay-source", "next",
                       "blocked-until", "backoffs", "max-urls",
                       "crawl-limit"}));
  auto info = FieldMap(r);
  EXPECT_EQ(info["site"], "a.com");
  EXPECT_EQ(info["queued"], popped.str == "http://a.com/4" ? "2" : "1");
  EXPECT_EQ(info["leased"], popped.str == "http://a.com/4" ? "0" : "1");
  EXPECT_EQ(info["done"], "1");
  EXPECT_EQ(info["scheduled"], "1");
  EXPECT_EQ(info["dead"], "0");
  EXPECT_EQ(info["excluded"], "0");
  EXPECT_EQ(info["delay"], "0");
  EXPECT_EQ(info["delay-source"], "default");
  EXPECT_EQ(info["next"], "0");
  EXPECT_EQ(info["blocked-until"], "0");
  EXPECT_EQ(info["backoffs"], "0");
  EXPECT_EQ(info["max-urls"], "0");
  // A URL or another spelling of the host names the same site.
  EXPECT_EQ(SiteInfo("https://A.COM:443/x")["site"], "a.com");
  EXPECT_EQ(Cmd({"SITE", "INFO", "nowhere.com"}), Nil());
}

TEST_F(SiteCommandsTest, ListPagesThroughEverySiteOnce) {
  std::set<std::string> want;
  for (int i = 0; i < 12; ++i) {
    const std::string site = "s" + std::to_string(i) + ".com";
    ASSERT_EQ(Cmd({"ADD", "http://" + site + "/"}), Int(1));
    want.insert(site);
  }
  size_t pages = 0;
  std::vector<std::string> all = ScanAll({"COUNT", "5"}, &pages);
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), want);
  EXPECT_EQ(pages, 3u);  // 5 + 5 + 2
  // Without COUNT (10 a page), and with a filter.
  all = ScanAll({"READY"}, &pages);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), want);
  all = ScanAll({"ALL", "COUNT", "100"}, &pages);
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(pages, 1u);
  EXPECT_TRUE(ScanAll({"WAITING"}, &pages).empty());
  EXPECT_TRUE(ScanAll({"blocked", "COUNT", "3"}, &pages).empty());
  // A site that waits for its delay is WAITING, not READY.
  ASSERT_EQ(Cmd({"SITE", "DELAY", "s3.com", "100"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"ADD", "http://s3.com/2"}), Int(1));
  Reply popped;
  for (int i = 0; i < 20 && popped.str != "http://s3.com/"; ++i) {
    popped = Cmd({"POP"});
  }
  ASSERT_EQ(popped, Bulk("http://s3.com/"));
  EXPECT_EQ(ScanAll({"WAITING"}, &pages), std::vector<std::string>{"s3.com"});
}

TEST_F(SiteCommandsTest, TopListsTheSitesWithTheMostQueuedUrls) {
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(Cmd({"ADD", "http://big.com/" + std::to_string(i)}), Int(1));
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(Cmd({"ADD", "http://mid.com/" + std::to_string(i)}), Int(1));
  }
  ASSERT_EQ(Cmd({"ADD", "http://small.com/"}), Int(1));
  EXPECT_EQ(Cmd({"SITE", "TOP", "2"}),
            Array({Bulk("big.com"), Int(4), Bulk("mid.com"), Int(2)}));
  EXPECT_EQ(Cmd({"SITE", "TOP"}),
            Array({Bulk("big.com"), Int(4), Bulk("mid.com"), Int(2),
                   Bulk("small.com"), Int(1)}));
}

TEST_F(SiteCommandsTest, DelayIsSiteDelay) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"SITE", "DELAY", "a.com", "2.5"}), StatusReply("OK"));
  auto info = SiteInfo("a.com");
  EXPECT_EQ(info["delay"], "2.5");
  EXPECT_EQ(info["delay-source"], "set");
  ASSERT_EQ(Cmd({"DELAY", "a.com", "7"}), StatusReply("OK"));
  EXPECT_EQ(SiteInfo("a.com")["delay"], "7");
  ASSERT_EQ(Cmd({"SITE", "DELAY", "a.com", "-1"}), StatusReply("OK"));
  EXPECT_EQ(SiteInfo("a.com")["delay-source"], "default");
}

TEST_F(SiteCommandsTest, LimitCapsTheSite) {
  ASSERT_EQ(Cmd({"SITE", "LIMIT", "a.com", "2"}), StatusReply("OK"));
  EXPECT_EQ(SiteInfo("a.com")["max-urls"], "2");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/2"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/3"}), Int(-1));
  EXPECT_EQ(Cmd({"MADD", "", "http://a.com/4", "http://b.com/1"}),
            Array({Int(-1), Int(1)}));
  ASSERT_EQ(Cmd({"SITE", "LIMIT", "a.com", "0"}), StatusReply("OK"));
  EXPECT_EQ(SiteInfo("a.com")["max-urls"], "0");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/3"}), Int(1));
}

TEST_F(SiteCommandsTest, DeleteRemovesTheSiteAndItsUrls) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Cmd({"ADD", "http://a.com/" + std::to_string(i)}), Int(1));
  }
  ASSERT_EQ(Cmd({"ADD", "http://b.com/"}), Int(1));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/0"}), Int(1));
  EXPECT_EQ(Cmd({"SITE", "DELETE", "http://a.com/anything"}), Int(3));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Cmd({"SEEN", "http://a.com/" + std::to_string(i)}), Int(0));
  }
  EXPECT_EQ(Cmd({"SITE", "INFO", "a.com"}), Nil());
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), BulkArray({"http://b.com/"}));
  auto stats = Stats();
  EXPECT_EQ(stats["urls"], 1);
  EXPECT_EQ(stats["sites"], 1);
  EXPECT_EQ(Cmd({"SITE", "DELETE", "a.com"}), Int(0));
}

// Above the one-transaction bound (100,000 URL records): gone at the
// reply, and the server's ticks remove the records in the background,
// after which the site's URLs can be added again.
TEST_F(SiteCommandsTest, DeleteOfASiteAboveTheBoundRemovesItInTheBackground) {
  constexpr int kUrls = 100'001;
  constexpr int kBatch = 10'000;
  for (int at = 0; at < kUrls; at += kBatch) {
    std::vector<std::string> cmd = {"MADD", ""};
    for (int i = at; i < std::min(at + kBatch, kUrls); ++i) {
      cmd.push_back("http://big.com/" + std::to_string(i));
    }
    ASSERT_TRUE(Cmd(cmd).IsArray());
  }
  ASSERT_EQ(Cmd({"ADD", "http://keep.com/"}), Int(1));
  ASSERT_EQ(Stats()["urls"], kUrls + 1);

  EXPECT_EQ(Cmd({"SITE", "DELETE", "big.com"}), Int(kUrls));
  EXPECT_EQ(Cmd({"SEEN", "http://big.com/7"}), Int(0));
  EXPECT_EQ(Cmd({"SITE", "INFO", "big.com"}), Nil());
  auto stats = Stats();
  EXPECT_EQ(stats["urls"], 1);
  EXPECT_EQ(stats["queued"], 1);
  EXPECT_EQ(stats["sites"], 1);
  EXPECT_EQ(Cmd({"POP", "COUNT", "10"}), BulkArray({"http://keep.com/"}));
  // ADD is refused (-1) until the removal ends, then adds the URL anew.
  Reply added;
  for (int i = 0; i < 600; ++i) {
    added = Cmd({"ADD", "http://big.com/0"});
    if (!(added == Int(-1))) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(added, Int(1));
  EXPECT_EQ(Cmd({"SEEN", "http://big.com/1"}), Int(0));
  EXPECT_EQ(Stats()["urls"], 2);
}

TEST_F(SiteCommandsTest, ChangesSurviveKill9) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://gone.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"SITE", "LIMIT", "a.com", "1"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"SITE", "DELAY", "a.com", "30"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"SITE", "DELETE", "gone.com"}), Int(1));
  server_->Kill9();
  ASSERT_TRUE(server_->Restart());
  auto info = SiteInfo("a.com");
  EXPECT_EQ(info["max-urls"], "1");
  EXPECT_EQ(info["delay"], "30");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/2"}), Int(-1));
  EXPECT_EQ(Cmd({"SEEN", "http://gone.com/1"}), Int(0));
  EXPECT_EQ(Cmd({"SITE", "INFO", "gone.com"}), Nil());
  EXPECT_EQ(Stats()["sites"], 1);
}

// A worker and an admin user; the default user is disabled.
class SiteRolesTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--user", "w", "on", ">pw", "+@worker", "--user",
                             "ops", "on", ">opspw", "+@admin"});
    return args;
  }
};

TEST_F(SiteRolesTest, AWorkerMayReadSitesButNotChangeThem) {
  ASSERT_EQ(Cmd({"AUTH", "ops", "opspw"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  std::unique_ptr<Client> w = Connect();
  ASSERT_EQ(w->Cmd({"AUTH", "w", "pw"}), StatusReply("OK"));
  EXPECT_TRUE(w->Cmd({"SITE", "INFO", "a.com"}).IsArray());
  EXPECT_TRUE(w->Cmd({"SITE", "LIST"}).IsArray());
  EXPECT_TRUE(w->Cmd({"SITE", "TOP"}).IsArray());
  EXPECT_TRUE(w->Cmd({"SITE", "HELP"}).IsArray());
  const std::pair<std::vector<std::string>, std::string> refused[] = {
      {{"SITE", "DELAY", "a.com", "5"}, "site|delay"},
      {{"SITE", "LIMIT", "a.com", "5"}, "site|limit"},
      {{"SITE", "DELETE", "a.com"}, "site|delete"},
      {{"site", "Delete", "a.com"}, "site|delete"},
      {{"DELAY", "a.com", "5"}, "delay"},
  };
  for (const auto& [cmd, name] : refused) {
    EXPECT_EQ(w->Cmd(cmd), Error("NOPERM User w has no permissions to run "
                                 "the '" +
                                 name + "' command"))
        << name;
  }
  auto info = FieldMap(Cmd({"SITE", "INFO", "a.com"}));
  EXPECT_EQ(info["delay-source"], "default");
  EXPECT_EQ(info["max-urls"], "0");
  EXPECT_EQ(info["queued"], "1");
}

TEST_F(SiteCommandsTest, BadInputGetsAClearErrorAndChangesNothing) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  const Reply invalid_site =
      Error("ERR invalid site 'a b': expected a host, a domain or a URL");
  EXPECT_EQ(Cmd({"SITE", "INFO", "a b"}), invalid_site);
  EXPECT_EQ(Cmd({"SITE", "DELETE", "a b"}), invalid_site);
  EXPECT_EQ(Cmd({"SITE", "LIMIT", "a b", "3"}), invalid_site);
  EXPECT_EQ(Cmd({"SITE", "DELAY", "a b", "3"}), invalid_site);
  EXPECT_TRUE(
      IsErrorStartingWith(Cmd({"SITE", "INFO", "http://"}), "ERR invalid"));
  const Reply bad_limit = Error(
      "ERR SITE LIMIT must be a non-negative integer (0 = site-max-urls)");
  EXPECT_EQ(Cmd({"SITE", "LIMIT", "a.com", "-1"}), bad_limit);
  EXPECT_EQ(Cmd({"SITE", "LIMIT", "a.com", "1.5"}), bad_limit);
  EXPECT_EQ(Cmd({"SITE", "LIMIT", "a.com", "x"}), bad_limit);
  EXPECT_EQ(Cmd({"SITE", "DELAY", "a.com", "soon"}),
            Error("ERR value is not a valid float"));
  const Reply not_integer =
      Error("ERR value is not an integer or out of range");
  EXPECT_EQ(Cmd({"SITE", "TOP", "0"}), not_integer);
  EXPECT_EQ(Cmd({"SITE", "TOP", "-3"}), not_integer);
  EXPECT_EQ(Cmd({"SITE", "TOP", "ten"}), not_integer);
  EXPECT_EQ(Cmd({"SITE", "LIST", "COUNT", "0"}), not_integer);
  EXPECT_EQ(Cmd({"SITE", "LIST", "CURSOR", "-1"}), Error("ERR invalid cursor"));
  EXPECT_EQ(Cmd({"SITE", "LIST", "CURSOR", "99999999999999999999"}),
            Error("ERR invalid cursor"));
  EXPECT_EQ(Cmd({"SITE", "LIST", "SOME"}), Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"SITE", "LIST", "COUNT"}), Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"SITE", "LIST", "COUNT", "1", "COUNT", "2"}),
            Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"SITE", "NOPE"}),
            Error("ERR unknown subcommand 'NOPE'. Try SITE HELP."));
  EXPECT_EQ(Cmd({"SITE"}),
            Error("ERR wrong number of arguments for 'site' command"));
  EXPECT_EQ(Cmd({"SITE", "INFO"}),
            Error("ERR wrong number of arguments for 'site|info' command"));
  EXPECT_EQ(Cmd({"SITE", "DELETE", "a.com", "now"}),
            Error("ERR wrong number of arguments for 'site|delete' command"));
  EXPECT_EQ(Cmd({"SITE", "LIMIT", "a.com"}),
            Error("ERR wrong number of arguments for 'site|limit' command"));
  EXPECT_EQ(Cmd({"SITE", "TOP", "1", "2"}),
            Error("ERR wrong number of arguments for 'site|top' command"));
  // Nothing changed.
  auto info = SiteInfo("a.com");
  EXPECT_EQ(info["queued"], "1");
  EXPECT_EQ(info["max-urls"], "0");
  EXPECT_EQ(info["delay-source"], "default");
  EXPECT_EQ(Stats()["sites"], 1);
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/1"}), Int(1));
}

}  // namespace
}  // namespace frontier::itest
