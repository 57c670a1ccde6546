// The power-loss test's load: crawler-like clients that pipeline ADD,
// MADD, POP, CONFIRM, FAIL, EXTEND, RELEASE, SITE BLOCK and ROBOTS SET
// until their connection dies, and record every reply that arrived (an
// acknowledged write) with the time it arrived.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace frontier::powerloss {

using Clock = std::chrono::steady_clock;

enum class Kind { kAdd, kPop, kConfirm, kFail, kRelease, kExtend, kBlock, kRobots };

struct Acked {
  Kind kind;
  std::string key;                  // URL, site (kBlock) or origin (kRobots)
  std::vector<std::string> popped;  // kPop
  long long result = 0;             // integer replies
  Clock::time_point received;
};

// One client's view of a run. Filled by RunClient, read after it returned.
struct ClientLog {
  std::vector<Acked> acked;
  std::set<std::string> sent_urls;         // ADD/MADD sent, acked or not
  std::set<std::string> sent_resolutions;  // CONFIRM/FAIL/RELEASE sent
  std::vector<std::string> unexpected;     // replies of the wrong shape
  std::atomic<size_t> answered{0};
};

// Runs one client against 127.0.0.1:port until the connection fails or
// `stop` is set, or after `max_batches` batches. `tag` makes its URLs and
// sites its own (so that resolutions are never raced by another client).
void RunClient(int port, const std::string& tag, uint64_t seed,
               int max_batches, const std::atomic<bool>& stop, ClientLog* log);

}  // namespace frontier::powerloss
