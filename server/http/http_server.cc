#include "server/http/http_server.h"

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/keyvalq_struct.h>
#include <openssl/evp.h>
#include <strings.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/auth.h"
#include "server/clock.h"
#include "server/http/api_stats.h"
#include "server/http/assets.h"
#include "server/http/metrics.h"
#include "server/listener.h"
#include "server/log.h"

namespace frontier {
namespace {

// Sends `code` with a plain-text `body` and closes the connection after it.
void SendError(evhttp_request* req, int code, const char* reason,
               std::string_view body) {
  evkeyvalq* headers = evhttp_request_get_output_headers(req);
  evhttp_add_header(headers, "Content-Type", "text/plain; charset=utf-8");
  evhttp_add_header(headers, "Connection", "close");
  evbuffer* buf = evbuffer_new();
  evbuffer_add(buf, body.data(), body.size());
  evbuffer_add(buf, "\n", 1);
  evhttp_send_reply(req, code, reason, buf);
  evbuffer_free(buf);
}

void SendBody(evhttp_request* req, const char* content_type,
              std::string_view body) {
  evkeyvalq* headers = evhttp_request_get_output_headers(req);
  evhttp_add_header(headers, "Content-Type", content_type);
  evhttp_add_header(headers, "Cache-Control", "no-store");
  evhttp_add_header(headers, "X-Content-Type-Options", "nosniff");
  // The page loads nothing from elsewhere, and nothing may embed it.
  evhttp_add_header(headers, "Content-Security-Policy",
                    "default-src 'self'; frame-ancestors 'none'");
  // libevent 2.1 would send a body after HEAD's headers: only its length.
  if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
    evhttp_add_header(headers, "Content-Length",
                      std::to_string(body.size()).c_str());
    evhttp_send_reply(req, HTTP_OK, "OK", nullptr);
    return;
  }
  evbuffer* buf = evbuffer_new();
  evbuffer_add(buf, body.data(), body.size());
  evhttp_send_reply(req, HTTP_OK, "OK", buf);
  evbuffer_free(buf);
}

// The bytes of the request's header lines, as a client sent them (about).
size_t HeaderBytes(evhttp_request* req) {
  size_t bytes = 0;
  const evkeyvalq* headers = evhttp_request_get_input_headers(req);
  for (const evkeyval* h = headers->tqh_first; h != nullptr;
       h = h->next.tqe_next) {
    bytes += std::char_traits<char>::length(h->key) +
             std::char_traits<char>::length(h->value) + 4;  // ": " and CRLF
  }
  return bytes;
}

// The user and password of an "Authorization: Basic ..." header; false if
// there is none or it does not decode. An empty user name is "default".
bool BasicCredentials(const char* header, std::string* user,
                      std::string* password) {
  if (header == nullptr || strncasecmp(header, "Basic ", 6) != 0) return false;
  std::string_view b64(header + 6);
  while (!b64.empty() && b64.front() == ' ') b64.remove_prefix(1);
  while (!b64.empty() && b64.back() == ' ') b64.remove_suffix(1);
  if (b64.empty() || b64.size() % 4 != 0 || b64.size() > 4096) return false;
  std::string decoded(b64.size() / 4 * 3, '\0');
  const int n =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                      reinterpret_cast<const unsigned char*>(b64.data()),
                      static_cast<int>(b64.size()));
  if (n < 0) return false;
  size_t len = static_cast<size_t>(n);
  for (size_t i = b64.size(); i > 0 && b64[i - 1] == '='; --i) --len;
  decoded.resize(len);
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return false;
  *user = decoded.substr(0, colon);
  if (user->empty()) *user = "default";
  *password = decoded.substr(colon + 1);
  return true;
}

void IgnoreAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void*) {
  evutil_closesocket(fd);  // never called: evhttp replaces the callback
}

}  // namespace

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    event_base* base, const StatsSources& src) {
  evhttp* http = evhttp_new(base);
  if (http == nullptr) return Status::IOError("cannot create the HTTP server");
  std::unique_ptr<HttpServer> server(new HttpServer(src, http));
  if (src.config.http_tls) {
    // The RESP TLS port's certificate and protocols; client certificates
    // are not asked for (a browser has none).
    Config tls_config = src.config;
    tls_config.tls_auth_clients = TlsAuthClients::kNo;
    auto tls = TlsContext::Create(tls_config);
    if (!tls.ok()) {
      return Status::InvalidArgument("http-tls: " + tls.status().message());
    }
    server->tls_ = std::move(tls).value();
    evhttp_set_bevcb(http, &HttpServer::NewTlsBufferEvent, server.get());
  }
  evhttp_set_allowed_methods(
      http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
                EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
                EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
  evhttp_set_max_headers_size(http, kHardHeaderBytes);
  evhttp_set_max_body_size(http, kMaxBodyBytes);
  evhttp_set_timeout(http, kTimeoutSeconds);
  evhttp_set_gencb(http, &HttpServer::OnRequest, server.get());

  auto listeners = ListenOn(base, src.config.bind, src.config.http_port,
                            &IgnoreAccept, nullptr);
  if (!listeners.ok()) return listeners.status();
  std::vector<ListenerPtr> bound = std::move(listeners).value();
  for (ListenerPtr& l : bound) {
    if (server->port_ == 0) server->port_ = ListenerPort(l.get());
    if (evhttp_bind_listener(http, l.get()) == nullptr) {
      return Status::IOError("cannot serve HTTP on a listener");
    }
    (void)l.release();  // evhttp owns it now
  }
  Log(LogLevel::kNotice, "HTTP%s (/metrics, /api/stats, /) on port %d",
      server->tls_ ? "S" : "", server->port_);
  return server;
}

HttpServer::~HttpServer() { evhttp_free(http_); }

bufferevent* HttpServer::NewTlsBufferEvent(event_base* base, void* arg) {
  auto* self = static_cast<HttpServer*>(arg);
  SSL* ssl = self->tls_->NewSsl();
  // Only when OpenSSL is out of memory; evhttp then makes a plain
  // bufferevent, and the client's handshake fails on the HTTP parser.
  if (ssl == nullptr) return nullptr;
  SSL_set_verify(ssl, SSL_VERIFY_NONE, nullptr);
  bufferevent* bev = bufferevent_openssl_socket_new(
      base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
  if (bev != nullptr) bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
  return bev;
}

void HttpServer::OnRequest(evhttp_request* req, void* arg) {
  static_cast<HttpServer*>(arg)->Handle(req);
}

bool HttpServer::Admit(evhttp_request* req) {
  evhttp_connection* conn = evhttp_request_get_connection(req);
  const sockaddr* peer = conn ? evhttp_connection_get_addr(conn) : nullptr;
  if (peer != nullptr && ProtectedModeRefuses(src_.config, peer)) {
    Log(LogLevel::kVerbose, "Refused HTTP %s: protected mode, no password set",
        FormatPeer(peer).c_str());
    SendError(req, 403, "Forbidden",
              "protected mode: set requirepass or users, or protected-mode "
              "no (docs/security.md)");
    return false;
  }
  if (HeaderBytes(req) > kMaxHeaderBytes) {
    SendError(req, 431, "Request Header Fields Too Large",
              "request headers are over 8 KiB");
    return false;
  }
  const evhttp_cmd_type method = evhttp_request_get_command(req);
  if (method != EVHTTP_REQ_GET && method != EVHTTP_REQ_HEAD) {
    evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
                      "GET, HEAD");
    SendError(req, 405, "Method Not Allowed", "only GET and HEAD are served");
    return false;
  }
  if (!AuthRequired(src_.config)) return true;
  std::string user, password;
  const char* header = evhttp_find_header(evhttp_request_get_input_headers(req),
                                          "Authorization");
  if (BasicCredentials(header, &user, &password) &&
      Authenticate(src_.config, user, password).has_value()) {
    return true;
  }
  evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
                    "Basic realm=\"frontierd\", charset=\"UTF-8\"");
  SendError(req, 401, "Unauthorized",
            "authentication required: the requirepass password (any user "
            "name, or \"default\") or a user's name and password");
  return false;
}

void HttpServer::Handle(evhttp_request* req) {
  if (!Admit(req)) return;
  const evhttp_uri* uri = evhttp_request_get_evhttp_uri(req);
  const char* raw_path = uri ? evhttp_uri_get_path(uri) : nullptr;
  const std::string_view path =
      raw_path == nullptr || *raw_path == '\0' ? "/" : raw_path;
  const int64_t now = NowMs();
  if (path == "/metrics") {
    SendBody(req, kMetricsContentType, RenderMetrics(src_, now));
  } else if (path == "/api/stats") {
    SendBody(req, "application/json", RenderApiStats(src_, now));
  } else if (const Asset* asset = FindAsset(path)) {
    std::string type(asset->content_type);
    SendBody(req, type.c_str(), asset->body);
  } else {
    SendError(req, HTTP_NOTFOUND, "Not Found",
              "not found: the paths are /, /metrics and /api/stats");
  }
}

}  // namespace frontier
