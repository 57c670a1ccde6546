// End to end: STATS and INFO's # Frontier section: every counter, counting
// URLs rather than commands, and INFO agreeing with STATS.
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using StatsInfoTest = FrontierdTest;

const std::vector<std::string> kStatsFields = {
    "urls",          "queued",        "leased",        "done",
    "scheduled",     "dead",          "excluded",      "sites",
    "ready_sites",   "blocked_sites", "added",         "duplicates",
    "refused",       "popped",        "confirmed",     "failed",
    "expired",       "recrawled",     "confirmed_2xx", "confirmed_3xx",
    "confirmed_4xx", "confirmed_5xx", "backoffs",
    "scope_refused_host", "scope_refused_ref", "scope_refused_query",
    "scope_refused_path", "scope_refused_deny", "scope_refused_allow",
    "scope_removed"};

TEST_F(StatsInfoTest, StatsIsAFlatArrayOfNamedIntegers) {
  Reply r = Cmd({"STATS"});
  ASSERT_TRUE(r.IsArray()) << r;
  ASSERT_EQ(r.elements.size(), 2 * kStatsFields.size()) << r;
  for (size_t i = 0; i < kStatsFields.size(); ++i) {
    EXPECT_EQ(r.elements[2 * i], Bulk(kStatsFields[i]));
    EXPECT_EQ(r.elements[2 * i + 1], Int(0)) << kStatsFields[i];
  }
}

class StatsCountersTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--max-depth", "1", "--max-attempts", "1"});
    return args;
  }
};

TEST_F(StatsCountersTest, EveryCounterMoves) {
  // 6 new URLs on 3 sites, 2 duplicates, 1 refused (too deep).
  ASSERT_EQ(Cmd({"MADD", "", "http://a.com/1", "http://a.com/2",
                 "http://a.com/3", "http://b.com/1", "http://b.com/2"}),
            Array({Int(1), Int(1), Int(1), Int(1), Int(1)}));
  ASSERT_EQ(
      Cmd({"ADD", "http://c.com/", "", "RECRAWL", "3600", "PRIORITY", "9999"}),
      Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(0));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/1", "http://c.com/"}), Int(0));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/deeper", "http://a.com/1"}), Int(-1));
  auto s = Stats();
  EXPECT_EQ(s["urls"], 6);
  EXPECT_EQ(s["queued"], 6);
  EXPECT_EQ(s["sites"], 3);
  EXPECT_EQ(s["ready_sites"], 3);
  EXPECT_EQ(s["added"], 6);
  EXPECT_EQ(s["duplicates"], 2);
  EXPECT_EQ(s["refused"], 1);

  // POP COUNT 4 adds 4 to popped (c.com, priority 9999, stays queued).
  Reply popped = Cmd({"POP", "COUNT", "4"});
  ASSERT_TRUE(popped.IsArray()) << popped;
  ASSERT_EQ(popped.elements.size(), 4u);
  s = Stats();
  EXPECT_EQ(s["popped"], 4);
  EXPECT_EQ(s["leased"], 4);
  EXPECT_EQ(s["queued"], 2);

  // Confirm two of them, fail one (max-attempts 1: it dies).
  ASSERT_EQ(Cmd({"CONFIRM", popped.elements[0].str}), Int(1));
  ASSERT_EQ(Cmd({"CONFIRM", popped.elements[1].str}), Int(1));
  ASSERT_EQ(Cmd({"FAIL", popped.elements[2].str}), Int(1));
  s = Stats();
  EXPECT_EQ(s["confirmed"], 2);
  EXPECT_EQ(s["failed"], 1);
  EXPECT_EQ(s["dead"], 1);
  EXPECT_EQ(s["leased"], 1);
  EXPECT_EQ(s["done"] + s["scheduled"], 2);

  // c.com has a recrawl period: confirming it schedules it.
  ASSERT_EQ(Cmd({"CONFIRM", "http://c.com/"}), Int(1));
  s = Stats();
  EXPECT_EQ(s["confirmed"], 3);
  EXPECT_EQ(s["scheduled"], 1);
  // Every URL is in exactly one state.
  EXPECT_EQ(s["queued"] + s["leased"] + s["done"] + s["scheduled"] + s["dead"],
            s["urls"]);
  EXPECT_EQ(s["urls"], 6);
}

TEST_F(StatsInfoTest, ExpiredAndRecrawledCount) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/", "", "RECRAWL", "0.1"}), Int(1));
  ASSERT_EQ(Cmd({"POP", "LEASE", "0.1"}), Bulk("http://a.com/"));
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  EXPECT_EQ(Stats()["expired"], 1);
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/"}), Int(1));
  ASSERT_TRUE(PopUntil("http://a.com/", std::chrono::seconds(5)));
  auto s = Stats();
  EXPECT_EQ(s["recrawled"], 1);
  EXPECT_EQ(s["popped"], 3);
  EXPECT_EQ(s["expired"], 1);
}

TEST_F(StatsInfoTest, InfoFrontierMatchesStats) {
  ASSERT_TRUE(
      Cmd({"MADD", "", "http://a.com/1", "http://a.com/2", "http://b.com/"})
          .IsArray());
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(0));
  ASSERT_TRUE(Cmd({"POP", "COUNT", "2"}).IsArray());
  Reply info = Cmd({"INFO", "frontier"});
  ASSERT_TRUE(info.IsString()) << info;
  auto m = InfoMap(info.str);
  auto s = Stats();
  for (const std::string& field : kStatsFields) {
    ASSERT_EQ(m.count(field), 1u) << "INFO frontier lacks " << field << ":\n"
                                  << info.str;
    EXPECT_EQ(m[field], std::to_string(s[field])) << field;
  }
  // Also inside the full INFO.
  auto all = InfoMap(Cmd({"INFO"}).str);
  EXPECT_EQ(all["popped"], "2");
  EXPECT_EQ(all["duplicates"], "1");
}

TEST_F(StatsInfoTest, InfoCountsClients) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_EQ(a->Cmd({"PING"}), StatusReply("PONG"));
  ASSERT_EQ(b->Cmd({"PING"}), StatusReply("PONG"));
  auto m = InfoMap(Cmd({"INFO", "clients"}).str);
  EXPECT_EQ(m["connected_clients"], "3");
}

// Idle workers polling an empty (or politeness-blocked) frontier must not
// load the disk: a POP that hands out nothing commits nothing, and with
// fsync always only a pass that committed something waits for an fsync.
TEST_F(StatsInfoTest, EmptyPopsCostNoLogFlush) {
  auto flushes = [this] {
    return std::stoll(InfoMap(Cmd({"INFO", "persistence"}).str)["log_flushes"]);
  };
  const long long before = flushes();
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Cmd({"POP"}), Nil());
  EXPECT_EQ(flushes(), before);
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(flushes(), before + 1);
}

}  // namespace
}  // namespace frontier::itest
