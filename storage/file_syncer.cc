#include "storage/file_syncer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iterator>

namespace frontier {

FileSyncer::FileSyncer(std::vector<std::string> paths, int64_t period_ms,
                       ErrorFn on_error)
    : paths_(std::move(paths)),
      period_ms_(period_ms),
      on_error_(std::move(on_error)),
      fds_(paths_.size(), -1),
      thread_([this] { Run(); }) {}

FileSyncer::~FileSyncer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  for (int fd : fds_) {
    if (fd >= 0) ::close(fd);
  }
}

uint64_t FileSyncer::rounds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rounds_;
}

void FileSyncer::Remove(std::vector<std::string> paths) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    to_remove_.insert(to_remove_.end(), std::make_move_iterator(paths.begin()),
                      std::make_move_iterator(paths.end()));
  }
  wake_.notify_all();
}

void FileSyncer::Run() {
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::milliseconds(period_ms_);
  auto next_sync = Clock::now() + period;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait_until(lock, next_sync,
                     [this] { return stopping_ || !to_remove_.empty(); });
    std::vector<std::string> removals;
    removals.swap(to_remove_);
    const bool stop = stopping_;
    lock.unlock();
    RemoveAll(removals);
    if (stop) return;
    if (Clock::now() >= next_sync) {
      SyncAll();
      next_sync = Clock::now() + period;
      lock.lock();
      ++rounds_;
    } else {
      lock.lock();
    }
  }
}

void FileSyncer::RemoveAll(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      const int err = errno;
      on_error_(Status::IOError("unlink " + path + ": " + std::strerror(err)));
    }
  }
}

void FileSyncer::SyncAll() {
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (fds_[i] < 0) {
      fds_[i] = ::open(paths_[i].c_str(), O_RDONLY | O_CLOEXEC);
      if (fds_[i] < 0) continue;  // not created yet: nothing to sync
    }
    // Starts the writeback of the file's dirty pages and returns: unlike
    // fdatasync it neither waits for them nor forces a journal commit,
    // which would hold up the fsyncs of the log that acknowledge writes.
    if (::sync_file_range(fds_[i], 0, 0, SYNC_FILE_RANGE_WRITE) != 0) {
      const int err = errno;
      on_error_(Status::IOError("sync_file_range " + paths_[i] + ": " +
                                std::strerror(err)));
    }
  }
}

}  // namespace frontier
