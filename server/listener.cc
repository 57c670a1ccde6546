#include "server/listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "server/log.h"

namespace frontier {
namespace {

// As Redis's default tcp-backlog.
constexpr int kBacklog = 511;

// accept() failed (EMFILE, ENOBUFS...): the listener stays open and tries
// again on the next readiness, as Redis does; say why in the log.
void OnListenerError(evconnlistener*, void*) {
  Log(LogLevel::kWarning, "Accepting client connection: %s",
      evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

}  // namespace

StatusOr<std::vector<ListenerPtr>> ListenOn(
    event_base* base, const std::vector<std::string>& addresses, int port,
    evconnlistener_cb on_accept, void* arg) {
  std::vector<ListenerPtr> listeners;
  for (const std::string& address : addresses) {
    sockaddr_storage ss{};
    socklen_t len = 0;
    unsigned flags =
        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE;
    auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
    if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
      v4->sin_family = AF_INET;
      v4->sin_port = htons(static_cast<uint16_t>(port));
      len = sizeof(sockaddr_in);
    } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
      v6->sin6_family = AF_INET6;
      v6->sin6_port = htons(static_cast<uint16_t>(port));
      len = sizeof(sockaddr_in6);
      flags |= LEV_OPT_BIND_IPV6ONLY;
    } else {
      return Status::InvalidArgument("bind address '" + address +
                                     "' is not an IP address");
    }
    errno = 0;
    ListenerPtr listener(evconnlistener_new_bind(
        base, on_accept, arg, flags, kBacklog, reinterpret_cast<sockaddr*>(&ss),
        static_cast<int>(len)));
    if (!listener) {
      return Status::IOError("could not listen on " + address + ":" +
                             std::to_string(port) + ": " +
                             std::strerror(errno != 0 ? errno : EADDRINUSE));
    }
    evconnlistener_set_error_cb(listener.get(), &OnListenerError);
    listeners.push_back(std::move(listener));
  }
  return listeners;
}

int ListenerPort(evconnlistener* listener) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(evconnlistener_get_fd(listener),
                  reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
    return 0;
  }
  if (ss.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  }
  if (ss.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  }
  return 0;
}

void SetClientSocketOptions(evutil_socket_t fd, int keepalive_s) {
  auto set = [fd](int level, int option, int value) {
    return setsockopt(fd, level, option, &value, sizeof(value)) == 0;
  };
  set(IPPROTO_TCP, TCP_NODELAY, 1);
  // With 0, keepalive is turned off explicitly: evconnlistener turns
  // SO_KEEPALIVE on for the listening socket, and accepted sockets inherit
  // it.
  bool ok = set(SOL_SOCKET, SO_KEEPALIVE, keepalive_s > 0 ? 1 : 0);
  if (ok && keepalive_s > 0) {
    ok = set(IPPROTO_TCP, TCP_KEEPIDLE, keepalive_s) &&
         set(IPPROTO_TCP, TCP_KEEPINTVL, std::max(keepalive_s / 3, 1)) &&
         set(IPPROTO_TCP, TCP_KEEPCNT, 3);
  }
  if (!ok) {
    Log(LogLevel::kVerbose, "Setting TCP keepalive on a client socket: %s",
        std::strerror(errno));
  }
}

std::string FormatPeer(const sockaddr* addr) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (addr->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(addr);
    inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (addr->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(addr);
    inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof(ip));
    return "[" + std::string(ip) + "]:" + std::to_string(ntohs(v6->sin6_port));
  }
  return "?";
}

}  // namespace frontier
