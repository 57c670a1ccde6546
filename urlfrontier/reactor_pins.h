// ReactorPins: when a gRPC callback reactor may delete itself. gRPC calls
// OnDone once it is done with the reactor, but a batch the Caller still
// owes an answer has a continuation that will run on the reactor: each
// such batch pins it. Whichever comes last, OnDone or the last Unpin,
// deletes it. Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>

namespace frontier::urlfrontier {

class ReactorPins {
 public:
  // Before a Call() whose continuation uses the reactor.
  void Pin() {
    std::lock_guard<std::mutex> lock(mu_);
    ++pins_;
  }
  // At the very end of that continuation: true if the reactor must now be
  // deleted (OnDone came, and this was the last pin).
  [[nodiscard]] bool Unpin() {
    std::lock_guard<std::mutex> lock(mu_);
    return --pins_ == 0 && done_;
  }
  // In OnDone: true if nothing pins the reactor (delete it now).
  [[nodiscard]] bool Done() {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    return pins_ == 0;
  }

 private:
  std::mutex mu_;
  size_t pins_ = 0;
  bool done_ = false;
};

}  // namespace frontier::urlfrontier
