#include "powerloss/cut_loop.h"

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "powerloss/load.h"
#include "powerloss/materialise.h"
#include "support/frontierd_process.h"

namespace frontier::powerloss {

namespace {

namespace fs = std::filesystem;
using itest::FieldMap;
using itest::FrontierdProcess;
using itest::Reply;
using std::chrono::milliseconds;

constexpr int kClients = 2;
constexpr int kMaxBatches = 40;  // per client and cycle
// Log files of 256 KiB (Berkeley DB reads DB_CONFIG from the data
// directory, and it overrides set_lg_max), so that rotations and the
// removal of old files after checkpoints happen within a cycle.
constexpr char kDbConfig[] = "set_lg_max 262144\nset_lg_bsize 65536\n";

// What every acknowledged write so far promises about the recovered state.
struct Expected {
  std::map<std::string, Clock::time_point> known;      // ADD/MADD
  std::map<std::string, Clock::time_point> done;       // CONFIRM 1
  std::map<std::string, Clock::time_point> scheduled;  // FAIL/RELEASE 1
  std::map<std::string, Clock::time_point> leased;     // POP, unresolved
  std::map<std::string, Clock::time_point> blocked;    // SITE BLOCK
  std::map<std::string, Clock::time_point> robots;     // ROBOTS SET
  std::set<std::string> all_urls;                      // ever sent
  std::set<std::string> resolutions;                   // ever sent
};

void Fold(const ClientLog& log, Expected* e) {
  e->all_urls.insert(log.sent_urls.begin(), log.sent_urls.end());
  e->resolutions.insert(log.sent_resolutions.begin(),
                        log.sent_resolutions.end());
  for (const Acked& a : log.acked) {
    switch (a.kind) {
      case Kind::kAdd:
        e->known.emplace(a.key, a.received);
        break;
      case Kind::kPop:
        for (const std::string& u : a.popped) e->leased[u] = a.received;
        break;
      case Kind::kConfirm:
        if (a.result == 1) e->done[a.key] = a.received;
        break;
      case Kind::kFail:
      case Kind::kRelease:
        if (a.result == 1) e->scheduled[a.key] = a.received;
        break;
      case Kind::kBlock:
        e->blocked[a.key] = a.received;
        break;
      case Kind::kRobots:
        e->robots[a.key] = a.received;
        break;
      case Kind::kExtend:
        break;
    }
  }
  // A lease is only promised while nothing was sent to end it.
  for (const std::string& u : e->resolutions) e->leased.erase(u);
}

// The trigger for cycle `cycle`: "" for a cut at a random moment.
std::string PickTrigger(int cycle, std::mt19937_64& rng) {
  switch (cycle % 6) {
    case 1:  // checkpoints and write-behind: pages of the *.db files
      return "data-write:" + std::to_string(1 + rng() % 40);
    case 2:  // log rotation: just before a new log file is created
      return "log-create:" + std::to_string(1 + rng() % 2);
    case 3:  // log removal after a checkpoint
      return "unlink:" + std::to_string(1 + rng() % 2);
    case 4:  // between syncs (log, data files, directory)
      return "sync:" + std::to_string(5 + rng() % 60);
    case 5:
      return "dir-sync:1";
    default:
      return "";
  }
}

std::string Name(const std::string& trigger) {
  return trigger.empty() ? "random moment" : trigger;
}

// Pipelined URLINFO of `urls`: url -> state ("" = unknown).
std::map<std::string, std::string> States(FrontierdProcess& server,
                                          const std::set<std::string>& urls) {
  std::map<std::string, std::string> out;
  auto c = server.Connect(std::chrono::seconds(30));
  std::vector<std::string> order(urls.begin(), urls.end());
  for (size_t i = 0; i < order.size(); i += 1000) {
    const size_t end = std::min(order.size(), i + 1000);
    for (size_t j = i; j < end; ++j) c->Append({"URLINFO", order[j]});
    for (size_t j = i; j < end; ++j) {
      auto fields = FieldMap(c->GetReply());
      out[order[j]] = fields.count("state") ? fields["state"] : "";
    }
  }
  return out;
}

class Cycle {
 public:
  Cycle(const CutLoopOptions& o, CutLoopResult* r, Expected* e)
      : o_(o), r_(r), e_(e) {}

  // Checks the recovered server against everything acknowledged; records
  // losses (and, with a window, forgets what the window allowed to lose).
  void Check(FrontierdProcess& server, Clock::time_point cut, bool recount) {
    std::set<std::string> urls;
    for (auto* m : {&e_->known, &e_->done, &e_->scheduled, &e_->leased}) {
      for (const auto& [u, t] : *m) urls.insert(u);
    }
    if (recount) urls.insert(e_->all_urls.begin(), e_->all_urls.end());
    auto states = States(server, urls);
    bool lost = false;
    auto judge = [&](std::map<std::string, Clock::time_point>* m,
                     const std::string& what, auto holds) {
      for (auto it = m->begin(); it != m->end();) {
        if (holds(it->first)) {
          ++it;
          continue;
        }
        const auto age =
            std::chrono::duration_cast<milliseconds>(cut - it->second);
        if (o_.loss_window.count() > 0 && age <= o_.loss_window) {
          ++r_->lost_in_window;
          r_->oldest_lost_in_window = std::max(r_->oldest_lost_in_window, age);
        } else {
          lost = true;
          if (r_->losses.size() < 20) {
            r_->losses.push_back("cycle " + std::to_string(r_->cycles) +
                                 ": acknowledged " + what + " lost: " +
                                 it->first + " (reply " +
                                 std::to_string(age.count()) +
                                 " ms before the cut)");
          }
        }
        it = m->erase(it);
      }
    };
    judge(&e_->known, "ADD", [&](const std::string& u) {
      return !states[u].empty();
    });
    judge(&e_->done, "CONFIRM", [&](const std::string& u) {
      return states[u] == "done";
    });
    judge(&e_->scheduled, "FAIL/RELEASE", [&](const std::string& u) {
      return states[u] == "scheduled" || states[u] == "dead" ||
             states[u] == "done";
    });
    judge(&e_->leased, "POP (live lease)", [&](const std::string& u) {
      return states[u] == "leased";
    });
    auto c = server.Connect(std::chrono::seconds(30));
    judge(&e_->blocked, "SITE BLOCK", [&](const std::string& site) {
      auto f = FieldMap(c->Cmd({"SITE", "INFO", site}));
      return f.count("blocked-until") && f["blocked-until"] != "0";
    });
    judge(&e_->robots, "ROBOTS SET", [&](const std::string& origin) {
      auto f = FieldMap(c->Cmd({"ROBOTS", "GET", origin}));
      return f.count("state") && f["state"] == "ok";
    });
    if (lost) ++r_->cycles_with_loss;
    if (!recount) return;
    std::map<std::string, long long> counted;
    for (const auto& [u, state] : states) {
      if (state.empty()) continue;
      ++counted["urls"];
      ++counted[state];
    }
    auto stats = FieldMap(c->Cmd({"STATS"}));
    for (const char* k : {"urls", "queued", "leased", "done", "scheduled",
                          "dead"}) {
      if (stats[k] != std::to_string(counted[k])) {
        r_->errors.push_back("cycle " + std::to_string(r_->cycles) +
                             ": STATS " + k + " " + stats[k] +
                             " but a recount finds " +
                             std::to_string(counted[k]));
      }
    }
  }

 private:
  const CutLoopOptions& o_;
  CutLoopResult* r_;
  Expected* e_;
};

}  // namespace

CutLoopResult RunCutLoop(const CutLoopOptions& o) {
  CutLoopResult result;
  Expected expected;
  std::mt19937_64 rng(o.seed);
  itest::TempDir tmp;
  const fs::path root = tmp.path();
  fs::path base = root / "base0";
  fs::create_directories(base);
  std::ofstream(base / "DB_CONFIG") << kDbConfig;
  const std::vector<std::string> args = {
      "--politeness-delay", "0",    "--site-max-leases", "0",
      "--timer-ms",         "10",   "--fsync",           o.fsync,
      "--checkpoint-interval", o.checkpoint_interval, "--max-attempts",  "1000000",
      "--cache-size",       "8mb"};
  for (int cycle = 0; cycle < o.cycles; ++cycle) {
    result.cycles = cycle + 1;
    const std::string n = std::to_string(cycle);
    const fs::path run = root / ("run" + n);
    const fs::path trace = root / ("trace" + n);
    const fs::path arm = root / ("arm" + n);
    const fs::path copy = root / ("base" + std::to_string(cycle + 1));
    fs::copy(base, run);
    const std::string trigger = PickTrigger(cycle, rng);

    // The traced run, cut by its trigger or at a random moment.
    std::vector<std::string> env = {"LD_PRELOAD=" + o.preload,
                                    "POWERLOSS_DIR=" + run.string(),
                                    "POWERLOSS_TRACE=" + trace.string(),
                                    "POWERLOSS_ARM=" + arm.string()};
    if (!trigger.empty()) env.push_back("POWERLOSS_KILL=" + trigger);
    std::vector<std::string> dir_args = args;
    dir_args.insert(dir_args.end(), {"--dir", run.string()});
    auto traced = std::make_unique<FrontierdProcess>(dir_args);
    traced->set_binary(o.traced_binary);
    traced->set_environment(env);
    if (!traced->Start()) {
      result.errors.push_back("cycle " + n + ": the traced server did not "
                              "start: " + traced->Logs());
      return result;
    }
    std::ofstream(arm) << "armed";
    std::atomic<bool> stop{false};
    std::vector<std::unique_ptr<ClientLog>> logs;
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      logs.push_back(std::make_unique<ClientLog>());
      clients.emplace_back(RunClient, traced->port(),
                           "c" + n + "w" + std::to_string(c), rng(),
                           kMaxBatches, std::cref(stop), logs.back().get());
    }
    // A random moment of the load; a trigger that has not fired by the
    // end of the load becomes a cut at that moment.
    const auto deadline =
        Clock::now() + milliseconds(trigger.empty() ? 20 + rng() % 400 : 3000);
    bool died = false;
    while (Clock::now() < deadline) {
      if (traced->WaitForExit(milliseconds(5)) != -1) {
        died = true;
        break;
      }
    }
    const Clock::time_point cut = Clock::now();
    if (!died) traced->Kill9();
    stop = true;
    for (auto& t : clients) t.join();
    ++result.cuts[died ? Name(trigger) : "random moment"];
    for (auto& l : logs) {
      for (const std::string& u : l->unexpected) {
        result.errors.push_back("cycle " + n + ": unexpected reply " + u);
      }
      result.acknowledged += l->acked.size();
      Fold(*l, &expected);
    }

    // The disk as it was, and a fresh server on it.
    fs::create_directories(copy);
    MaterialiseOptions mo;
    mo.landing = cycle % 3 == 0 || o.only_synced ? Landing::kSyncedOnly
                 : cycle % 3 == 1 ? Landing::kPrefix
                                  : Landing::kSubset;
    mo.seed = rng();
    mo.dirs = o.dirs;
    TraceSummary summary;
    const std::string err =
        Materialise(base.string(), trace.string(), copy.string(), mo, &summary);
    if (!err.empty()) {
      result.errors.push_back("cycle " + n + ": " + err);
      return result;
    }
    std::vector<std::string> check_args = args;
    check_args.insert(check_args.end(), {"--dir", copy.string()});
    FrontierdProcess check(check_args);
    check.set_binary(o.check_binary);
    if (!check.Start()) {
      result.errors.push_back("cycle " + n + ": recovery failed after a cut at " +
                              Name(trigger) + ":\n" + check.Logs());
      return result;
    }
    const bool recount = cycle % 5 == 4 || cycle + 1 == o.cycles;
    const int losses_before = result.cycles_with_loss;
    Cycle(o, &result, &expected).Check(check, cut, recount);
    // POWERLOSS_KEEP=dir keeps the first cycle that lost something (its
    // base, trace and copy) for a person to look into.
    const char* keep = std::getenv("POWERLOSS_KEEP");
    if (keep != nullptr && losses_before == 0 && result.cycles_with_loss > 0) {
      std::error_code ec;
      fs::create_directories(keep, ec);
      fs::copy(base, fs::path(keep) / "base", fs::copy_options::recursive, ec);
      fs::copy(trace, fs::path(keep) / "trace", ec);
      fs::copy(copy, fs::path(keep) / "copy", fs::copy_options::recursive, ec);
      std::ofstream(fs::path(keep) / "cycle")
          << "cycle " << cycle << " cut at " << Name(trigger) << " landing "
          << cycle % 3 << "\n";
    }
    if (check.Stop() != 0) {
      result.errors.push_back("cycle " + n + ": the check server did not "
                              "stop cleanly:\n" + check.Logs());
      return result;
    }
    std::error_code ec;
    fs::remove_all(run, ec);
    fs::remove(trace, ec);
    fs::remove_all(base, ec);
    base = copy;
    if (o.stop_at_first_loss && result.cycles_with_loss > 0) break;
  }
  return result;
}

}  // namespace frontier::powerloss
