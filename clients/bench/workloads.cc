#include "workloads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <latch>
#include <memory>
#include <thread>

#include "client.h"
#include "common/str_cat.h"
#include "synthetic_web.h"

namespace bench {

using frontier_client::StrCat;
namespace {

constexpr size_t kMaxErrorText = 200;
constexpr auto kIdlePause = std::chrono::milliseconds(2);

uint64_t NowNanos() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

uint64_t HashUrl(std::string_view url) {
  return std::hash<std::string_view>{}(url);
}

// Shared by all connections of one run.
struct Shared {
  explicit Shared(const Options& opts) : o(opts), verbs(opts.target) {}
  const Options& o;
  Verbs verbs;
  std::atomic<bool> stop{false};
  std::atomic<bool> hit_duration{false};
  uint64_t deadline = 0;  // NowNanos() value; 0 = none

  bool ShouldStop() {
    if (stop.load(std::memory_order_relaxed)) return true;
    if (deadline != 0 && NowNanos() >= deadline) {
      hit_duration.store(true, std::memory_order_relaxed);
      stop.store(true, std::memory_order_relaxed);
      return true;
    }
    return false;
  }
};

// A pool of URLs (or pages) that connections claim in chunks.
class Budget {
 public:
  explicit Budget(int64_t total) : left_(total) {}
  int Claim(int want) {
    int64_t before = left_.fetch_sub(want, std::memory_order_relaxed);
    int got = static_cast<int>(std::clamp<int64_t>(before, 0, want));
    if (got < want) left_.fetch_add(want - got, std::memory_order_relaxed);
    return got;
  }
  void Return(int n) {
    if (n > 0) left_.fetch_add(n, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> left_;
};

// The commands of one round trip, and the timing of each reply: latency of a
// request is from the moment the round is written to its own reply.
class Pipe {
 public:
  Pipe(Connection& conn, Counters& counters) : conn_(conn), c_(counters) {}

  void Queue(Verb verb, CommandArgs& args) {
    conn_.Append(args);
    verbs_.push_back(verb);
  }
  bool empty() const { return verbs_.empty(); }

  // Reads one reply per queued command, in order, and hands each to
  // on_reply(verb, reply). Top-level error replies are counted here. Returns
  // false on an I/O error (the connection is then unusable).
  template <typename OnReply>
  bool Flush(OnReply&& on_reply) {
    uint64_t sent = NowNanos();
    for (Verb verb : verbs_) {
      ReplyPtr reply = conn_.Next();
      if (!reply) {
        c_.NoteError(StrCat("connection: ", conn_.Error()));
        c_.io_failed = true;
        verbs_.clear();
        return false;
      }
      c_.latency[verb].Record(NowNanos() - sent);
      ++c_.commands[verb];
      if (reply->type == REDIS_REPLY_ERROR) {
        c_.NoteError(std::string_view(reply->str, reply->len));
        continue;
      }
      on_reply(verb, reply.get());
    }
    verbs_.clear();
    return true;
  }

 private:
  Connection& conn_;
  Counters& c_;
  std::vector<Verb> verbs_;
};

// Counts one ADD reply, or one element of a MADD reply.
void CountAddReply(const redisReply* r, Counters& c) {
  if (r->type == REDIS_REPLY_INTEGER) {
    if (r->integer == 1)
      ++c.added_new;
    else if (r->integer == 0)
      ++c.added_known;
    else if (r->integer == -1)
      ++c.added_refused;
    else
      c.NoteError(StrCat("ADD replied :", r->integer));
  } else if (r->type == REDIS_REPLY_ERROR) {
    c.NoteError(std::string_view(r->str, r->len));
  } else {
    c.NoteError("ADD reply is not an integer");
  }
}

void CountConfirmReply(const redisReply* r, Counters& c) {
  if (r->type == REDIS_REPLY_INTEGER && r->integer == 1)
    ++c.confirm_ok;
  else if (r->type == REDIS_REPLY_INTEGER && r->integer == 0)
    ++c.confirm_zero;
  else
    c.NoteError("CONFIRM reply is not :1 or :0");
}

// Copies the URLs of a POP reply (nil, bulk, or array of bulks) into held,
// reusing its strings' capacity; returns how many.
size_t TakePopReply(const redisReply* r, std::vector<std::string>& held,
                    Counters& c) {
  size_t n = 0;
  auto take = [&](const redisReply* e) {
    if (e->type != REDIS_REPLY_STRING) {
      c.NoteError("POP returned a non-string element");
      return;
    }
    if (held.size() <= n) held.emplace_back();
    held[n].assign(e->str, e->len);
    c.popped_hashes.push_back(HashUrl(held[n]));
    ++n;
  };
  if (r->type == REDIS_REPLY_STRING) {
    take(r);
  } else if (r->type == REDIS_REPLY_ARRAY) {
    for (size_t i = 0; i < r->elements; ++i) take(r->element[i]);
  } else if (r->type != REDIS_REPLY_NIL) {
    c.NoteError("POP reply is not nil, a bulk string or an array");
  }
  c.popped += n;
  return n;
}

// Opens every connection, then runs body(i, conn, counters) on one thread
// per connection, all released at once; the clock covers only the bodies.
void RunThreads(const Options& o, Shared& shared, RunResult& result,
                const std::function<void(int, Connection&, Counters&)>& body,
                std::vector<std::unique_ptr<Connection>>& conns) {
  std::vector<Counters> counters(static_cast<size_t>(o.connections));
  std::latch ready(o.connections + 1);
  std::vector<std::thread> threads;
  threads.reserve(counters.size());
  for (int i = 0; i < o.connections; ++i) {
    threads.emplace_back([&, i] {
      ready.arrive_and_wait();
      body(i, *conns[static_cast<size_t>(i)], counters[static_cast<size_t>(i)]);
      if (counters[static_cast<size_t>(i)].io_failed) shared.stop = true;
    });
  }
  ready.arrive_and_wait();
  uint64_t start = NowNanos();
  if (o.duration > 0)
    shared.deadline = start + static_cast<uint64_t>(o.duration * 1e9);
  for (auto& t : threads) t.join();
  result.seconds = static_cast<double>(NowNanos() - start) / 1e9;
  for (auto& c : counters) result.total.Merge(c);
  result.hit_duration = shared.hit_duration.load();
}

std::vector<std::unique_ptr<Connection>> OpenAll(const Options& o,
                                                 std::string* error) {
  std::vector<std::unique_ptr<Connection>> conns;
  for (int i = 0; i < o.connections; ++i) {
    auto conn = Connection::Open(o.host, o.port, o.auth, error);
    if (!conn) return {};
    conns.push_back(std::move(conn));
  }
  return conns;
}

// ---- add ----

// Every URL once in one buffer, and the order of the ADDs as indexes into it.
struct AddPlan {
  std::string bytes;
  std::vector<uint64_t> offsets;  // unique URL i is [offsets[i], offsets[i+1])
  std::vector<uint32_t> ops;

  std::string_view Url(uint32_t i) const {
    return std::string_view(bytes).substr(offsets[i],
                                          offsets[i + 1] - offsets[i]);
  }
};

AddPlan MakeAddPlan(const Options& o, uint64_t* unique_out) {
  // Sites uniformly at random; within a site, pages numbered in order.
  SyntheticWeb web(o.sites, /*zipf=*/0, StrCat("a", o.seed));
  Rng rng(o.seed * 0x2545f4914f6cdd1dull + 1);
  auto total = static_cast<uint64_t>(o.ops);
  auto unique = static_cast<uint64_t>(
      std::llround(static_cast<double>(total) * (1.0 - o.dup_ratio)));
  unique = std::clamp<uint64_t>(unique, 1, total);
  AddPlan plan;
  plan.bytes.reserve(unique * 48);
  plan.offsets.reserve(unique + 1);
  plan.offsets.push_back(0);
  for (uint64_t i = 0; i < unique; ++i) {
    auto site = static_cast<uint32_t>(rng.Below(o.sites));
    web.AppendUrl(plan.bytes, site, web.NewPage(site));
    plan.offsets.push_back(plan.bytes.size());
  }
  plan.ops.resize(total);
  for (uint64_t i = 0; i < total; ++i) {
    plan.ops[i] = static_cast<uint32_t>(i < unique ? i : rng.Below(unique));
  }
  for (uint64_t i = total - 1; i > 0; --i) {  // Fisher-Yates
    std::swap(plan.ops[i], plan.ops[rng.Below(i + 1)]);
  }
  *unique_out = unique;
  return plan;
}

void AddWorker(Shared& s, const AddPlan& plan, size_t begin, size_t end,
               Connection& conn, Counters& c) {
  Pipe pipe(conn, c);
  CommandArgs args;
  auto on_reply = [&](Verb, const redisReply* r) { CountAddReply(r, c); };
  size_t batch = static_cast<size_t>(s.o.pipeline);
  for (size_t i = begin; i < end && !s.ShouldStop();) {
    size_t n = std::min(batch, end - i);
    for (size_t k = 0; k < n; ++k) {
      s.verbs.Add(args, plan.Url(plan.ops[i + k]));
      pipe.Queue(kVerbAdd, args);
    }
    if (!pipe.Flush(on_reply)) return;
    i += n;
  }
}

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
    const auto idle_limit = static_cast<uint64_t>(s_.o.idle_wait * 1e9);
    uint64_t idle_since = 0;
    size_t held = 0;
    auto on_reply = [&](Verb verb, const redisReply* r) {
      if (verb == kVerbConfirm) {
        CountConfirmReply(r, c_);
      } else if (verb == kVerbMadd) {
        CountMaddReply(r);
      } else if (verb == kVerbPop) {
        popped_now_ = TakePopReply(r, held_, c_);
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
        idle_since = 0;
        continue;
      }
      uint64_t now = NowNanos();
      if (idle_since == 0) idle_since = now;
      if (now - idle_since >= idle_limit) return;
      std::this_thread::sleep_for(kIdlePause);
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
    AddPlan plan = MakeAddPlan(o, &result.expected_new);
    result.check_new = true;
    size_t total = plan.ops.size();
    size_t per = total / static_cast<size_t>(o.connections);
    size_t extra = total % static_cast<size_t>(o.connections);
    RunThreads(
        o, shared, result,
        [&](int i, Connection& conn, Counters& c) {
          auto idx = static_cast<size_t>(i);
          size_t begin = idx * per + std::min(idx, extra);
          size_t end = begin + per + (idx < extra ? 1 : 0);
          AddWorker(shared, plan, begin, end, conn, c);
        },
        conns);
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
    result.total.added_new += seed_counters.added_new;
    result.total.added_known += seed_counters.added_known;
    result.total.added_refused += seed_counters.added_refused;
    result.total.errors += seed_counters.errors;
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
