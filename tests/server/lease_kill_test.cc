// Leases held in memory and journaled (storage/lease_table.h, docs/
// design.md "Leases in memory"), end to end: pipelined POP/CONFIRM/FAIL/
// EXTEND/RELEASE with 2 s leases, `checkpoint-interval 1` and a 0.5 s
// politeness delay, kill -9 at a random moment, a restart on the same
// directory, over and over. After each restart: every acknowledged CONFIRM
// is done; every acknowledged live lease is there (leased, with the
// deadline its POP or EXTEND set) and no POP hands its URL out; no site is
// popped before its delay; the leases the crash caught run out at their
// deadlines; STATS equals a recount of the URLs by state.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

constexpr int kCycles = 10;
constexpr int kSites = 8;
constexpr int kUrlsPerSite = 150;
constexpr long long kLeaseMs = 2000;
constexpr long long kDelayMs = 500;
// The server's clock is read in whole milliseconds.
constexpr long long kSlackMs = 2;

using std::chrono::milliseconds;
using std::chrono::seconds;

// The server's clock: wall time in milliseconds.
long long WallMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string SiteOf(const std::string& url) {
  const size_t start = url.find("//") + 2;
  return url.substr(start, url.find('/', start) - start);
}

// What the driver saw acknowledged.
struct Seen {
  // URL -> [earliest, latest] deadline of its last acknowledged POP or
  // EXTEND, while no later command on it was sent.
  std::map<std::string, std::pair<long long, long long>> live;
  std::set<std::string> confirmed;     // acknowledged CONFIRMs
  std::map<std::string, long long> popped_at;  // site -> last POP sent
};

class LeaseKillTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--politeness-delay", "0.5", "--site-max-leases", "0",
            "--timer-ms", "10", "--fsync", "always", "--checkpoint-interval",
            "1", "--max-attempts", "1000000"};
  }

  // Pipelined batches: the previous POP's URLs resolved (CONFIRM, FAIL,
  // RELEASE, EXTEND and hold, or abandon), then a POP, until `stop` or
  // the connection dies.
  void Drive(std::mt19937_64* rng, const std::atomic<bool>& stop, Seen* seen) {
    Client c(server_->port(), seconds(10));
    if (!c.ok()) return;
    std::vector<std::string> held;
    struct Sent {
      std::string cmd, url;
    };
    while (!stop.load()) {
      std::vector<Sent> batch;
      std::vector<std::string> keep;
      for (const std::string& u : held) {
        const uint64_t choice = (*rng)() % 10;
        std::string cmd = choice < 5 ? "CONFIRM"
                          : choice < 6 ? "FAIL"
                          : choice < 7 ? "RELEASE"
                          : choice < 9 ? "EXTEND"
                                       : "";
        if (cmd.empty()) continue;  // abandoned: its lease runs out
        seen->live.erase(u);  // a command on it goes out: no longer known
        if (cmd == "EXTEND") {
          c.Append({cmd, u, "2"});
          keep.push_back(u);
        } else {
          c.Append({cmd, u});
        }
        batch.push_back({cmd, u});
      }
      c.Append({"POP", "COUNT", "4", "LEASE", "2"});
      batch.push_back({"POP", ""});
      const long long sent = WallMs();
      held.clear();
      for (const Sent& s : batch) {
        Reply r = c.GetReply();
        if (r.IsIoError()) return;  // killed
        const long long received = WallMs();
        if (s.cmd == "POP") {
          for (const Reply& e : r.elements) {
            held.push_back(e.str);
            seen->live[e.str] = {sent + kLeaseMs, received + kLeaseMs};
            seen->popped_at[SiteOf(e.str)] = sent;
          }
        } else if (s.cmd == "CONFIRM" && r == Int(1)) {
          seen->confirmed.insert(s.url);
        } else if (s.cmd == "EXTEND" && r == Int(1)) {
          seen->live[s.url] = {sent + kLeaseMs, received + kLeaseMs};
        }
      }
      held.insert(held.end(), keep.begin(), keep.end());
      std::this_thread::sleep_for(milliseconds(20));
    }
  }

  void Check(const Seen& seen, const std::string& when) {
    auto c = server_->Connect(seconds(10));
    ASSERT_TRUE(c->ok());
    // First a POP: none of its URLs is under a live lease, none of its
    // sites within its delay of the last POP.
    const long long sent = WallMs();
    Reply popped = c->Cmd({"POP", "COUNT", "100", "LEASE", "2"});
    const long long received = WallMs();
    ASSERT_TRUE(popped.IsArray()) << when << popped;
    std::map<std::string, std::map<std::string, std::string>> info;
    for (const auto& [url, deadline] : seen.live) {
      info[url] = FieldMap(c->Cmd({"URLINFO", url}));
    }
    for (const Reply& u : popped.elements) {
      auto it = seen.live.find(u.str);
      if (it != seen.live.end()) {
        EXPECT_GT(sent + kSlackMs, it->second.first)
            << when << ": " << u.str << " popped under a live lease";
      }
      auto at = seen.popped_at.find(SiteOf(u.str));
      if (at != seen.popped_at.end()) {
        EXPECT_GE(received + kSlackMs, at->second + kDelayMs)
            << when << ": " << SiteOf(u.str) << " popped before its delay";
      }
    }
    // Every live lease still leased, with its deadline (unless it ran
    // out meanwhile).
    for (const auto& [url, deadline] : seen.live) {
      if (deadline.first <= sent + kSlackMs) continue;
      auto& f = info[url];
      EXPECT_EQ(f["state"], "leased") << when << " " << url;
      // "seconds.milliseconds"
      const long long due = std::llround(std::atof(f["due"].c_str()) * 1000);
      if (f.count("due")) {
        EXPECT_GE(due + kSlackMs, deadline.first) << when << " " << url;
        EXPECT_LE(due, deadline.second + kSlackMs) << when << " " << url;
      }
    }
    // Past their deadlines the leases ran out (the server's timer), but
    // those the POP above took again.
    std::set<std::string> popped_now;
    for (const Reply& u : popped.elements) popped_now.insert(u.str);
    long long last = 0;
    for (const auto& [url, deadline] : seen.live) {
      last = std::max(last, deadline.second);
    }
    if (last > 0) {
      std::this_thread::sleep_for(milliseconds(last - WallMs() + 300));
    }
    for (const auto& [url, deadline] : seen.live) {
      if (popped_now.contains(url)) continue;
      EXPECT_NE(FieldMap(c->Cmd({"URLINFO", url}))["state"], "leased")
          << when << ": the lease of " << url << " never ran out";
    }
    for (const std::string& url : seen.confirmed) {
      EXPECT_EQ(FieldMap(c->Cmd({"URLINFO", url}))["state"], "done")
          << when << " " << url;
    }
    // STATS equals a recount.
    std::map<std::string, long long> by_state;
    long long urls = 0;
    std::string cursor = "0";
    for (int page = 0; page < 1000; ++page) {
      Reply r = c->Cmd({"URLS", "CURSOR", cursor, "COUNT", "1000"});
      ASSERT_TRUE(r.IsArray() && r.elements.size() == 2) << when << r;
      for (const Reply& u : r.elements[1].elements) {
        c->Append({"URLINFO", u.str});
      }
      for (size_t i = 0; i < r.elements[1].elements.size(); ++i) {
        by_state[FieldMap(c->GetReply())["state"]]++;
        urls++;
      }
      cursor = r.elements[0].str;
      if (cursor == "0") break;
    }
    Counters st = Stats();
    EXPECT_EQ(st["urls"], urls) << when;
    EXPECT_EQ(st["queued"], by_state["queued"]) << when;
    EXPECT_EQ(st["leased"], by_state["leased"]) << when;
    EXPECT_EQ(st["done"], by_state["done"]) << when;
  }
};

TEST_F(LeaseKillTest, Kill9KeepsLiveLeasesTheirDeadlinesAndDelays) {
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t seed = rng();
  SCOPED_TRACE("seed " + std::to_string(seed));
  rng.seed(seed);
  {
    auto c = server_->Connect(seconds(10));
    for (int i = 0; i < kSites * kUrlsPerSite; ++i) {
      c->Append({"ADD", "http://s" + std::to_string(i % kSites) +
                            ".leasekill.test/p" + std::to_string(i)});
    }
    for (int i = 0; i < kSites * kUrlsPerSite; ++i) c->GetReply();
  }
  const auto start = std::chrono::steady_clock::now();
  int live_checked = 0;
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    const std::string when = "cycle " + std::to_string(cycle);
    Seen seen;
    std::atomic<bool> stop{false};
    std::thread driver([&] { Drive(&rng, stop, &seen); });
    std::this_thread::sleep_for(milliseconds(300 + rng() % 2000));
    server_->Kill9();
    stop.store(true);
    driver.join();
    ASSERT_TRUE(server_->Restart()) << when;
    live_checked += static_cast<int>(seen.live.size());
    Check(seen, when);
    if (HasFailure()) return;
    // Bounded in time as well as in cycles.
    if (std::chrono::steady_clock::now() - start > seconds(50)) break;
  }
  // The check had live leases to look at.
  EXPECT_GT(live_checked, 0);
}

}  // namespace
}  // namespace frontier::itest
