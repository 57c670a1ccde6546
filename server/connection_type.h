// ConnectionType: how an accepted socket becomes a client's bufferevent, as
// plain TCP or as TLS, behind one interface (Redis's ConnectionType), so
// that the Server and Connection treat both alike: each listener has a
// type, and a Connection only asks its type to describe an error.
#pragma once

#include <event2/util.h>

#include <memory>
#include <string>

#include "server/libevent_ptr.h"
#include "server/tls_context.h"

namespace frontier {

class ConnectionType {
 public:
  virtual ~ConnectionType() = default;

  // "tcp" or "tls", for the log.
  virtual const char* name() const = 0;

  // Wraps the accepted, non-blocking socket `fd` in a bufferevent on `base`
  // that owns it (closing it when freed). For TLS the handshake starts on
  // the first read. On failure returns nullptr, having closed `fd`.
  virtual BufferEventPtr Wrap(event_base* base, evutil_socket_t fd) const = 0;

  // True if bytes written straight to the socket reach the client as they
  // are (TCP), so a connection can be refused with an error reply without
  // wrapping it. False for TLS, where such a client is just closed.
  virtual bool plaintext() const = 0;

  // Why `bev` reported an error, for the log: the TLS layer's reasons
  // ("peer did not return a certificate") or the socket error; "" if
  // nothing says. Call it from the bufferevent's event callback.
  virtual std::string DescribeError(bufferevent* bev) const = 0;
};

std::unique_ptr<ConnectionType> NewTcpConnectionType();

// The TLS type; every connection's SSL comes from `tls`, which the type
// owns.
std::unique_ptr<ConnectionType> NewTlsConnectionType(
    std::unique_ptr<TlsContext> tls);

}  // namespace frontier
