// storage-pair-bench: what the frontier's verbs cost inside storage/, for
// callgrind (instruction counts do not move with the machine's load; see
// docs/performance.md, "Lazy Qc" and "Speed III instruments"). Links
// storage/ directly, no server.
//
//   storage-pair-bench N add     N ADDs over 1,000 sites (64 per log flush)
//   storage-pair-bench N pairs   the same, then POP COUNT 64 + 64 CONFIRMs
//                                until the queue is empty
//   storage-pair-bench N due     the same, then Ticks after the leases'
//                                deadlines (what comes due after a pair)
//   storage-pair-bench N seed    page 0 of each of 5,000 sites (crawl_model.h)
//   storage-pair-bench N crawl   the same, then N crawled pages: POP, MADD of
//                                50 links (80% known), CONFIRM
//
// Optional arguments after the mode, in any order: `pass` runs the verbs
// of each batch (one log flush) in one transaction, as the server's
// event-loop pass does (Frontier::BeginPass; FlushLog commits the pass and
// begins the next); a number B > 0 gives every URL a value of B bytes
// (ADD ... DATA, MADD ... DATA) and pops with WITHDATA, checking each value
// comes back: the cost of per-URL data next to the same run without;
// `nojournal` writes every transaction's site records to sites.db, as
// before the site journal (FrontierOptions::site_journal), for a before
// and after in one build. The journal's write-back is the checkpoint's at
// the close (the bench calls no WriteBehind): each site written once.
//
// A phase's instructions are the difference of two modes' totals, e.g.
// `valgrind --tool=callgrind storage-pair-bench 20000 due` minus `... add`
// (in `seed`, N only names the run: the seeds are the same for any N).
// Each phase's log bytes, log records and cache misses per operation are
// read from Berkeley DB's statistics and printed on stdout, one line a
// phase. Exit status 1 if a verb fails or not every URL was popped.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "clients/storage_bench/crawl_model.h"
#include "storage/frontier.h"

namespace frontier::bench {
namespace {

constexpr int kSites = 1000;
constexpr size_t kBatch = 64;
constexpr int64_t kLeaseMs = 1000;
constexpr int kMaxTicks = 100'000;

// Berkeley DB's log and cache counters at one moment.
struct Sample {
  LogCounters log;
  CacheCounters cache;
};

bool Take(const Frontier& fr, Sample* out) {
  auto log = fr.LogStats();
  auto cache = fr.CacheStats();
  if (!log.ok() || !cache.ok()) return false;
  out->log = *log;
  out->cache = *cache;
  return true;
}

// One line: what the phase between `before` and `after` put in the log
// and missed in the cache, per operation.
void Report(std::string_view phase, uint64_t ops, const Sample& before,
            const Sample& after) {
  if (ops == 0) return;
  const double n = static_cast<double>(ops);
  std::printf("%-6.*s %8" PRIu64
              " ops  %8.1f log bytes/op  %6.2f log "
              "records/op  %7.3f cache misses/op\n",
              static_cast<int>(phase.size()), phase.data(), ops,
              (after.log.bytes - before.log.bytes) / n,
              (after.log.records - before.log.records) / n,
              (after.cache.misses - before.cache.misses) / n);
}

// The phase between two samples: a Sample taken now, reported against the
// previous one, which it then replaces.
class Meter {
 public:
  explicit Meter(const Frontier& fr) : fr_(fr) { ok_ = Take(fr_, &last_); }
  bool Phase(std::string_view name, uint64_t ops) {
    Sample now;
    if (!ok_ || !Take(fr_, &now)) return false;
    Report(name, ops, last_, now);
    last_ = now;
    return true;
  }

 private:
  const Frontier& fr_;
  Sample last_;
  bool ok_ = false;
};

int RunPairs(Frontier* fr, int n, std::string_view mode,
             const std::string& data) {
  int64_t now_ms = 1'700'000'000'000;
  Meter meter(*fr);
  AddOptions options;
  if (!data.empty()) options.data = data;
  for (int i = 0; i < n; ++i) {
    auto r = fr->Add("http://s" + std::to_string(i % kSites) + ".example/p" +
                         std::to_string(i),
                     "", options, now_ms);
    if (!r.ok()) return 1;
    if (i % kBatch == kBatch - 1 && !fr->FlushLog().ok()) return 1;
  }
  if (!fr->FlushLog().ok() || !meter.Phase("add", n)) return 1;
  if (mode == "add") return 0;
  int popped = 0;
  std::vector<std::string> urls;
  for (;;) {
    urls.clear();
    if (data.empty()) {
      auto got = fr->Pop(kBatch, kLeaseMs, now_ms);
      if (!got.ok()) return 1;
      urls = std::move(got).value();
    } else {
      auto got = fr->PopWithData(std::nullopt, kBatch, kLeaseMs, now_ms);
      if (!got.ok()) return 1;
      std::vector<PoppedUrl> batch = std::move(got).value();
      for (PoppedUrl& p : batch) {
        if (p.data != data) return 1;
        urls.push_back(std::move(p.url));
      }
    }
    if (urls.empty()) break;
    for (const std::string& url : urls) {
      auto c = fr->Confirm(url, {}, now_ms);
      if (!c.ok() || !*c) return 1;
      ++popped;
    }
    if (!fr->FlushLog().ok()) return 1;
    ++now_ms;
  }
  if (popped != n || !meter.Phase("pair", popped)) return 1;
  if (mode == "due") {
    now_ms += kLeaseMs + 1;
    for (int i = 0; i < kMaxTicks; ++i) {
      auto t = fr->Tick(now_ms);
      if (!t.ok()) return 1;
      if (!t->more_due) break;
    }
    if (!fr->FlushLog().ok() || !meter.Phase("due", n)) return 1;
  }
  return 0;
}

int RunCrawl(Frontier* fr, int pages, std::string_view mode,
             size_t data_bytes) {
  int64_t now_ms = 1'700'000'000'000;
  CrawlModel model(/*seed=*/19, data_bytes);
  Meter meter(*fr);
  Status s = model.Seed(fr, now_ms);
  if (!s.ok() || !meter.Phase("seed", CrawlModel::kSites)) {
    std::fprintf(stderr, "seed: %s\n", s.ToString().c_str());
    return 1;
  }
  if (mode == "seed") return 0;
  s = model.Crawl(fr, pages, &now_ms);
  if (!s.ok() || !meter.Phase("page", pages)) {
    std::fprintf(stderr, "crawl: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("links: %" PRIu64 " added, %" PRIu64 " known\n",
              model.links_added(), model.links_known());
  return 0;
}

}  // namespace
}  // namespace frontier::bench

int main(int argc, char** argv) {
  const std::string_view mode = argc > 2 ? argv[2] : "";
  const int n = argc > 1 ? std::atoi(argv[1]) : 0;
  const bool crawl = mode == "seed" || mode == "crawl";
  int data_bytes = 0;
  bool pass = false;
  bool journal = true;
  bool bad = false;
  for (int i = 3; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "pass") {
      pass = true;
    } else if (arg == "nojournal") {
      journal = false;
    } else if (!arg.empty() && arg.find_first_not_of("0123456789") ==
                                   std::string_view::npos) {
      data_bytes = std::atoi(argv[i]);
    } else {
      bad = true;
    }
  }
  if (n <= 0 || bad ||
      (!crawl && mode != "add" && mode != "pairs" && mode != "due")) {
    std::fprintf(stderr,
                 "usage: storage-pair-bench N add|pairs|due|seed|crawl "
                 "[pass] [nojournal] [DATA-BYTES]\n");
    return 2;
  }
  char dir[] = "/tmp/storage-pair-bench.XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  frontier::FrontierOptions options;
  options.dir = dir;
  options.cache_bytes = 64 << 20;
  options.politeness_delay_ms = 0;
  options.site_max_leases = 0;
  options.max_depth = 0;  // a long crawl goes deeper than the default 16
  options.site_journal = journal;
  int rc = 1;
  {
    auto fr = frontier::Frontier::Open(options);
    if (fr.ok()) {
      if (pass) (*fr)->BeginPass();
      rc = crawl ? frontier::bench::RunCrawl(fr->get(), n, mode,
                                             static_cast<size_t>(data_bytes))
                 : frontier::bench::RunPairs(
                       fr->get(), n, mode,
                       std::string(static_cast<size_t>(data_bytes), 'd'));
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (rc != 0) std::fprintf(stderr, "storage-pair-bench: a verb failed\n");
  return rc;
}
