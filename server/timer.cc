#include "server/timer.h"

#include <utility>

namespace frontier {

Timer::Timer(event_base* base, Kind kind, std::function<void()> callback)
    : callback_(std::move(callback)),
      event_(event_new(base, -1, kind == Kind::kPeriodic ? EV_PERSIST : 0,
                       &Timer::OnEvent, this)) {}

void Timer::Start(int64_t ms) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(ms / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  event_add(event_.get(), &tv);
}

void Timer::Stop() { event_del(event_.get()); }

void Timer::Fire() { event_active(event_.get(), EV_TIMEOUT, 0); }

bool Timer::pending() const {
  return event_pending(event_.get(), EV_TIMEOUT, nullptr) != 0;
}

void Timer::OnEvent(evutil_socket_t, short, void* arg) {
  static_cast<Timer*>(arg)->callback_();
}

}  // namespace frontier
