// The site journal's crash points (storage/journal.h, docs/design.md "The
// site journal"), end to end: frontierd_faults dies as by kill -9 at a
// point of the journal (a transaction's journal record in the log without
// its commit; a write-back slice just committed; a checkpoint's move of
// the leases held in memory to Qc just committed; the open's replay done,
// before and after it is written back) under a pipelined ADD/POP/CONFIRM load, then starts again
// on the same directory. After each start: every acknowledged ADD and
// CONFIRM is there, and STATS (built from the site records) equals a
// recount of the URLs by state.
#include <chrono>
#include <map>
#include <thread>
#include <set>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kCycles = 5;  // per crash point
// A cycle's bound if the point is not reached: write-back slices come
// once a second.
constexpr auto kMaxDrive = std::chrono::seconds(8);
constexpr int kAddsPerBatch = 4;

struct Acked {
  std::set<std::string> adds, confirms;
};

class JournalCrashTest : public FrontierdTest {
 protected:
  bool AutoStart() const override { return false; }

  void StartWith(const std::string& point, int after) {
    server_->set_environment({"FRONTIERD_CRASH_AT=" + point,
                              "FRONTIERD_CRASH_AFTER=" + std::to_string(after)});
  }

  // Pipelined batches of ADDs, a POP and the CONFIRMs of the previous
  // POP, until a reply does not come (the server died at its point).
  void Drive() {
    auto c = server_->Connect(seconds(5));
    ASSERT_TRUE(c->ok());
    std::vector<std::string> to_confirm;
    const auto end = std::chrono::steady_clock::now() + kMaxDrive;
    while (std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(milliseconds(5));
      std::vector<std::vector<std::string>> cmds;
      for (int i = 0; i < kAddsPerBatch; ++i, ++next_) {
        cmds.push_back({"ADD", "http://s" + std::to_string(next_ % 7) +
                                   ".jcrash.test/p" + std::to_string(next_)});
      }
      for (const std::string& url : to_confirm) cmds.push_back({"CONFIRM", url});
      cmds.push_back({"POP", "COUNT", "4", "LEASE", "600"});
      for (const auto& cmd : cmds) c->Append(cmd);
      to_confirm.clear();
      for (const auto& cmd : cmds) {
        Reply r = c->GetReply();
        if (r.IsIoError()) return;  // died
        if (cmd[0] == "ADD" && r == Int(1)) acked_.adds.insert(cmd[1]);
        if (cmd[0] == "CONFIRM" && r == Int(1)) acked_.confirms.insert(cmd[1]);
        if (cmd[0] == "POP" && r.IsArray()) {
          for (const Reply& u : r.elements) to_confirm.push_back(u.str);
        }
      }
    }
  }

  // Everything acknowledged is there, and STATS equals a recount.
  void Check(const std::string& when) {
    auto c = server_->Connect(seconds(10));
    ASSERT_TRUE(c->ok());
    // Every URL stored, and the state of each (pipelined).
    std::map<std::string, std::string> state;  // url -> state
    std::string cursor = "0";
    for (int page = 0; page < 10'000; ++page) {
      Reply r = c->Cmd({"URLS", "CURSOR", cursor, "COUNT", "1000"});
      ASSERT_TRUE(r.IsArray() && r.elements.size() == 2) << when << r;
      for (const Reply& u : r.elements[1].elements) {
        c->Append({"URLINFO", u.str});
      }
      for (const Reply& u : r.elements[1].elements) {
        const auto info = FieldMap(c->GetReply());
        state[u.str] = info.count("state") ? info.at("state") : "?";
      }
      cursor = r.elements[0].str;
      if (cursor == "0") break;
    }
    std::map<std::string, long long> by_state;
    for (const auto& [url, st] : state) by_state[st]++;
    for (const std::string& url : acked_.adds) {
      ASSERT_TRUE(state.contains(url)) << when << " " << url;
    }
    for (const std::string& url : acked_.confirms) {
      ASSERT_EQ(state[url], "done") << when << " " << url;
    }
    const long long urls = static_cast<long long>(state.size());
    Counters st = Stats();
    EXPECT_EQ(st["urls"], urls) << when;
    EXPECT_EQ(st["queued"], by_state["queued"]) << when;
    EXPECT_EQ(st["leased"], by_state["leased"]) << when;
    EXPECT_EQ(st["done"], by_state["done"]) << when;
  }

  Acked acked_;
  int next_ = 0;
};

TEST_F(JournalCrashTest, EveryCrashPointKeepsWhatWasAcknowledged) {
  // Checkpoints once a second: each moves the leases held in memory to
  // Qc (the point "leases-spilled").
  std::vector<std::string> args = DefaultTestArgs();
  args.insert(args.end(), {"--checkpoint-interval", "1"});
  server_ = std::make_unique<FrontierdProcess>(args);
  server_->set_binary(FRONTIERD_FAULTS_BIN);
  ASSERT_TRUE(server_->Start());
  int hits = 0;
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    for (const char* point : {"journaled", "written-back", "leases-spilled"}) {
      const std::string when =
          std::string(point) + " cycle " + std::to_string(cycle);
      server_->Kill9();
      // Past the transactions of the start itself.
      StartWith(point, std::string(point) == "journaled" ? 3 + cycle % 3
                                                         : 1 + cycle % 2);
      ASSERT_TRUE(server_->Restart()) << when;
      Drive();
      if (HasFatalFailure()) return;
      if (server_->WaitForExit(seconds(10)) == 137) hits++;
      server_->Kill9();  // if the point was not reached
      // Right after the recovery of that crash, again: before the replay
      // is written back every start of Restart()'s attempts dies there;
      // just after it, the first attempt dies and the next, with nothing
      // left to replay, serves.
      StartWith("replaying", 1);
      EXPECT_FALSE(server_->Restart()) << when;
      StartWith("replayed", 1);
      ASSERT_TRUE(server_->Restart()) << when;
      Check(when);
      if (HasFailure()) return;
    }
  }
  // Each point was reached (not every cycle's bound ran out first).
  EXPECT_GE(hits, kCycles * 3 - 3);
}

}  // namespace
}  // namespace frontier::itest
