// The workloads (add, pop-confirm, crawl, and pop or confirm alone): each
// runs one thread per connection, times every request of every pipeline, and
// counts what the correctness checks need.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "histogram.h"
#include "options.h"

namespace bench {

enum Verb { kVerbAdd, kVerbMadd, kVerbPop, kVerbConfirm, kVerbCount };
const char* VerbName(int verb);

// What one connection saw; merged over connections at the end.
struct Counters {
  std::array<LatencyHistogram, kVerbCount> latency;
  std::array<uint64_t, kVerbCount> commands{};
  uint64_t added_new = 0;      // :1 replies of ADD and MADD elements
  uint64_t added_known = 0;    // :0
  uint64_t added_refused = 0;  // :-1
  uint64_t link_checks = 0;    // URLs in MADD replies
  uint64_t popped = 0;         // URLs returned by POP
  uint64_t confirm_ok = 0;     // CONFIRM :1
  uint64_t confirm_zero = 0;   // CONFIRM :0 (a URL we hold a lease on)
  uint64_t errors = 0;         // error replies, and replies of the wrong type
  std::string first_error;
  std::vector<uint64_t> popped_hashes;  // to find URLs popped twice
  bool io_failed = false;

  void NoteError(std::string_view what);
  // Adds other's counts and latencies into this one; other's hashes are
  // moved out.
  void Merge(Counters& other);
  // The same without latencies and command counts: what an unmeasured phase
  // (loading, seeding, cleaning up) adds to the checks but not to the rates.
  void MergeChecks(Counters& other);
};

struct RunResult {
  Counters total;
  double seconds = 0;
  uint64_t expected_new = 0;    // unique URLs sent (add, crawl incl. seeds,
                                // pop and confirm: the URLs loaded)
  bool check_new = false;       // expected_new applies to this workload
  uint64_t seeds = 0;           // crawl: start URLs added before the clock
  uint64_t duplicate_pops = 0;  // URLs popped more than once
  bool hit_duration = false;    // --duration stopped the run
  std::string fatal;            // connection failure: nothing else is valid
};

// Runs o.workload against the server; never throws. URLs are generated
// before the clock starts.
RunResult RunWorkload(const Options& o);

}  // namespace bench
