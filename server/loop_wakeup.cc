#include "server/loop_wakeup.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace frontier {

LoopWakeup::LoopWakeup(event_base* base, std::function<void()> on_wake)
    : on_wake_(std::move(on_wake)) {
  fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd_ < 0) return;
  event_.reset(
      event_new(base, fd_, EV_READ | EV_PERSIST, &LoopWakeup::OnWake, this));
  if (event_ != nullptr) event_add(event_.get(), nullptr);
}

LoopWakeup::~LoopWakeup() {
  event_.reset();
  if (fd_ >= 0) ::close(fd_);
}

void LoopWakeup::Notify() {
  if (!ok()) return;
  const uint64_t one = 1;
  // Cannot fail short of a counter overflow: the loop drains it.
  (void)!::write(fd_, &one, sizeof(one));
}

void LoopWakeup::OnWake(evutil_socket_t fd, short, void* arg) {
  uint64_t count = 0;
  (void)!::read(fd, &count, sizeof(count));
  static_cast<LoopWakeup*>(arg)->on_wake_();
}

}  // namespace frontier
