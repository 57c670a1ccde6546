// End to end: kill -9 of the server in the middle of a pipelined load from
// several clients, then a restart on the same dir, at random moments, over
// and over (`fsync always`). After every restart, everything a client got
// a reply for is there; at the end, no URL is lost or duplicated, no URL
// was handed out twice under a live lease, and every lease that a crash
// orphaned came back.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kCycles = 24;
constexpr int kWorkers = 4;
constexpr int kUniverse = 40000;  // distinct URLs the workers draw ADDs from
constexpr int kAddsPerBatch = 12;
constexpr int kPopCount = 4;
constexpr char kLease[] = "0.3";
// Two POPs of one URL are at least a lease apart in server time; a little
// is kept back for the millisecond rounding of the server's clock.
constexpr milliseconds kLeaseGap{290};

std::string UrlOf(int i) {
  return "http://s" + std::to_string(i % 61) + ".crash.test/p" +
         std::to_string(i);
}

enum class Op { kAdd, kPop, kConfirm, kFail, kRelease, kExtend };

// One command whose reply arrived. The server ran it somewhere in
// [sent, received].
struct Acked {
  Op op;
  std::string url;                  // all but POP
  std::vector<std::string> popped;  // POP
  long long result = 0;             // all but POP
  Clock::time_point sent, received;
};

struct WorkerLog {
  std::vector<Acked> acked;
  std::set<std::string> sent_adds;         // acknowledged or not
  // CONFIRM/FAIL/RELEASE sent, acked or not
  std::set<std::string> sent_resolutions;
  std::set<std::string> abandoned;  // popped, then dropped as by a dead crawler
  std::vector<std::string> unexpected;  // replies of the wrong shape
  std::atomic<size_t> answered{0};      // for the main thread to watch
};

// A crawler worker: pipelined batches of the CONFIRM/FAIL/RELEASE (some
// CONFIRMs after an EXTEND) of what it popped in the previous batch, some
// ADDs and a POP, until the connection dies.
void RunWorker(int port, uint64_t seed, const std::atomic<bool>& stop,
               WorkerLog* log) {
  Client c(port, seconds(10));
  if (!c.ok()) return;
  std::mt19937_64 rng(seed);
  std::vector<std::string> held;
  struct Sent {
    Op op;
    std::string url;
  };
  while (!stop.load()) {
    std::vector<Sent> batch;
    for (const std::string& u : held) {
      if (rng() % 10 == 0) {
        log->abandoned.insert(u);  // its lease must run out and return it
        continue;
      }
      log->sent_resolutions.insert(u);
      const uint64_t choice = rng() % 10;
      if (choice < 2) {
        c.Append({"FAIL", u, "DELAY", "3600"});  // out of the way for good
        batch.push_back({Op::kFail, u});
        continue;
      }
      if (choice == 2) {
        c.Append({"RELEASE", u, "DELAY", "3600"});  // the same, unfetched
        batch.push_back({Op::kRelease, u});
        continue;
      }
      if (choice == 3) {
        c.Append({"EXTEND", u, kLease});  // a long fetch, then its CONFIRM
        batch.push_back({Op::kExtend, u});
      }
      c.Append({"CONFIRM", u});
      batch.push_back({Op::kConfirm, u});
    }
    held.clear();
    for (int i = 0; i < kAddsPerBatch; ++i) {
      std::string u = UrlOf(static_cast<int>(rng() % kUniverse));
      log->sent_adds.insert(u);
      c.Append({"ADD", u});
      batch.push_back({Op::kAdd, u});
    }
    c.Append({"POP", "COUNT", std::to_string(kPopCount), "LEASE", kLease});
    batch.push_back({Op::kPop, ""});
    const Clock::time_point sent = Clock::now();  // the first read sends
    for (const Sent& s : batch) {
      Reply r = c.GetReply();
      if (r.IsIoError()) return;  // killed
      Acked a{s.op, s.url, {}, 0, sent, Clock::now()};
      bool ok;
      if (s.op == Op::kPop) {
        ok = r.IsArray();
        for (const Reply& e : r.elements) {
          ok = ok && e.IsString();
          a.popped.push_back(e.str);
          held.push_back(e.str);
        }
      } else {
        ok = r.IsInteger() && (r.integer == 0 || r.integer == 1);
        a.result = r.integer;
      }
      if (!ok) {
        log->unexpected.push_back(r.DebugString());
        continue;
      }
      log->acked.push_back(std::move(a));
      log->answered.fetch_add(1);
    }
  }
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t p = text.find(needle); p != std::string::npos;
       p = text.find(needle, p + 1)) {
    ++n;
  }
  return n;
}

class CrashLoopTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    // Checkpoints now and then, so that some kills land in one; attempts
    // never run out however often leases expire.
    args.insert(args.end(), {"--fsync", "always", "--max-attempts", "1000000",
                             "--checkpoint-interval", "0.2"});
    return args;
  }

  // URLINFO's state of each URL, pipelined on one connection.
  std::map<std::string, std::string> States(const std::set<std::string>& urls) {
    std::map<std::string, std::string> out;
    auto c = Connect(seconds(30));
    for (const std::string& u : urls) c->Append({"URLINFO", u});
    for (const std::string& u : urls) {
      auto fields = FieldMap(c->GetReply());
      out[u] = fields.count("state") ? fields["state"] : "(unknown)";
    }
    return out;
  }
};

TEST_F(CrashLoopTest, Kill9UnderPipelinedLoadLosesNothingAcknowledged) {
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t test_seed = rng();
  SCOPED_TRACE("seed " + std::to_string(test_seed));
  rng.seed(test_seed);

  std::vector<Acked> history;  // every acknowledged command, all cycles
  std::set<std::string> sent_adds, sent_resolutions, abandoned;
  Stopwatch total;

  for (int cycle = 0; cycle < kCycles; ++cycle) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    std::atomic<bool> stop{false};
    std::vector<WorkerLog> logs(kWorkers);
    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w) {
      workers.emplace_back(RunWorker, server_->port(), rng(), std::cref(stop),
                           &logs[w]);
    }
    // Let the load get going, then kill at a random moment of it.
    Stopwatch watch;
    auto acked = [&] {
      size_t n = 0;
      for (const WorkerLog& l : logs) n += l.answered.load();
      return n;
    };
    while (acked() < 40 && watch.Elapsed() < seconds(5)) {
      std::this_thread::sleep_for(milliseconds(1));
    }
    std::this_thread::sleep_for(milliseconds(rng() % 150));
    server_->Kill9();
    stop = true;
    for (std::thread& t : workers) t.join();

    std::vector<Acked> cycle_acked;
    for (WorkerLog& l : logs) {
      EXPECT_TRUE(l.unexpected.empty())
          << "unexpected replies, e.g. " << l.unexpected.front();
      sent_adds.insert(l.sent_adds.begin(), l.sent_adds.end());
      sent_resolutions.insert(l.sent_resolutions.begin(),
                              l.sent_resolutions.end());
      abandoned.insert(l.abandoned.begin(), l.abandoned.end());
      for (Acked& a : l.acked) cycle_acked.push_back(std::move(a));
    }
    ASSERT_FALSE(cycle_acked.empty()) << "no command was answered";

    ASSERT_TRUE(server_->Restart());
    // What this cycle's clients were told is there.
    std::set<std::string> check;
    for (const Acked& a : cycle_acked) {
      if (a.op != Op::kPop) check.insert(a.url);
    }
    auto states = States(check);
    for (const Acked& a : cycle_acked) {
      const std::string& state = states[a.url];
      if (a.op == Op::kAdd) {
        EXPECT_NE(state, "(unknown)") << "acknowledged ADD lost: " << a.url;
      } else if (a.op == Op::kConfirm && a.result == 1) {
        EXPECT_EQ(state, "done") << "acknowledged CONFIRM lost: " << a.url;
      } else if ((a.op == Op::kFail || a.op == Op::kRelease) &&
                 a.result == 1) {
        // A worker whose lease had run out may still CONFIRM it after.
        EXPECT_TRUE(state == "scheduled" || state == "done")
            << "acknowledged FAIL/RELEASE lost: " << a.url << " is " << state;
      }
    }
    history.insert(history.end(), cycle_acked.begin(), cycle_acked.end());
    if (HasFailure()) return;
  }
  EXPECT_EQ(CountOccurrences(ReadFile(server_->log_path()), "recovery took"),
            kCycles + 1)
      << "every start logs its recovery time";

  // A client retries what never got a reply: then every URL ever sent is
  // acknowledged, and the frontier holds each exactly once.
  {
    auto c = Connect(seconds(30));
    for (const std::string& u : sent_adds) c->Append({"ADD", u});
    for (const std::string& u : sent_adds) {
      Reply r = c->GetReply();
      ASSERT_TRUE(r == Int(0) || r == Int(1)) << u << ": " << r;
    }
  }
  auto stats = Stats();
  EXPECT_EQ(stats["urls"], static_cast<long long>(sent_adds.size()))
      << "URLs lost or stored twice";

  std::set<std::string> worker_popped;
  for (const Acked& a : history) {
    worker_popped.insert(a.popped.begin(), a.popped.end());
  }

  // Drain: every URL that is queued or leased (leases orphaned by a crash
  // run out after 0.3 s) comes out exactly once.
  std::multiset<std::string> drained;
  {
    auto c = Connect(seconds(30));
    Stopwatch watch;
    while (watch.Elapsed() < seconds(20)) {
      const Clock::time_point sent = Clock::now();
      Reply r = c->Cmd({"POP", "COUNT", "500", "LEASE", "600"});
      ASSERT_TRUE(r.IsArray()) << r;
      Acked a{Op::kPop, "", {}, 0, sent, Clock::now()};
      for (const Reply& e : r.elements) {
        drained.insert(e.str);
        a.popped.push_back(e.str);
        c->Append({"CONFIRM", e.str});
      }
      for (size_t i = 0; i < r.elements.size(); ++i) {
        ASSERT_EQ(c->GetReply(), Int(1));
      }
      if (!a.popped.empty()) {
        history.push_back(std::move(a));
        continue;
      }
      auto s = Stats();
      if (s["queued"] == 0 && s["leased"] == 0) break;
      std::this_thread::sleep_for(milliseconds(20));
    }
  }
  stats = Stats();
  EXPECT_EQ(stats["queued"], 0);
  EXPECT_EQ(stats["leased"], 0) << "a lease never ran out";
  EXPECT_EQ(stats["done"] + stats["scheduled"], stats["urls"]);
  for (const std::string& u : drained) {
    EXPECT_EQ(drained.count(u), 1u) << u << " drained twice";
  }

  // No URL was handed out twice under a live lease: two POPs of one URL
  // are at least a lease apart, whatever crashes came between.
  std::map<std::string, std::vector<const Acked*>> pops;
  for (const Acked& a : history) {
    for (const std::string& u : a.popped) pops[u].push_back(&a);
  }
  int double_leases = 0;
  for (const auto& [url, list] : pops) {
    for (size_t i = 0; i < list.size(); ++i) {
      for (size_t j = i + 1; j < list.size(); ++j) {
        const Acked& x = *list[i];
        const Acked& y = *list[j];
        const auto widest = std::max(y.received - x.sent, x.received - y.sent);
        if (widest < kLeaseGap && ++double_leases <= 5) {
          ADD_FAILURE()
              << url << " popped twice within "
              << std::chrono::duration_cast<milliseconds>(widest).count()
              << " ms";
        }
      }
    }
  }
  EXPECT_EQ(double_leases, 0);

  // Every lease that a crash or a dead crawler left behind came back: a
  // URL popped and never resolved (no CONFIRM or FAIL even sent) was
  // popped again later, by a worker or by the drain.
  size_t orphaned = 0, repopped = 0;
  for (const auto& [url, list] : pops) {
    if (list.size() > 1) ++repopped;
    if (worker_popped.count(url) == 0 || sent_resolutions.count(url) != 0) {
      continue;
    }
    ++orphaned;
    if (drained.count(url) == 0) {
      ADD_FAILURE() << url << " was leased, never resolved, and never "
                    << "came back";
    }
  }
  for (const std::string& url : abandoned) {
    EXPECT_GE(pops[url].size(), 2u)
        << url << " was abandoned under a lease and never popped again";
  }
  std::cerr << "crash loop: " << kCycles << " cycles, " << history.size()
            << " acknowledged commands, " << sent_adds.size() << " URLs, "
            << drained.size() << " drained, " << repopped
            << " popped again after a lease ran out, " << orphaned
            << " never resolved, " << abandoned.size() << " abandoned, "
            << total.Elapsed().count() << " ms\n";
}

}  // namespace
}  // namespace frontier::itest
