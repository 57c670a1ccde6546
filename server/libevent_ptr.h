// Owning smart pointers for libevent objects: each frees its object with
// the matching libevent call when it goes out of scope.
#pragma once

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include <memory>

namespace frontier {

struct EventBaseDeleter {
  void operator()(event_base* base) const { event_base_free(base); }
};
struct EventDeleter {
  void operator()(event* ev) const { event_free(ev); }
};
struct ListenerDeleter {
  void operator()(evconnlistener* l) const { evconnlistener_free(l); }
};
struct BufferEventDeleter {
  void operator()(bufferevent* bev) const { bufferevent_free(bev); }
};

using EventBasePtr = std::unique_ptr<event_base, EventBaseDeleter>;
using EventPtr = std::unique_ptr<event, EventDeleter>;
using ListenerPtr = std::unique_ptr<evconnlistener, ListenerDeleter>;
using BufferEventPtr = std::unique_ptr<bufferevent, BufferEventDeleter>;

}  // namespace frontier
