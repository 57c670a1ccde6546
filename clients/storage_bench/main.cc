// storage-pair-bench: the cost of a POP+CONFIRM pair inside storage/, for
// callgrind (instruction counts do not move with the machine's load; see
// docs/performance.md, "Lazy Qc"). Links storage/ directly, no server.
//
//   storage-pair-bench N add     N ADDs over 1,000 sites (64 per log flush)
//   storage-pair-bench N pairs   the same, then POP COUNT 64 + 64 CONFIRMs
//                                until the queue is empty
//   storage-pair-bench N due     the same, then Ticks after the leases'
//                                deadlines (what comes due after a pair)
//
// A phase's instructions are the difference of two modes' totals, e.g.
// `valgrind --tool=callgrind storage-pair-bench 20000 due` minus `... add`.
// Exit status 1 if a verb fails or not every URL was popped.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "storage/frontier.h"

namespace {

constexpr int kSites = 1000;
constexpr size_t kBatch = 64;
constexpr int64_t kLeaseMs = 1000;
constexpr int kMaxTicks = 100'000;

int Run(frontier::Frontier* fr, int n, std::string_view mode) {
  int64_t now_ms = 1'700'000'000'000;
  for (int i = 0; i < n; ++i) {
    auto r = fr->Add("http://s" + std::to_string(i % kSites) + ".example/p" +
                         std::to_string(i),
                     "", {}, now_ms);
    if (!r.ok()) return 1;
    if (i % kBatch == kBatch - 1 && !fr->FlushLog().ok()) return 1;
  }
  if (mode == "add") return 0;
  int popped = 0;
  for (;;) {
    auto urls = fr->Pop(kBatch, kLeaseMs, now_ms);
    if (!urls.ok()) return 1;
    if (urls->empty()) break;
    for (const std::string& url : *urls) {
      auto c = fr->Confirm(url, {}, now_ms);
      if (!c.ok() || !*c) return 1;
      ++popped;
    }
    if (!fr->FlushLog().ok()) return 1;
    ++now_ms;
  }
  if (popped != n) return 1;
  if (mode == "due") {
    now_ms += kLeaseMs + 1;
    for (int i = 0; i < kMaxTicks; ++i) {
      auto t = fr->Tick(now_ms);
      if (!t.ok()) return 1;
      if (!t->more_due) break;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 2 ? argv[2] : "";
  const int n = argc > 1 ? std::atoi(argv[1]) : 0;
  if (n <= 0 || (mode != "add" && mode != "pairs" && mode != "due")) {
    std::fprintf(stderr, "usage: storage-pair-bench N add|pairs|due\n");
    return 2;
  }
  char dir[] = "/tmp/storage-pair-bench.XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  frontier::FrontierOptions options;
  options.dir = dir;
  options.cache_bytes = 64 << 20;
  options.politeness_delay_ms = 0;
  options.site_max_leases = 0;
  int rc = 1;
  {
    auto fr = frontier::Frontier::Open(options);
    if (fr.ok()) rc = Run(fr->get(), n, mode);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (rc != 0) std::fprintf(stderr, "storage-pair-bench: a verb failed\n");
  return rc;
}
