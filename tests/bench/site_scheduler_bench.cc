// site_scheduler_bench: the SiteScheduler alone, its memory per site and
// the time of each call the server makes, without Berkeley DB or a socket.
//
//   site_scheduler_bench [--sites N] [--partitions P] [--ops M] [--seed S]
//
// Places N sites (half ready, half waiting on a delay of up to 600 s, heads
// and fingerprints random), then reports the resident memory that added
// per site, and the mean time of: placing a new site; FirstReady; a POP's
// cycle (Promote, FirstReady, the popped site placed again with a later
// head and waiting on its delay); Promote per promoted site; Remove.
// scripts/bench-scheduler.sh builds it against this tree's scheduler and
// against another commit's, side by side (docs/performance.md).
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "storage/site_scheduler.h"

namespace {

using Clock = std::chrono::steady_clock;
using frontier::QueuePos;
using frontier::SiteScheduler;

long ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long total = 0;
  long resident = 0;
  const int n = std::fscanf(f, "%ld %ld", &total, &resident);
  std::fclose(f);
  return n == 2 ? resident * sysconf(_SC_PAGESIZE) : -1;
}

double NsPerOp(Clock::time_point start, uint64_t ops) {
  const double ns =
      std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  return ops == 0 ? 0 : ns / static_cast<double>(ops);
}

struct Options {
  uint64_t sites = 1000000;
  uint64_t partitions = 1;
  uint64_t ops = 1000000;
  uint64_t seed = 1;
};

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    char* end = nullptr;
    const uint64_t v = std::strtoull(argv[i + 1], &end, 10);
    if (*end != '\0' || v == 0) return false;
    if (flag == "--sites") {
      o->sites = v;
    } else if (flag == "--partitions") {
      o->partitions = v;
    } else if (flag == "--ops") {
      o->ops = v;
    } else if (flag == "--seed") {
      o->seed = v;
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: %s [--sites N] [--partitions P] [--ops M] "
                 "[--seed S] (every value > 0)\n",
                 argv[0]);
    return 2;
  }
  std::mt19937_64 rng(o.seed);
  constexpr int64_t kDelayMs = 600000;
  int64_t now = 1000000;
  auto random_head = [&rng](uint16_t depth) {
    QueuePos pos;
    pos.major = depth;
    pos.minor = static_cast<uint16_t>(rng() % 10000);
    pos.url.url_fp = rng();
    pos.url.host_fp = rng();
    return pos;
  };
  std::vector<uint64_t> fps(o.sites);
  for (uint64_t& fp : fps) fp = rng();

  SiteScheduler sched;
  sched.Reset(o.partitions);
  const long rss_before = ResidentBytes();
  Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < o.sites; ++i) {
    SiteScheduler::Placement p;
    p.head = random_head(static_cast<uint16_t>(1 + rng() % 8));
    p.partition = static_cast<uint32_t>(fps[i] % o.partitions);
    p.slots_ready = 1;
    p.slots_other = 0;
    p.next_allowed_ms = i % 2 == 0 ? 0 : now + 1 + rng() % kDelayMs;
    sched.Place(fps[i], p, now);
  }
  const double place_ns = NsPerOp(start, o.sites);
  const long rss_after = ResidentBytes();

  // FirstReady alone.
  uint64_t sink = 0;
  start = Clock::now();
  for (uint64_t i = 0; i < o.ops; ++i) {
    auto first = sched.FirstReady();
    if (first) sink += first->first + i;
  }
  const double first_ns = NsPerOp(start, o.ops);

  // A POP's cycle: the clock moves 1 ms every 100 POPs.
  start = Clock::now();
  uint64_t pops = 0;
  for (uint64_t i = 0; i < o.ops; ++i) {
    if (i % 100 == 0) ++now;
    sched.Promote(now);
    auto first = sched.FirstReady();
    if (!first) continue;
    SiteScheduler::Placement p;
    p.head = first->second;
    p.head->url.url_fp = rng();
    p.head->minor = static_cast<uint16_t>(p.head->minor + 1);
    p.partition = static_cast<uint32_t>(first->first % o.partitions);
    p.slots_ready = 1;
    p.slots_other = 1;
    p.next_allowed_ms = now + kDelayMs;
    sched.Place(first->first, p, now);
    ++pops;
  }
  const double pop_ns = NsPerOp(start, pops);

  // Everything due at once.
  const size_t waiting = sched.waiting_count();
  start = Clock::now();
  sched.Promote(now + 2 * kDelayMs);
  const double promote_ns = NsPerOp(start, waiting);

  start = Clock::now();
  for (uint64_t fp : fps) sched.Remove(fp);
  const double remove_ns = NsPerOp(start, o.sites);

  std::printf(
      "sites %llu partitions %llu: %.1f bytes/site (RSS +%.1f MiB); ns/op: "
      "place new %.0f, FirstReady %.1f, pop cycle %.0f (%llu pops), promote "
      "%.0f (%zu sites), remove %.0f [%llu]\n",
      static_cast<unsigned long long>(o.sites),
      static_cast<unsigned long long>(o.partitions),
      static_cast<double>(rss_after - rss_before) /
          static_cast<double>(o.sites),
      static_cast<double>(rss_after - rss_before) / (1024.0 * 1024.0),
      place_ns, first_ns, pop_ns, static_cast<unsigned long long>(pops),
      promote_ns, waiting, remove_ns,
      static_cast<unsigned long long>(sink % 10));
  return 0;
}
