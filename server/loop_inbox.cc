#include "server/loop_inbox.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace frontier {

LoopInbox::LoopInbox(event_base* base) {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ >= 0) {
    wake_event_.reset(event_new(base, wake_fd_, EV_READ | EV_PERSIST,
                                &LoopInbox::OnWake, this));
    event_add(wake_event_.get(), nullptr);
  }
}

LoopInbox::~LoopInbox() {
  wake_event_.reset();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void LoopInbox::Post(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  posted_.push_back(std::move(fn));
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    // Cannot fail short of a counter overflow: the loop drains it.
    (void)!::write(wake_fd_, &one, sizeof(one));
  }
}

void LoopInbox::OnWake(evutil_socket_t fd, short, void* arg) {
  uint64_t count = 0;
  (void)!::read(fd, &count, sizeof(count));
  static_cast<LoopInbox*>(arg)->RunPosted();
}

void LoopInbox::RunPosted() {
  std::vector<std::function<void()>> posted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    posted.swap(posted_);
  }
  for (std::function<void()>& fn : posted) fn();
}

}  // namespace frontier
