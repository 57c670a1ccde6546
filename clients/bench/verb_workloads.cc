#include "verb_workloads.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/str_cat.h"

namespace bench {

using frontier_client::StrCat;
namespace {

// Depth of the unmeasured phases' round trips, whatever -P the timed one has.
constexpr int kPreparePipeline = 64;

// The options of an unmeasured phase: deep pipelines and no --duration (it
// caps the timed phase only).
Options PrepareOptions(const Options& o) {
  Options p = o;
  p.pipeline = std::max(o.pipeline, kPreparePipeline);
  p.pop_count = p.pipeline;
  p.duration = 0;
  return p;
}

// Runs body as an unmeasured phase: its counts go to result's checks, its
// time and latencies nowhere. False (result.fatal set) if a connection
// failed.
bool RunUnmeasured(
    const Options& prep, const char* what, Connections& conns,
    RunResult& result,
    const std::function<void(Shared&, int, Connection&, Counters&)>& body) {
  Shared shared(prep);
  RunResult phase;
  RunThreads(
      prep, shared, phase,
      [&](int i, Connection& conn, Counters& c) { body(shared, i, conn, c); },
      conns);
  bool failed = phase.total.io_failed;
  if (failed) result.fatal = StrCat(what, ": ", phase.total.first_error);
  result.total.MergeChecks(phase.total);
  return !failed;
}

// ADDs o.ops URLs, all new, unmeasured.
bool Load(const Options& o, std::string_view tag, Connections& conns,
          RunResult& result) {
  Options prep = PrepareOptions(o);
  AddPlan plan = MakeAddPlan(o, tag, /*dup_ratio=*/0);
  result.expected_new = plan.urls.size();
  result.check_new = true;
  return RunUnmeasured(prep, "loading the URLs", conns, result,
                       [&](Shared& s, int i, Connection& conn, Counters& c) {
                         auto [begin, end] =
                             SliceOf(plan.ops.size(), prep.connections, i);
                         AddWorker(s, plan, begin, end, conn, c);
                       });
}

UrlList Concat(const std::vector<UrlList>& lists) {
  UrlList all;
  for (const UrlList& l : lists) all.AppendAll(l);
  return all;
}

}  // namespace

void RunPopAlone(const Options& o, Connections& conns, RunResult& result) {
  if (!Load(o, StrCat("p", o.seed), conns, result)) return;
  Shared shared(o);
  Budget budget(o.ops);
  std::vector<UrlList> popped(conns.size());
  RunThreads(
      o, shared, result,
      [&](int i, Connection& conn, Counters& c) {
        PopWorker(shared, budget, conn, c, &popped[static_cast<size_t>(i)]);
      },
      conns);
  if (result.total.io_failed) return;
  UrlList leased = Concat(popped);
  Options prep = PrepareOptions(o);
  RunUnmeasured(prep, "confirming the popped URLs", conns, result,
                [&](Shared& s, int i, Connection& conn, Counters& c) {
                  auto [begin, end] =
                      SliceOf(leased.size(), prep.connections, i);
                  ConfirmWorker(s, leased, begin, end, conn, c);
                });
}

void RunConfirmAlone(const Options& o, Connections& conns, RunResult& result) {
  if (!Load(o, StrCat("k", o.seed), conns, result)) return;
  Options prep = PrepareOptions(o);
  Budget budget(o.ops);
  std::vector<UrlList> popped(conns.size());
  if (!RunUnmeasured(prep, "popping the URLs", conns, result,
                     [&](Shared& s, int i, Connection& conn, Counters& c) {
                       PopWorker(s, budget, conn, c,
                                 &popped[static_cast<size_t>(i)]);
                     })) {
    return;
  }
  UrlList leased = Concat(popped);
  std::vector<UrlList>().swap(popped);
  Shared shared(o);
  RunThreads(
      o, shared, result,
      [&](int i, Connection& conn, Counters& c) {
        auto [begin, end] = SliceOf(leased.size(), o.connections, i);
        ConfirmWorker(shared, leased, begin, end, conn, c);
      },
      conns);
}

}  // namespace bench
