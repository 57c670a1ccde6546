#include "powerloss/load.h"

#include <random>

#include "support/frontierd_process.h"

namespace frontier::powerloss {

using itest::Client;
using itest::Reply;

void RunClient(int port, const std::string& tag, uint64_t seed,
               int max_batches, const std::atomic<bool>& stop,
               ClientLog* log) {
  Client c(port, std::chrono::seconds(10));
  if (!c.ok()) return;
  std::mt19937_64 rng(seed);
  uint64_t n = 0;
  auto fresh_url = [&] {
    ++n;
    return "http://s" + std::to_string(rng() % 7) + "." + tag +
           ".pl.test/p" + std::to_string(n);
  };
  std::vector<std::string> held;  // popped in the previous batch
  struct Sent {
    Kind kind;
    std::string key;
  };
  for (int batch = 0; batch < max_batches && !stop.load(); ++batch) {
    std::vector<Sent> sent;
    for (const std::string& u : held) {
      const uint64_t choice = rng() % 6;
      if (choice == 0) continue;  // kept: its lease must survive
      log->sent_resolutions.insert(u);
      if (choice == 1) {
        c.Append({"FAIL", u, "DELAY", "3600"});
        sent.push_back({Kind::kFail, u});
      } else if (choice == 2) {
        c.Append({"RELEASE", u, "DELAY", "3600"});
        sent.push_back({Kind::kRelease, u});
      } else {
        if (choice == 3) {
          c.Append({"EXTEND", u, "7200"});
          sent.push_back({Kind::kExtend, u});
        }
        c.Append({"CONFIRM", u});
        sent.push_back({Kind::kConfirm, u});
      }
    }
    held.clear();
    for (int i = 0; i < 4; ++i) {
      const std::string u = fresh_url();
      log->sent_urls.insert(u);
      c.Append({"ADD", u});
      sent.push_back({Kind::kAdd, u});
    }
    // The page the links were found on: the last URL added.
    std::vector<std::string> madd = {"MADD", sent.back().key};
    for (int i = 0; i < 3; ++i) {
      madd.push_back(fresh_url());
      log->sent_urls.insert(madd.back());
    }
    c.Append(madd);
    sent.push_back({Kind::kAdd, ""});  // its elements are checked below
    if (batch % 4 == 1) {
      const std::string site = "b" + std::to_string(n) + "." + tag + ".blk.test";
      c.Append({"SITE", "BLOCK", site, "3600"});
      sent.push_back({Kind::kBlock, site});
    }
    if (batch % 4 == 3) {
      const std::string origin =
          "http://r" + std::to_string(n) + "." + tag + ".rob.test";
      c.Append({"ROBOTS", "SET", origin, "200",
                "User-agent: *\nDisallow: /private\n"});
      sent.push_back({Kind::kRobots, origin});
    }
    c.Append({"POP", "COUNT", "3", "LEASE", "3600"});
    sent.push_back({Kind::kPop, ""});
    for (const Sent& s : sent) {
      Reply r = c.GetReply();
      if (r.IsIoError()) return;  // the power went out
      Acked a{s.kind, s.key, {}, 0, Clock::now()};
      bool ok = true;
      if (s.kind == Kind::kPop) {
        ok = r.IsArray();
        for (const Reply& e : r.elements) {
          ok = ok && e.IsString();
          a.popped.push_back(e.str);
          held.push_back(e.str);
        }
      } else if (s.kind == Kind::kAdd && s.key.empty()) {
        // MADD: one integer per URL; each acknowledged URL is an ADD.
        ok = r.IsArray() && r.elements.size() == madd.size() - 2;
        for (size_t i = 0; ok && i < r.elements.size(); ++i) {
          ok = r.elements[i].IsInteger();
          log->acked.push_back(
              Acked{Kind::kAdd, madd[i + 2], {}, r.elements[i].integer,
                    a.received});
        }
        if (ok) {
          log->answered.fetch_add(1);
          continue;
        }
      } else if (s.kind == Kind::kBlock || s.kind == Kind::kRobots) {
        ok = r.IsStatus() && r.str == "OK";
      } else {
        ok = r.IsInteger();
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

}  // namespace frontier::powerloss
