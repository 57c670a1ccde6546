#include "server/connection_type.h"

#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>

#include <cerrno>

namespace frontier {
namespace {

std::string SocketError() {
  int err = EVUTIL_SOCKET_ERROR();
  return err == 0 ? "" : evutil_socket_error_to_string(err);
}

class TcpConnectionType : public ConnectionType {
 public:
  const char* name() const override { return "tcp"; }

  BufferEventPtr Wrap(event_base* base, evutil_socket_t fd) const override {
    BufferEventPtr bev(bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE));
    if (!bev) evutil_closesocket(fd);
    return bev;
  }

  bool plaintext() const override { return true; }

  std::string DescribeError(bufferevent*) const override {
    return SocketError();
  }
};

class TlsConnectionType : public ConnectionType {
 public:
  explicit TlsConnectionType(std::unique_ptr<TlsContext> tls)
      : tls_(std::move(tls)) {}

  const char* name() const override { return "tls"; }

  BufferEventPtr Wrap(event_base* base, evutil_socket_t fd) const override {
    SSL* ssl = tls_->NewSsl();
    if (ssl == nullptr) {
      ERR_clear_error();
      evutil_closesocket(fd);
      return nullptr;
    }
    // With BEV_OPT_CLOSE_ON_FREE the bufferevent frees the SSL and closes
    // the socket; if it cannot be created, both are still ours.
    BufferEventPtr bev(bufferevent_openssl_socket_new(
        base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE));
    if (!bev) {
      SSL_free(ssl);
      evutil_closesocket(fd);
      return nullptr;
    }
    // Most clients close without a TLS close_notify; that is an ordinary
    // end of the connection (EOF), not an error.
    bufferevent_openssl_set_allow_dirty_shutdown(bev.get(), 1);
    return bev;
  }

  bool plaintext() const override { return false; }

  std::string DescribeError(bufferevent* bev) const override {
    std::string out;
    for (unsigned long e = bufferevent_get_openssl_error(bev); e != 0;
         e = bufferevent_get_openssl_error(bev)) {
      // libevent also queues SSL_get_error() codes, which have no reason
      // text and add nothing to OpenSSL's own errors.
      const char* reason = ERR_reason_error_string(e);
      if (reason == nullptr) continue;
      if (!out.empty()) out += "; ";
      out += reason;
    }
    if (out.empty()) out = SocketError();
    return out;
  }

 private:
  std::unique_ptr<TlsContext> tls_;
};

}  // namespace

std::unique_ptr<ConnectionType> NewTcpConnectionType() {
  return std::make_unique<TcpConnectionType>();
}

std::unique_ptr<ConnectionType> NewTlsConnectionType(
    std::unique_ptr<TlsContext> tls) {
  return std::make_unique<TlsConnectionType>(std::move(tls));
}

}  // namespace frontier
