#include "server/log_syncer.h"

#include <chrono>

namespace frontier {

LogSyncer::LogSyncer(event_base* base, Frontier& frontier, Done done)
    : frontier_(frontier), done_(std::move(done)), inbox_(base) {
  thread_ = std::thread([this] { ThreadMain(); });
}

LogSyncer::~LogSyncer() { Stop(); }

void LogSyncer::Request(uint64_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (seq <= requested_) return;
    requested_ = seq;
  }
  cv_.notify_one();
}

void LogSyncer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void LogSyncer::ThreadMain() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || requested_ > synced_; });
    if (stopping_) return;
    const uint64_t target = requested_;
    lock.unlock();
    const auto started = std::chrono::steady_clock::now();
    Status s = frontier_.SyncLog(target);
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
    lock.lock();
    synced_ = target;
    inbox_.Post([this, target, s = std::move(s), ns] { done_(target, s, ns); });
  }
}

}  // namespace frontier
