// End to end: what CONFIRM's report changes (issue 8 §3): STATUS counted
// by class in STATS, FETCH-MS stretching the site's delay
// (politeness-delay-factor), CHANGED/UNCHANGED moving the recrawl period
// (recrawl-adaptive), and the new directives' bad values.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

// The server's clock (TIME) in milliseconds.
int64_t ServerNowMs(FrontierdProcess& server) {
  Reply t = server.Cmd({"TIME"});
  if (!t.IsArray() || t.elements.size() != 2) return 0;
  return std::stoll(t.elements[0].str) * 1000 +
         std::stoll(t.elements[1].str) / 1000;
}

// "1700000000.123" -> 1700000000123.
int64_t UnixMs(const std::string& text) {
  return static_cast<int64_t>(
      std::llround(std::strtod(text.c_str(), nullptr) * 1000));
}

using ConfirmReportTest = FrontierdTest;

TEST_F(ConfirmReportTest, StatusIsCountedByClassAndSurvivesRestart) {
  const std::vector<std::string> statuses = {"200", "201", "302",
                                             "404", "500", "503"};
  for (size_t i = 0; i < statuses.size(); ++i) {
    const std::string url = "http://a.com/" + std::to_string(i);
    ASSERT_EQ(Cmd({"ADD", url}), Int(1));
    ASSERT_EQ(Cmd({"CONFIRM", url, "STATUS", statuses[i]}), Int(1));
  }
  ASSERT_EQ(Cmd({"ADD", "http://a.com/plain"}), Int(1));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/plain"}), Int(1));
  auto check = [&] {
    auto s = Stats();
    EXPECT_EQ(s["confirmed"], 7);
    EXPECT_EQ(s["confirmed_2xx"], 2);
    EXPECT_EQ(s["confirmed_3xx"], 1);
    EXPECT_EQ(s["confirmed_4xx"], 1);
    EXPECT_EQ(s["confirmed_5xx"], 2);
  };
  check();
  // INFO's Frontier section and /metrics read the same counters.
  Reply info = Cmd({"INFO", "frontier"});
  ASSERT_TRUE(info.IsString()) << info;
  EXPECT_EQ(InfoMap(info.str)["confirmed_5xx"], "2");
  ASSERT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart());
  check();
}

TEST_F(ConfirmReportTest, BadReportsChangeNothing) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  const Reply status_range =
      Error("ERR STATUS must be an HTTP status code between 100 and 599");
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/", "STATUS", "99"}), status_range);
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/", "STATUS", "600"}), status_range);
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/", "STATUS", "ok"}), status_range);
  EXPECT_EQ(
      Cmd({"CONFIRM", "http://a.com/", "FETCH-MS", "-1"}),
      Error("ERR FETCH-MS must be a non-negative integer (milliseconds)"));
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/", "CHANGED", "UNCHANGED"}),
            Error("ERR CHANGED and UNCHANGED exclude each other and may "
                  "appear once"));
  EXPECT_EQ(Cmd({"CONFIRM", "http://a.com/", "LOUDLY"}),
            Error("ERR syntax error"));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "queued");
  auto s = Stats();
  EXPECT_EQ(s["confirmed"], 0);
  EXPECT_EQ(s["confirmed_2xx"] + s["confirmed_3xx"] + s["confirmed_4xx"] +
                s["confirmed_5xx"],
            0);
}

class AdaptivePolitenessTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--politeness-delay",
            "0.05",
            "--site-max-leases",
            "1",
            "--politeness-delay-factor",
            "10",
            "--politeness-max-delay",
            "4",
            "--timer-ms",
            "10"};
  }
};

// Measured on SITE INFO's `next` against the server's clock, not with
// sleeps: a fetch of t ms holds the site for 10 t ms, within the bounds.
TEST_F(AdaptivePolitenessTest, FetchTimeSetsTheNextAllowedFetch) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Cmd({"ADD", "http://slow.com/" + std::to_string(i)}), Int(1));
  }
  Reply url = Cmd({"POP"});
  ASSERT_TRUE(url.IsString()) << url;
  const int64_t before = ServerNowMs(*server_);
  ASSERT_EQ(Cmd({"CONFIRM", url.str, "STATUS", "200", "FETCH-MS", "200"}),
            Int(1));
  const int64_t after = ServerNowMs(*server_);
  auto info = FieldMap(Cmd({"SITE", "INFO", "slow.com"}));
  EXPECT_EQ(info["delay"], "2");
  EXPECT_EQ(info["delay-source"], "adaptive");
  const int64_t next = UnixMs(info["next"]);
  EXPECT_GE(next, before + 2000);
  EXPECT_LE(next, after + 2000);
  EXPECT_EQ(Cmd({"POP"}), Nil());  // the site waits

  // A shorter DELAY frees the site at once; CONFIG SET takes effect at
  // once: a smaller cap bounds the next adaptive delay.
  ASSERT_EQ(Cmd({"SITE", "DELAY", "slow.com", "0.05"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"CONFIG", "SET", "politeness-max-delay", "0.3"}),
            StatusReply("OK"));
  Reply second = Cmd({"POP"});
  for (int i = 0; i < 300 && second.IsNil(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    second = Cmd({"POP"});
  }
  ASSERT_TRUE(second.IsString()) << second;
  ASSERT_EQ(Cmd({"CONFIRM", second.str, "FETCH-MS", "200"}), Int(1));
  info = FieldMap(Cmd({"SITE", "INFO", "slow.com"}));
  EXPECT_EQ(info["delay"], "0.3");
  EXPECT_EQ(info["delay-source"], "adaptive");
  // A fast fetch: the DELAY set for the site is the delay again.
  ASSERT_EQ(Cmd({"CONFIRM", "http://slow.com/9", "FETCH-MS", "1"}), Int(0));
  ASSERT_EQ(Cmd({"ADD", "http://slow.com/9"}), Int(1));
  ASSERT_EQ(Cmd({"CONFIRM", "http://slow.com/9", "FETCH-MS", "1"}), Int(1));
  info = FieldMap(Cmd({"SITE", "INFO", "slow.com"}));
  EXPECT_EQ(info["delay"], "0.05");
  EXPECT_EQ(info["delay-source"], "set");
}

class AdaptiveRecrawlTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--recrawl-adaptive", "yes", "--recrawl-min", "90",
                             "--recrawl-max", "200"});
    return args;
  }
};

TEST_F(AdaptiveRecrawlTest, UnchangedAndChangedMoveThePeriodInUrlInfo) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "RECRAWL", "100"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/once"}), Int(1));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/", "UNCHANGED"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "140");
  // Each CONFIRM of the (scheduled) URL moves the period on.
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/", "STATUS", "200", "UNCHANGED"}),
            Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "196");
  ASSERT_EQ(Cmd({"CONFIG", "SET", "recrawl-max", "150"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/", "unchanged"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "150");  // recrawl-max
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/", "CHANGED"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "120");
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/", "CHANGED"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "96");
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/", "CHANGED"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "90");  // recrawl-min
  // A URL without a recrawl period keeps none.
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/once", "UNCHANGED"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/once")["recrawl"], "0");
  // Off: the report is only a report.
  ASSERT_EQ(Cmd({"CONFIG", "SET", "recrawl-adaptive", "no"}),
            StatusReply("OK"));
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/", "UNCHANGED"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["state"], "scheduled");
  EXPECT_EQ(UrlInfo("http://a.com/")["recrawl"], "90");
}

TEST_F(AdaptiveRecrawlTest, BadDirectiveValuesAreRefused) {
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"politeness-delay-factor", "-1"},
           {"politeness-delay-factor", "fast"},
           {"politeness-delay-factor", "nan"},
           {"politeness-max-delay", "-2"},
           {"recrawl-adaptive", "maybe"},
           {"recrawl-inc-rate", "-0.1"},
           {"recrawl-dec-rate", "1.5"},
           {"recrawl-min", "0"},
           {"recrawl-max", "x"}}) {
    EXPECT_TRUE(IsErrorStartingWith(Cmd({"CONFIG", "SET", name, value}),
                                    "ERR CONFIG SET failed"))
        << name << " " << value;
  }
  auto values = FieldMap(Cmd({"CONFIG", "GET", "recrawl-*"}));
  EXPECT_EQ(values["recrawl-adaptive"], "yes");
  EXPECT_EQ(values["recrawl-inc-rate"], "0.4");
  EXPECT_EQ(values["recrawl-dec-rate"], "0.2");
  EXPECT_EQ(values["recrawl-min"], "90");
  EXPECT_EQ(values["recrawl-max"], "200");
  EXPECT_EQ(FieldMap(Cmd(
                {"CONFIG", "GET", "politeness-*"}))["politeness-delay-factor"],
            "0");
}

}  // namespace
}  // namespace frontier::itest
