// Timer: a libevent timer that runs a callback on the event loop, once or
// periodically. Also used as a "run this in the next loop pass" trigger.
#pragma once

#include <cstdint>
#include <functional>

#include "server/libevent_ptr.h"

namespace frontier {

class Timer {
 public:
  enum class Kind { kOnce, kPeriodic };

  // `base` must outlive the Timer. The callback runs on the loop thread.
  Timer(event_base* base, Kind kind, std::function<void()> callback);
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // (Re)arms the timer to fire after `ms` (and every `ms` if periodic).
  void Start(int64_t ms);
  // Disarms it; a pending Fire() is cancelled too.
  void Stop();
  // Makes the callback run in the next loop pass, without waiting.
  void Fire();
  bool pending() const;

 private:
  static void OnEvent(evutil_socket_t fd, short what, void* arg);

  std::function<void()> callback_;
  EventPtr event_;
};

}  // namespace frontier
