// End to end: the crawl scope in the server (docs/commands.md#scope).
// ADD and MADD answer -2 for a link out of scope and store nothing; STATS
// counts each refusal by reason; CONFIG SET changes the scope and refuses
// a bad RE2 pattern without changing anything; a bad pattern stops the
// server at start; SCOPE RECHECK removes queued URLs out of a new scope
// and survives a kill -9 and a restart.
#include <chrono>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::vector<std::string> ArgsWith(std::vector<std::string> extra) {
  std::vector<std::string> args = DefaultTestArgs();
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

class ScopeTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return ArgsWith({"--scope-hosts", "example.com", "--scope", "same-domain",
                     "--scope-deny", R"(\.(jpg|png)$)", "--scope-deny",
                     "/private/", "--scope-max-query-params", "2",
                     "--scope-max-path-segments", "4"});
  }
  // SCOPE STATUS as a map.
  std::map<std::string, std::string> ScopeStatus() {
    return FieldMap(Cmd({"SCOPE", "STATUS"}));
  }
  // Waits (bounded) until the re-check has finished.
  ::testing::AssertionResult WaitForRecheck() {
    const auto deadline = std::chrono::steady_clock::now() + seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      if (ScopeStatus()["running"] == "0") return ::testing::AssertionSuccess();
      std::this_thread::sleep_for(milliseconds(20));
    }
    return ::testing::AssertionFailure() << "SCOPE RECHECK still running";
  }
};

TEST_F(ScopeTest, RepliesAndCountersByReason) {
  EXPECT_EQ(Cmd({"ADD", "http://www.example.com/a"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://other.org/a"}), Int(-2));            // host
  EXPECT_EQ(Cmd({"ADD", "http://example.com/x.jpg"}), Int(-2));      // deny
  EXPECT_EQ(Cmd({"ADD", "http://example.com/private/1"}), Int(-2));  // deny
  EXPECT_EQ(Cmd({"ADD", "http://example.com/?a=1&b=2&c=3"}), Int(-2));
  EXPECT_EQ(Cmd({"ADD", "http://example.com/1/2/3/4/5"}), Int(-2));
  // The depth limit still answers -1, and a known URL in scope 0.
  EXPECT_EQ(Cmd({"ADD", "http://www.example.com/a"}), Int(0));
  Reply madd = Cmd({"MADD", "http://www.example.com/a", "http://example.com/b",
                    "http://elsewhere.net/c", "http://example.com/c.png",
                    "http:// bad"});
  ASSERT_TRUE(madd.IsArray() && madd.elements.size() == 4) << madd;
  EXPECT_EQ(madd.elements[0], Int(1));
  EXPECT_EQ(madd.elements[1], Int(-2));
  EXPECT_EQ(madd.elements[2], Int(-2));
  EXPECT_TRUE(IsErrorStartingWith(madd.elements[3], "ERR invalid URL"));
  EXPECT_EQ(Cmd({"SEEN", "http://other.org/a"}), Int(0));
  EXPECT_EQ(Cmd({"SEEN", "http://elsewhere.net/c"}), Int(0));
  Counters s = Stats();
  EXPECT_EQ(s["urls"], 2);
  EXPECT_EQ(s["refused"], 0);
  EXPECT_EQ(s["scope_refused_host"], 2);
  EXPECT_EQ(s["scope_refused_deny"], 3);
  EXPECT_EQ(s["scope_refused_query"], 1);
  EXPECT_EQ(s["scope_refused_path"], 1);
  EXPECT_EQ(s["scope_refused_ref"], 0);
  EXPECT_EQ(s["scope_refused_allow"], 0);
  EXPECT_EQ(s["scope_removed"], 0);
  // INFO's frontier section carries the same counters.
  Reply info = Cmd({"INFO"});
  ASSERT_TRUE(info.IsString()) << info;
  EXPECT_NE(info.str.find("scope_refused_deny:3"), std::string::npos)
      << info.str;
}

TEST_F(ScopeTest, RefRuleSameDomain) {
  ASSERT_EQ(Cmd({"CONFIG", "SET", "scope-hosts", ""}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"MADD", "http://www.example.com/", "http://blog.example.com/1",
                 "http://other.org/2"}),
            Array({Int(1), Int(-2)}));
  // ADD with a ref follows the same rule; without one the rule does not
  // apply.
  EXPECT_EQ(Cmd({"ADD", "http://other.org/3", "http://example.com/"}),
            Int(-2));
  EXPECT_EQ(Cmd({"ADD", "http://other.org/3"}), Int(1));
  EXPECT_EQ(Stats()["scope_refused_ref"], 2);
}

TEST_F(ScopeTest, ConfigSetChangesTheScopeAndRefusesABadPattern) {
  EXPECT_EQ(Cmd({"CONFIG", "GET", "scope-deny"}),
            BulkArray({"scope-deny", R"(\.(jpg|png)$ /private/)"}));
  Reply bad = Cmd({"CONFIG", "SET", "scope-allow", "/docs/ (unclosed"});
  ASSERT_TRUE(IsErrorStartingWith(bad, "ERR CONFIG SET failed")) << bad;
  EXPECT_NE(bad.str.find("missing )"), std::string::npos) << bad;
  // Nothing changed, not even the part of the value that compiled.
  EXPECT_EQ(Cmd({"CONFIG", "GET", "scope-allow"}),
            BulkArray({"scope-allow", ""}));
  EXPECT_EQ(Cmd({"ADD", "http://example.com/blog"}), Int(1));
  EXPECT_TRUE(IsErrorStartingWith(
      Cmd({"CONFIG", "SET", "scope-hosts", "a..com"}), "ERR CONFIG SET failed"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"CONFIG", "SET", "scope", "planet"}),
                                  "ERR CONFIG SET failed"));

  ASSERT_EQ(Cmd({"CONFIG", "SET", "scope-allow", "^https?://[^/]+/docs/",
                 "scope-deny", "", "scope-hosts", "example.com, example.org"}),
            StatusReply("OK"));
  EXPECT_EQ(Cmd({"ADD", "http://example.org/docs/a.jpg"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://example.org/blog/b"}), Int(-2));
  EXPECT_EQ(Stats()["scope_refused_allow"], 1);
  EXPECT_EQ(Cmd({"CONFIG", "GET", "scope-hosts"}),
            BulkArray({"scope-hosts", "example.com example.org"}));
}

TEST(ScopeStartTest, ABadPatternStopsTheServerAtStart) {
  TempDir dir;
  ProcessResult r = RunProcess(
      {FrontierdBinary(), "--port", std::to_string(PickFreePort()), "--bind",
       "127.0.0.1", "--dir", dir.path() + "/data", "--scope-deny", "a(b"},
      "", seconds(10));
  ASSERT_FALSE(r.timed_out) << "frontierd started with a bad pattern";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("scope-deny"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing )"), std::string::npos) << r.err;
}

TEST_F(ScopeTest, RecheckRemovesQueuedUrlsAndSurvivesKillAndRestart) {
  ASSERT_EQ(Cmd({"CONFIG", "SET", "scope", "any"}), StatusReply("OK"));
  // 1,200 URLs: several slices of the re-check.
  std::vector<std::string> madd = {"MADD", "http://example.com/"};
  for (int i = 0; i < 1200; ++i) {
    madd.push_back("http://" +
                   std::string(i % 3 == 0 ? "old.example.com" : "example.com") +
                   "/p" + std::to_string(i));
  }
  Reply added = Cmd(madd);
  ASSERT_TRUE(added.IsArray()) << added;
  ASSERT_EQ(Stats()["queued"], 1200);

  // The scope narrows: new links first, queued ones on SCOPE RECHECK.
  ASSERT_EQ(Cmd({"CONFIG", "SET", "scope-deny", "^http://old\\."}),
            StatusReply("OK"));
  EXPECT_EQ(Cmd({"ADD", "http://old.example.com/new"}), Int(-2));
  EXPECT_EQ(Stats()["queued"], 1200);
  ASSERT_EQ(Cmd({"SCOPE", "RECHECK"}), StatusReply("OK"));
  ASSERT_TRUE(WaitForRecheck());
  auto status = ScopeStatus();
  EXPECT_EQ(status["examined"], "1200");
  EXPECT_EQ(status["removed"], "400");
  Counters s = Stats();
  EXPECT_EQ(s["urls"], 800);
  EXPECT_EQ(s["queued"], 800);
  EXPECT_EQ(s["scope_removed"], 400);
  EXPECT_EQ(Cmd({"SEEN", "http://old.example.com/p0"}), Int(0));
  EXPECT_EQ(Cmd({"SEEN", "http://example.com/p1"}), Int(1));

  // After kill -9 and a restart with the narrowed scope on the command
  // line, the removal holds and the last run's counts are kept exactly.
  server_->Kill9();
  ASSERT_TRUE(server_->Restart(ArgsWith({"--scope-deny", "^http://old\\."})));
  status = ScopeStatus();
  EXPECT_EQ(status["running"], "0");
  EXPECT_EQ(status["removed"], "400");
  s = Stats();
  EXPECT_EQ(s["urls"], 800);
  EXPECT_EQ(s["queued"], 800);
  // A re-check under the same scope removes nothing more.
  ASSERT_EQ(Cmd({"SCOPE", "RECHECK"}), StatusReply("OK"));
  ASSERT_TRUE(WaitForRecheck());
  EXPECT_EQ(ScopeStatus()["removed"], "0");
  EXPECT_EQ(Stats()["queued"], 800);
}

TEST_F(ScopeTest, BadSubcommandsAndHelp) {
  EXPECT_TRUE(
      IsErrorStartingWith(Cmd({"SCOPE", "NOPE"}), "ERR unknown subcommand"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"SCOPE", "RECHECK", "x"}),
                                  "ERR wrong number of arguments"));
  Reply help = Cmd({"SCOPE", "HELP"});
  ASSERT_TRUE(help.IsArray()) << help;
  EXPECT_FALSE(help.elements.empty());
}

}  // namespace
}  // namespace frontier::itest
