// TCP listening sockets on the configured bind addresses, and the address
// formatting the server needs for accepted peers.
#pragma once

#include <sys/socket.h>

#include <string>
#include <vector>

#include "server/libevent_ptr.h"
#include "util/status.h"

namespace frontier {

// Listens on `port` at each of `addresses` (IPv4 or IPv6 literals; IPv6
// sockets are IPv6-only so "0.0.0.0 ::" can be bound together) and calls
// `on_accept(listener, fd, addr, len, arg)` for each new connection. Port 0
// picks a free port per address. Returns IOError naming the address that
// could not be bound; no listener is left open then.
StatusOr<std::vector<ListenerPtr>> ListenOn(
    event_base* base, const std::vector<std::string>& addresses, int port,
    evconnlistener_cb on_accept, void* arg);

// The local port `listener` is bound to, or 0 if unknown.
int ListenerPort(evconnlistener* listener);

// Sets an accepted client socket's options: TCP_NODELAY, and with
// `keepalive_s` > 0 TCP keepalive as Redis's tcp-keepalive does it
// (SO_KEEPALIVE; first probe after keepalive_s idle seconds, then every
// keepalive_s / 3, dropped after 3 unanswered); 0 turns keepalive off.
// Failures are logged at verbose level and otherwise ignored: the client
// is served either way.
void SetClientSocketOptions(evutil_socket_t fd, int keepalive_s);

// "1.2.3.4:5678" or "[::1]:5678"; "?" for other families.
std::string FormatPeer(const sockaddr* addr);

}  // namespace frontier
