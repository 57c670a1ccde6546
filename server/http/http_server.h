// HttpServer: the HTTP door into the event loop (libevent's evhttp, on the
// Server's event_base): GET /metrics (Prometheus), GET /api/stats (JSON)
// and GET / with the dashboard page's files. It listens on http-port at
// every `bind` address, over HTTPS with http-tls, and applies the RESP
// port's protected mode and passwords (HTTP Basic authentication).
//
// Bad requests cost the loop nothing it cannot bound: an unknown path gets
// 404, a method other than GET or HEAD 405, headers past kMaxHeaderBytes
// 431 (past kHardHeaderBytes libevent itself answers 413), a body past
// kMaxBodyBytes 413, and a connection idle for kTimeoutSeconds mid-request
// is closed. Every error closes the connection. docs/operations.md names
// these limits for users.
#pragma once

#include <event2/http.h>

#include <cstddef>
#include <memory>

#include "server/http/stats_sources.h"
#include "server/libevent_ptr.h"
#include "server/tls_context.h"
#include "util/status.h"

namespace frontier {

class HttpServer {
 public:
  static constexpr size_t kMaxHeaderBytes = 8 * 1024;
  static constexpr size_t kHardHeaderBytes = 64 * 1024;
  static constexpr size_t kMaxBodyBytes = 4 * 1024;
  static constexpr int kTimeoutSeconds = 10;

  // Listens on src.config.http_port (0 picks a free port) at every bind
  // address. IOError naming the address if one cannot be bound;
  // InvalidArgument if http-tls is on and the TLS set-up fails (see
  // TlsContext::Create). `base` and everything `src` refers to must outlive
  // the HttpServer.
  static StatusOr<std::unique_ptr<HttpServer>> Start(event_base* base,
                                                     const StatsSources& src);
  // Closes the listeners and every HTTP connection.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port listened on.
  int port() const { return port_; }

 private:
  HttpServer(const StatsSources& src, evhttp* http) : src_(src), http_(http) {}

  static void OnRequest(evhttp_request* req, void* arg);
  // evhttp's bufferevent factory with http-tls: a TLS server bufferevent.
  static bufferevent* NewTlsBufferEvent(event_base* base, void* arg);
  void Handle(evhttp_request* req);
  // Whether `req` may be served; if not, the error reply has been sent.
  bool Admit(evhttp_request* req);

  StatsSources src_;
  evhttp* http_;  // owned
  std::unique_ptr<TlsContext> tls_;
  int port_ = 0;
};

}  // namespace frontier
