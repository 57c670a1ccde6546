// The dashboard page in a real browser: frontierd with data, the page
// loaded in headless Chromium (Debian's `chromium`), and the rendered DOM
// checked for live values and drawn charts that change between two loads.
// A screenshot is kept as a test artefact: http_dashboard.png in the
// test's working directory (build/tests/).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"
#include "support/http_client.h"

namespace frontier::itest {
namespace {

using std::chrono::seconds;

std::string FindChromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    ProcessResult r = RunProcess(
        {"/bin/sh", "-c", std::string("command -v ") + name}, "", seconds(10));
    if (r.exit_code == 0 && !r.out.empty())
      return r.out.substr(0, r.out.find('\n'));
  }
  return "";
}

class HttpDashboardTest : public HttpServerTest {
 protected:
  // Loads the page for `budget_ms` of the page's (virtual) time and
  // returns the DOM as rendered then; or, with `screenshot`, saves a PNG.
  ProcessResult Load(int budget_ms, const std::string& screenshot = "") {
    std::vector<std::string> argv = {
        chromium_,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--user-data-dir=" + profile_.path(),
        "--window-size=1400,1250",
        "--virtual-time-budget=" + std::to_string(budget_ms)};
    argv.push_back(screenshot.empty() ? "--dump-dom"
                                      : "--screenshot=" + screenshot);
    argv.push_back("http://127.0.0.1:" + std::to_string(http_port_) + "/");
    return RunProcess(argv, "", seconds(90));
  }

  void AddUrls(int from, int to) {
    auto c = Connect();
    for (int i = from; i < to; ++i) {
      c->Append({"ADD", "http://site" + std::to_string(i % 6) + ".example/p" +
                            std::to_string(i)});
    }
    for (int i = from; i < to; ++i) ASSERT_EQ(c->GetReply(), Int(1));
  }

  std::string chromium_;
  TempDir profile_;
};

// The text of the element with id `id` (a leaf), or "" if absent.
std::string TextOf(const std::string& dom, const std::string& id) {
  std::smatch m;
  std::regex re("id=\"" + id + "\"[^>]*>([^<]*)<");
  return std::regex_search(dom, m, re) ? m[1].str() : "";
}

// The number of chart lines with at least two points.
int DrawnLines(const std::string& dom) {
  std::regex re("<path class=\"series s[0-9]\" d=\"M[-0-9. ]+( L[-0-9. ]+)+\"");
  return static_cast<int>(
      std::distance(std::sregex_iterator(dom.begin(), dom.end(), re),
                    std::sregex_iterator()));
}

TEST_F(HttpDashboardTest, ShowsLiveValuesAndChartsInChromium) {
  chromium_ = FindChromium();
  if (chromium_.empty()) {
    GTEST_SKIP() << "no Chromium installed (Debian package chromium): the "
                    "page was not tested in a browser";
  }
  AddUrls(0, 30);
  ASSERT_TRUE(Cmd({"POP", "COUNT", "4"}).IsArray());

  ProcessResult first = Load(4000);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string& dom1 = first.out;
  EXPECT_EQ(TextOf(dom1, "live"), "live") << dom1.substr(0, 2000);
  EXPECT_EQ(TextOf(dom1, "v-urls"), "30");
  EXPECT_EQ(TextOf(dom1, "v-leased"), "4");
  EXPECT_EQ(TextOf(dom1, "v-sites"), "6");
  EXPECT_EQ(TextOf(dom1, "writes"), "writes ok");
  EXPECT_GE(DrawnLines(dom1), 3) << "no chart was drawn";
  EXPECT_NE(dom1.find(">site0.example<"), std::string::npos) << "largest sites";
  EXPECT_NE(dom1.find(">always<"), std::string::npos) << "fsync policy";
  // A single node has no replication group: its panel stays hidden (the
  // group's rows: tests/python/replication_sentinel_test.py).
  EXPECT_NE(dom1.find("id=\"replication-panel\" hidden"), std::string::npos);
  // The start as a date a person reads, not epoch seconds.
  EXPECT_TRUE(std::regex_match(
      TextOf(dom1, "started"),
      std::regex(
          "20[0-9]{2}-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]")))
      << TextOf(dom1, "started");

  // More work, then a second load: the values follow.
  AddUrls(30, 1230);
  ASSERT_TRUE(Cmd({"POP", "COUNT", "10"}).IsArray());
  ProcessResult second = Load(4000);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::string& dom2 = second.out;
  EXPECT_EQ(TextOf(dom2, "v-urls"), "1,230");
  EXPECT_EQ(TextOf(dom2, "v-leased"), "14");
  EXPECT_NE(TextOf(dom1, "v-queued"), TextOf(dom2, "v-queued"));
  EXPECT_GE(DrawnLines(dom2), 3);

  // The artefact: a screenshot after a few seconds of history, with a
  // worker adding and popping meanwhile so that the rate charts move.
  const std::string shot =
      (std::filesystem::current_path() / "http_dashboard.png").string();
  std::filesystem::remove(shot);
  std::atomic<bool> stop{false};
  std::thread worker([this, &stop] {
    auto c = Connect();
    Stopwatch watch;
    for (int i = 0; !stop && i < 20000 && watch.Elapsed() < seconds(60); ++i) {
      c->Cmd({"ADD", "http://busy" + std::to_string(i % 9) + ".example/" +
                         std::to_string(i)});
      if (i % 3 == 0) c->Cmd({"POP"});
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  ProcessResult pic = Load(8000, shot);
  stop = true;
  worker.join();
  ASSERT_EQ(pic.exit_code, 0) << pic.err;
  ASSERT_TRUE(std::filesystem::exists(shot));
  EXPECT_GT(std::filesystem::file_size(shot), 20'000u);
  EXPECT_EQ(ReadFile(shot).substr(1, 3), "PNG");
  std::printf("screenshot: %s\n", shot.c_str());
}

// The DOM of a page load that succeeded and went live ("" otherwise).
std::string LiveDom(const ProcessResult& page) {
  EXPECT_EQ(page.exit_code, 0) << page.err;
  EXPECT_EQ(TextOf(page.out, "live"), "live") << page.out.substr(0, 2000);
  return page.exit_code == 0 ? page.out : "";
}

// The cells of the crawls table's row of crawl `name`, joined by '|'
// ("" if the page has no such row).
std::string CrawlRow(const std::string& dom, const std::string& name) {
  const std::string start = ">" + name + "</td>";
  const size_t table = dom.find("id=\"crawls\"");
  if (table == std::string::npos) return "";
  const size_t at = dom.find(start, table);
  if (at == std::string::npos) return "";
  const std::string row = dom.substr(at, dom.find("</tr>", at) - at);
  std::string cells = name;
  std::regex cell("<td class=\"num\">([^<]*)</td>");
  for (auto it = std::sregex_iterator(row.begin(), row.end(), cell);
       it != std::sregex_iterator(); ++it) {
    cells += "|" + (*it)[1].str();
  }
  return cells;
}

// Several crawls (issue 22): a row per crawl, DEFAULT first, with its
// URLs, queued, leased, done, excluded and sites.
TEST_F(HttpDashboardTest, ShowsEachCrawlInChromium) {
  chromium_ = FindChromium();
  if (chromium_.empty()) {
    GTEST_SKIP() << "no Chromium installed (Debian package chromium): the "
                    "page was not tested in a browser";
  }
  AddUrls(0, 2);  // the default crawl's
  auto news = Connect();
  ASSERT_EQ(news->Cmd({"CRAWL", "news"}), StatusReply("OK"));
  for (int i = 0; i < 1200; ++i) {
    news->Append({"ADD", "http://n" + std::to_string(i % 3) + ".example/" +
                             std::to_string(i)});
  }
  for (int i = 0; i < 1200; ++i) ASSERT_EQ(news->GetReply(), Int(1));
  Reply popped = news->Cmd({"POP", "COUNT", "3"});
  ASSERT_TRUE(popped.IsArray());
  ASSERT_EQ(popped.elements.size(), 3u);
  ASSERT_EQ(news->Cmd({"CONFIRM", popped.elements[0].str}), Int(1));

  const std::string dom = LiveDom(Load(3000));
  // Crawl | URLs | queued | leased | done | excluded | sites
  EXPECT_EQ(CrawlRow(dom, "DEFAULT"), "DEFAULT|2|2|0|0|0|2");
  EXPECT_EQ(CrawlRow(dom, "news"), "news|1,200|1,197|2|1|0|3");
  EXPECT_LT(dom.find(">DEFAULT</td>"), dom.find(">news</td>"));
  EXPECT_EQ(TextOf(dom, "v-urls"), "2");  // the tiles stay DEFAULT's
}

// With robots.txt applied: the Excluded tile, so that the tiles add up to
// URLs; and once the crawl is idle (nothing queued or leased), the largest
// sites are still listed, by URLs held.
class HttpDashboardRobotsTest : public HttpDashboardTest {
 protected:
  HttpDashboardRobotsTest() {
    extra_ = {"--robots", "yes", "--robots-agent", "testbot"};
  }
};

TEST_F(HttpDashboardRobotsTest, ShowsExcludedAndLargestSitesWhenIdle) {
  chromium_ = FindChromium();
  if (chromium_.empty()) {
    GTEST_SKIP() << "no Chromium installed (Debian package chromium): the "
                    "page was not tested in a browser";
  }
  auto c = Connect();
  for (const char* path : {"/a", "/b", "/private/1", "/private/2"}) {
    ASSERT_EQ(c->Cmd({"ADD", std::string("http://big.example") + path}),
              Int(1));
  }
  ASSERT_EQ(c->Cmd({"ADD", "http://small.example/"}), Int(1));
  // Each site's robots.txt first, then its allowed URLs, each confirmed,
  // until nothing is handed out: the crawl is idle.
  int confirmed = 0;
  Stopwatch watch;
  while (confirmed < 5 && watch.Elapsed() < seconds(20)) {
    Reply url = c->Cmd({"POP"});
    if (!url.IsString()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    std::vector<std::string> confirm = {"CONFIRM", url.str, "STATUS", "200"};
    if (url.str.ends_with("/robots.txt")) {
      confirm.insert(confirm.end(),
                     {"BODY", "User-agent: *\nDisallow: /private/\n"});
    }
    ASSERT_EQ(c->Cmd(confirm), Int(1)) << url.str;
    ++confirmed;
  }
  ASSERT_EQ(confirmed, 5);  // 2 robots.txt, /a, /b, small.example/
  ASSERT_EQ(c->Cmd({"POP"}), Nil());

  ProcessResult page = Load(3000);
  ASSERT_EQ(page.exit_code, 0) << page.err;
  const std::string& dom = page.out;
  EXPECT_EQ(TextOf(dom, "live"), "live") << dom.substr(0, 2000);
  // big.example: /a, /b, 2 excluded and its robots.txt; small.example: 2.
  EXPECT_EQ(TextOf(dom, "v-urls"), "7");
  EXPECT_EQ(TextOf(dom, "v-excluded"), "2");
  EXPECT_EQ(TextOf(dom, "v-queued"), "0");
  EXPECT_EQ(TextOf(dom, "v-leased"), "0");
  // Largest first, by URLs held.
  const size_t big = dom.find(">big.example<");
  const size_t small = dom.find(">small.example<");
  EXPECT_NE(big, std::string::npos) << "largest sites, idle";
  EXPECT_NE(small, std::string::npos) << "largest sites, idle";
  EXPECT_LT(big, small);
}

}  // namespace
}  // namespace frontier::itest
