// The server's clock: wall-clock milliseconds since the Unix epoch, the
// time every Frontier call receives (leases, politeness, recrawl dates are
// wall-clock dates that survive restarts).
#pragma once

#include <chrono>
#include <cstdint>

namespace frontier {

inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace frontier
