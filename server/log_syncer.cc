#include "server/log_syncer.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace frontier {

LogSyncer::LogSyncer(event_base* base, Frontier& frontier, Done done)
    : frontier_(frontier), done_(std::move(done)) {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ >= 0) {
    wake_event_.reset(event_new(base, wake_fd_, EV_READ | EV_PERSIST,
                                &LogSyncer::OnWake, this));
    event_add(wake_event_.get(), nullptr);
  }
  thread_ = std::thread([this] { ThreadMain(); });
}

LogSyncer::~LogSyncer() {
  Stop();
  wake_event_.reset();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

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
    results_.push_back(Result{target, std::move(s), ns});
    if (wake_fd_ >= 0) {
      const uint64_t one = 1;
      // Cannot fail short of a counter overflow: the loop drains it.
      (void)!::write(wake_fd_, &one, sizeof(one));
    }
  }
}

void LogSyncer::OnWake(evutil_socket_t fd, short, void* arg) {
  uint64_t count = 0;
  (void)!::read(fd, &count, sizeof(count));
  static_cast<LogSyncer*>(arg)->Report();
}

void LogSyncer::Report() {
  std::vector<Result> results;
  {
    std::lock_guard<std::mutex> lock(mu_);
    results.swap(results_);
  }
  for (const Result& r : results) done_(r.seq, r.status, r.sync_ns);
}

}  // namespace frontier
