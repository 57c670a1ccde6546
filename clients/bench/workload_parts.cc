#include "workload_parts.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <latch>
#include <thread>

#include "synthetic_web.h"

namespace bench {

using frontier_client::StrCat;
namespace {

constexpr auto kIdlePause = std::chrono::milliseconds(2);

// One command per index in [begin, end), s.o.pipeline per round trip:
// build(args, i) spells command i, on_reply counts its reply.
template <typename Build, typename OnReply>
void SendInRounds(Shared& s, size_t begin, size_t end, Verb verb,
                  Connection& conn, Counters& c, Build&& build,
                  OnReply&& on_reply) {
  Pipe pipe(conn, c);
  CommandArgs args;
  auto batch = static_cast<size_t>(s.o.pipeline);
  for (size_t i = begin; i < end && !s.ShouldStop();) {
    size_t n = std::min(batch, end - i);
    for (size_t k = 0; k < n; ++k) {
      build(args, i + k);
      pipe.Queue(verb, args);
    }
    if (!pipe.Flush(on_reply)) return;
    i += n;
  }
}

}  // namespace

bool IdleWait::Continue() {
  uint64_t now = NowNanos();
  if (since_ == 0) since_ = now;
  if (now - since_ >= limit_) return false;
  std::this_thread::sleep_for(kIdlePause);
  return true;
}

uint64_t NowNanos() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

uint64_t HashUrl(std::string_view url) {
  return std::hash<std::string_view>{}(url);
}

bool Shared::ShouldStop() {
  if (stop.load(std::memory_order_relaxed)) return true;
  if (deadline != 0 && NowNanos() >= deadline) {
    hit_duration.store(true, std::memory_order_relaxed);
    stop.store(true, std::memory_order_relaxed);
    return true;
  }
  return false;
}

int Budget::Claim(int want) {
  int64_t before = left_.fetch_sub(want, std::memory_order_relaxed);
  int got = static_cast<int>(std::clamp<int64_t>(before, 0, want));
  if (got < want) left_.fetch_add(want - got, std::memory_order_relaxed);
  return got;
}

void Budget::Return(int n) {
  if (n > 0) left_.fetch_add(n, std::memory_order_relaxed);
}

void UrlList::AppendAll(const UrlList& other) {
  uint64_t base = bytes_.size();
  bytes_.append(other.bytes_);
  ends_.reserve(ends_.size() + other.ends_.size());
  for (uint64_t end : other.ends_) ends_.push_back(base + end);
}

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

Connections OpenAll(const Options& o, std::string* error) {
  Connections conns;
  for (int i = 0; i < o.connections; ++i) {
    auto conn = Connection::Open(o.host, o.port, o.auth, error);
    if (!conn) return {};
    conns.push_back(std::move(conn));
  }
  return conns;
}

void RunThreads(const Options& o, Shared& shared, RunResult& result,
                const std::function<void(int, Connection&, Counters&)>& body,
                Connections& conns) {
  const auto n = static_cast<size_t>(o.connections);
  std::vector<Counters> counters(n);
  // Each thread's own start and end: the main thread may be descheduled
  // between the release and reading the clock, and a short run would then
  // look faster than it was.
  std::vector<uint64_t> starts(n), ends(n);
  std::latch ready(o.connections + 1);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      ready.arrive_and_wait();
      starts[i] = NowNanos();
      body(static_cast<int>(i), *conns[i], counters[i]);
      ends[i] = NowNanos();
      if (counters[i].io_failed) shared.stop = true;
    });
  }
  if (o.duration > 0)
    shared.deadline = NowNanos() + static_cast<uint64_t>(o.duration * 1e9);
  ready.arrive_and_wait();
  for (auto& t : threads) t.join();
  uint64_t start = *std::min_element(starts.begin(), starts.end());
  uint64_t end = *std::max_element(ends.begin(), ends.end());
  result.seconds = static_cast<double>(end - start) / 1e9;
  for (auto& c : counters) result.total.Merge(c);
  result.hit_duration = shared.hit_duration.load();
}

std::pair<size_t, size_t> SliceOf(size_t total, int parts, int i) {
  auto n = static_cast<size_t>(parts);
  auto idx = static_cast<size_t>(i);
  size_t per = total / n;
  size_t extra = total % n;
  size_t begin = idx * per + std::min(idx, extra);
  return {begin, begin + per + (idx < extra ? 1 : 0)};
}

AddPlan MakeAddPlan(const Options& o, std::string_view tag, double dup_ratio) {
  // Sites uniformly at random; within a site, pages numbered in order.
  SyntheticWeb web(o.sites, /*zipf=*/0, std::string(tag));
  Rng rng(o.seed * 0x2545f4914f6cdd1dull + 1);
  auto total = static_cast<uint64_t>(o.ops);
  auto unique = static_cast<uint64_t>(
      std::llround(static_cast<double>(total) * (1.0 - dup_ratio)));
  unique = std::clamp<uint64_t>(unique, 1, total);
  AddPlan plan;
  std::string url;
  for (uint64_t i = 0; i < unique; ++i) {
    auto site = static_cast<uint32_t>(rng.Below(o.sites));
    url.clear();
    web.AppendUrl(url, site, web.NewPage(site));
    plan.urls.Append(url);
  }
  plan.ops.resize(total);
  for (uint64_t i = 0; i < total; ++i) {
    plan.ops[i] = static_cast<uint32_t>(i < unique ? i : rng.Below(unique));
  }
  for (uint64_t i = total - 1; i > 0; --i) {  // Fisher-Yates
    std::swap(plan.ops[i], plan.ops[rng.Below(i + 1)]);
  }
  return plan;
}

void AddWorker(Shared& s, const AddPlan& plan, size_t begin, size_t end,
               Connection& conn, Counters& c) {
  SendInRounds(
      s, begin, end, kVerbAdd, conn, c,
      [&](CommandArgs& args, size_t i) {
        s.verbs.Add(args, plan.urls[plan.ops[i]]);
      },
      [&](Verb, const redisReply* r) { CountAddReply(r, c); });
}

void ConfirmWorker(Shared& s, const UrlList& urls, size_t begin, size_t end,
                   Connection& conn, Counters& c) {
  SendInRounds(
      s, begin, end, kVerbConfirm, conn, c,
      [&](CommandArgs& args, size_t i) { s.verbs.Confirm(args, urls[i]); },
      [&](Verb, const redisReply* r) { CountConfirmReply(r, c); });
}

void PopWorker(Shared& s, Budget& budget, Connection& conn, Counters& c,
               UrlList* popped) {
  const int per_round = s.o.pipeline;
  const int per_pop = s.o.pop_count;
  // As pop-confirm: the plain form only when nothing is pipelined.
  const bool plain = per_round == 1 && per_pop == 1;
  IdleWait idle(s.o.idle_wait);
  Pipe pipe(conn, c);
  CommandArgs args;
  size_t got = 0;
  auto on_reply = [&](Verb, const redisReply* r) {
    got +=
        TakePopReply(r, c, [&](std::string_view url) { popped->Append(url); });
  };
  while (!s.ShouldStop()) {
    int claimed = budget.Claim(per_round);
    if (claimed == 0) return;
    for (int asked = 0; asked < claimed; asked += per_pop) {
      s.verbs.Pop(args, plain ? 0 : std::min(per_pop, claimed - asked));
      pipe.Queue(kVerbPop, args);
    }
    got = 0;
    if (!pipe.Flush(on_reply)) return;
    budget.Return(claimed - static_cast<int>(got));
    if (got > 0) {
      idle.Reset();
    } else if (!idle.Continue()) {
      return;
    }
  }
}

}  // namespace bench
