#include "workloads.h"

#include <algorithm>
#include <memory>

#include "client.h"
#include "common/str_cat.h"
#include "synthetic_web.h"
#include "verb_workloads.h"
#include "workload_parts.h"

namespace bench {

using frontier_client::StrCat;
namespace {

constexpr size_t kMaxErrorText = 200;

// ---- pop-confirm and crawl: POP, work on each URL, CONFIRM ----

// Per connection: CONFIRM (crawl: MADD + CONFIRM) what the last POP gave,
// in the same round trip as the next POP; with -P 1 every command is its own
// round trip. Stops when the budget is spent, on --duration, or when POP has
// given nothing for --idle-wait seconds.
class PopLoop {
 public:
  PopLoop(Shared& s, Budget& budget, Connection& conn, Counters& c,
          SyntheticWeb* web, uint64_t rng_seed)
      : s_(s),
        budget_(budget),
        c_(c),
        pipe_(conn, c),
        web_(web),
        rng_(rng_seed) {}

  void Run() {
    const bool serial = s_.o.pipeline == 1;
    const int per_pop = s_.o.pop_count;
    const int pop_arg = (serial && per_pop == 1) ? 0 : per_pop;
    IdleWait idle(s_.o.idle_wait);
    size_t held = 0;
    auto on_reply = [&](Verb verb, const redisReply* r) {
      if (verb == kVerbConfirm) {
        CountConfirmReply(r, c_);
      } else if (verb == kVerbMadd) {
        CountMaddReply(r);
      } else if (verb == kVerbPop) {
        TakePopReply(r, c_, [&](std::string_view url) {
          if (held_.size() <= popped_now_) held_.emplace_back();
          held_[popped_now_++].assign(url);
        });
      }
    };
    while (true) {
      for (size_t j = 0; j < held; ++j) {
        if (web_ != nullptr && s_.o.links > 0) {
          BuildLinks(held_[j]);
          s_.verbs.Madd(args_, held_[j], link_views_);
          pipe_.Queue(kVerbMadd, args_);
          if (serial && !pipe_.Flush(on_reply)) return;
        }
        s_.verbs.Confirm(args_, held_[j]);
        pipe_.Queue(kVerbConfirm, args_);
        if (serial && !pipe_.Flush(on_reply)) return;
      }
      held = 0;
      int claimed = s_.ShouldStop() ? 0 : budget_.Claim(per_pop);
      popped_now_ = 0;
      if (claimed > 0) {
        s_.verbs.Pop(args_, pop_arg == 0 ? 0 : claimed);
        pipe_.Queue(kVerbPop, args_);
      }
      if (!pipe_.empty() && !pipe_.Flush(on_reply)) return;
      if (claimed == 0) return;
      held = popped_now_;
      budget_.Return(claimed - static_cast<int>(held));
      if (held > 0) {
        idle.Reset();
      } else if (!idle.Continue()) {
        return;
      }
    }
  }

 private:
  void CountMaddReply(const redisReply* r) {
    if (r->type != REDIS_REPLY_ARRAY) {
      c_.NoteError("MADD reply is not an array");
      return;
    }
    c_.link_checks += r->elements;
    for (size_t i = 0; i < r->elements; ++i) CountAddReply(r->element[i], c_);
  }

  // The links of one page: --local-share on its own site, the rest on sites
  // drawn by the power law; --known-share of them to pages already allocated.
  void BuildLinks(std::string_view page_url) {
    const Options& o = s_.o;
    uint32_t home = 0;
    if (!SyntheticWeb::ParseSite(page_url, &home) || home >= web_->sites()) {
      home = web_->ZipfSite(rng_);
    }
    link_bytes_.clear();
    link_ends_.clear();
    for (int l = 0; l < o.links; ++l) {
      uint32_t site =
          rng_.Uniform() < o.local_share ? home : web_->ZipfSite(rng_);
      uint32_t page = 0;
      if (!(rng_.Uniform() < o.known_share &&
            web_->KnownPage(site, rng_, &page))) {
        page = web_->NewPage(site);
      }
      web_->AppendUrl(link_bytes_, site, page);
      link_ends_.push_back(link_bytes_.size());
    }
    link_views_.clear();
    size_t start = 0;
    for (size_t end : link_ends_) {
      link_views_.emplace_back(link_bytes_.data() + start, end - start);
      start = end;
    }
  }

  Shared& s_;
  Budget& budget_;
  Counters& c_;
  Pipe pipe_;
  SyntheticWeb* web_;  // null for pop-confirm
  Rng rng_;
  CommandArgs args_;
  std::vector<std::string> held_;
  size_t popped_now_ = 0;
  std::string link_bytes_;
  std::vector<size_t> link_ends_;
  std::vector<std::string_view> link_views_;
};

// --robots: every site's robots.txt, stored with ROBOTS SET before the
// clock so that the crawl measures the rules applied, not their fetch. It
// disallows the pages of one directory in 64 (AppendUrl's "/d63/").
bool SeedRobots(const Options& o, Connection& conn, Counters& c) {
  constexpr std::string_view kRules =
      "User-agent: *\nDisallow: /*/d63/\nDisallow: /cgi-bin/\n"
      "Disallow: /private/\nAllow: /public/\n";
  CommandArgs args;
  std::string origin;
  for (uint32_t site = 0; site < o.sites; ++site) {
    origin.clear();
    SyntheticWeb::AppendOrigin(origin, site);
    args.Clear();
    args.Push("ROBOTS");
    args.Push("SET");
    args.Push(origin);
    args.Push("200");
    args.Push(kRules);
    ReplyPtr r = conn.Call(args);
    if (!r || r->type == REDIS_REPLY_ERROR) {
      c.NoteError(r ? std::string_view(r->str, r->len)
                    : std::string_view(conn.Error()));
      return false;
    }
  }
  return true;
}

// Adds the crawl's start URLs (page 0 of the largest sites) before the clock.
bool SeedCrawl(Shared& s, SyntheticWeb& web, Connection& conn, Counters& c,
               uint64_t* seeds) {
  constexpr uint32_t kPerMadd = 100;
  const Options& o = s.o;
  uint64_t want =
      std::max<uint64_t>(1000, 4ull * static_cast<uint64_t>(o.connections) *
                                   static_cast<uint64_t>(o.pop_count));
  auto n = static_cast<uint32_t>(std::min<uint64_t>(want, o.sites));
  CommandArgs args;
  std::string bytes;
  std::vector<size_t> ends;
  std::vector<std::string_view> views;
  for (uint32_t first = 0; first < n; first += kPerMadd) {
    bytes.clear();
    ends.clear();
    views.clear();
    for (uint32_t site = first; site < std::min(n, first + kPerMadd); ++site) {
      web.AppendUrl(bytes, site, web.NewPage(site));
      ends.push_back(bytes.size());
    }
    size_t start = 0;
    for (size_t end : ends) {
      views.emplace_back(bytes.data() + start, end - start);
      start = end;
    }
    s.verbs.Madd(args, "", views);
    ReplyPtr r = conn.Call(args);
    if (!r) {
      c.NoteError(StrCat("connection: ", conn.Error()));
      return false;
    }
    if (r->type != REDIS_REPLY_ARRAY) {
      c.NoteError(r->type == REDIS_REPLY_ERROR
                      ? std::string_view(r->str, r->len)
                      : "MADD reply is not an array");
      return false;
    }
    for (size_t i = 0; i < r->elements; ++i) CountAddReply(r->element[i], c);
  }
  *seeds = n;
  return true;
}

}  // namespace

const char* VerbName(int verb) {
  static constexpr const char* kNames[] = {"ADD", "MADD", "POP", "CONFIRM"};
  return verb >= 0 && verb < kVerbCount ? kNames[verb] : "?";
}

void Counters::NoteError(std::string_view what) {
  ++errors;
  if (first_error.empty())
    first_error = std::string(what.substr(0, kMaxErrorText));
}

void Counters::Merge(Counters& other) {
  for (int v = 0; v < kVerbCount; ++v) {
    latency[v].Merge(other.latency[v]);
    commands[v] += other.commands[v];
  }
  MergeChecks(other);
}

void Counters::MergeChecks(Counters& other) {
  added_new += other.added_new;
  added_known += other.added_known;
  added_refused += other.added_refused;
  link_checks += other.link_checks;
  popped += other.popped;
  confirm_ok += other.confirm_ok;
  confirm_zero += other.confirm_zero;
  errors += other.errors;
  if (first_error.empty()) first_error = other.first_error;
  popped_hashes.insert(popped_hashes.end(), other.popped_hashes.begin(),
                       other.popped_hashes.end());
  std::vector<uint64_t>().swap(other.popped_hashes);
  io_failed = io_failed || other.io_failed;
}

RunResult RunWorkload(const Options& o) {
  RunResult result;
  std::string error;
  auto conns = OpenAll(o, &error);
  if (conns.empty()) {
    result.fatal = error;
    return result;
  }
  Shared shared(o);

  if (o.workload == Workload::kAdd) {
    AddPlan plan = MakeAddPlan(o, StrCat("a", o.seed), o.dup_ratio);
    result.expected_new = plan.urls.size();
    result.check_new = true;
    RunThreads(
        o, shared, result,
        [&](int i, Connection& conn, Counters& c) {
          auto [begin, end] = SliceOf(plan.ops.size(), o.connections, i);
          AddWorker(shared, plan, begin, end, conn, c);
        },
        conns);
  } else if (o.workload == Workload::kPop) {
    RunPopAlone(o, conns, result);
  } else if (o.workload == Workload::kConfirm) {
    RunConfirmAlone(o, conns, result);
  } else {
    std::unique_ptr<SyntheticWeb> web;
    Counters seed_counters;
    int64_t budget_total = INT64_MAX / 2;
    if (o.workload == Workload::kCrawl) {
      web =
          std::make_unique<SyntheticWeb>(o.sites, o.zipf, StrCat("c", o.seed));
      if (o.robots && !SeedRobots(o, *conns[0], seed_counters)) {
        result.fatal = StrCat("ROBOTS SET: ", seed_counters.first_error);
        return result;
      }
      if (!SeedCrawl(shared, *web, *conns[0], seed_counters, &result.seeds)) {
        result.fatal = StrCat("seeding the crawl: ", seed_counters.first_error);
        return result;
      }
      budget_total = o.ops;
      result.check_new = true;
    } else if (o.ops_given) {
      budget_total = o.ops;
    }
    Budget budget(budget_total);
    RunThreads(
        o, shared, result,
        [&](int i, Connection& conn, Counters& c) {
          PopLoop loop(shared, budget, conn, c, web.get(),
                       o.seed * 1000003ull + static_cast<uint64_t>(i));
          loop.Run();
        },
        conns);
    result.total.MergeChecks(seed_counters);
    if (web) result.expected_new = web->TotalPages();
  }

  auto& hashes = result.total.popped_hashes;
  std::sort(hashes.begin(), hashes.end());
  for (size_t i = 1; i < hashes.size(); ++i) {
    if (hashes[i] == hashes[i - 1]) ++result.duplicate_pops;
  }
  return result;
}

}  // namespace bench
