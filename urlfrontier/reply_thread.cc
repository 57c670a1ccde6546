#include "urlfrontier/reply_thread.h"

#include <utility>

namespace frontier::urlfrontier {

ReplyThread::ReplyThread() : thread_([this] { Run(); }) {}

ReplyThread::~ReplyThread() { Stop(); }

void ReplyThread::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void ReplyThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ReplyThread::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything ran
    std::function<void()> fn = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    fn();
    fn = nullptr;  // what it holds goes before the lock is taken again
    lock.lock();
  }
}

}  // namespace frontier::urlfrontier
