#include "server/internal_link.h"

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <cstdlib>
#include <vector>

#include "server/tls_context.h"

namespace frontier {
namespace {

std::string SocketError() {
  const int err = EVUTIL_SOCKET_ERROR();
  return err == 0 ? "closed" : evutil_socket_error_to_string(err);
}

std::string OpenSslErrorsOf(bufferevent* bev) {
  std::string out;
  for (unsigned long e = bufferevent_get_openssl_error(bev); e != 0;
       e = bufferevent_get_openssl_error(bev)) {
    const char* reason = ERR_reason_error_string(e);
    if (reason == nullptr) continue;  // SSL_get_error() codes: no text
    if (!out.empty()) out += "; ";
    out += reason;
  }
  return out;
}

Status LinkTlsError(std::string_view what) {
  return Status::InvalidArgument("tls-cluster: " + std::string(what) + " (" +
                                 TakeOpenSslErrors() + ")");
}

}  // namespace

StatusOr<LinkTlsContext> NewLinkTlsContext(const Config& c) {
  ERR_clear_error();
  LinkTlsContext ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return LinkTlsError("cannot create a TLS context");
  if (Status s = SetTlsProtocols(ctx.get(), c.tls_protocols); !s.ok()) {
    return s;
  }
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION |
                                     SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE |
                                  SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (c.tls_ca_cert_file.empty()) {
    return Status::InvalidArgument(
        "tls-cluster yes needs tls-ca-cert-file, the CA the other nodes' "
        "certificates are checked against");
  }
  if (SSL_CTX_load_verify_locations(ctx.get(), c.tls_ca_cert_file.c_str(),
                                    nullptr) != 1) {
    return LinkTlsError("tls-ca-cert-file '" + c.tls_ca_cert_file +
                        "': no PEM CA certificate in it");
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(),
                                         c.tls_cert_file.c_str()) != 1) {
    return LinkTlsError("tls-cert-file '" + c.tls_cert_file +
                        "': not a PEM certificate or certificate chain");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), c.tls_key_file.c_str(),
                                  SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    return LinkTlsError("tls-key-file '" + c.tls_key_file +
                        "': not the key of tls-cert-file");
  }
  ERR_clear_error();
  return ctx;
}

InternalLink::InternalLink(Callbacks callbacks, bool tls)
    : callbacks_(std::move(callbacks)), tls_(tls) {}

StatusOr<std::unique_ptr<InternalLink>> InternalLink::Open(
    event_base* base, const cluster::Address& to, SSL_CTX* tls,
    Callbacks callbacks) {
  const std::string where = to.ToString();
  // The peer's address first (a host name is resolved here, blocking).
  evutil_addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  evutil_addrinfo* found = nullptr;
  const std::string port = std::to_string(to.port);
  if (const int err = evutil_getaddrinfo(to.host.c_str(), port.c_str(), &hints,
                                         &found);
      err != 0 || found == nullptr) {
    return Status::Unavailable("cannot resolve " + where + ": " +
                               evutil_gai_strerror(err));
  }
  std::unique_ptr<InternalLink> link(
      new InternalLink(std::move(callbacks), tls != nullptr));
  link->reader_ = redisReaderCreate();
  if (tls != nullptr) {
    SSL* ssl = SSL_new(tls);
    if (ssl == nullptr) {
      evutil_freeaddrinfo(found);
      return Status::Unavailable("cannot create a TLS session: " +
                                 TakeOpenSslErrors());
    }
    // The peer's certificate must name the address it is reached at: an
    // IP address in its subjectAltName, or the host name.
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, to.host.c_str()) != 1) {
      SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      SSL_set1_host(ssl, to.host.c_str());
      SSL_set_tlsext_host_name(ssl, to.host.c_str());
    }
    ERR_clear_error();
    link->bev_.reset(bufferevent_openssl_socket_new(
        base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE));
    if (!link->bev_) SSL_free(ssl);
  } else {
    link->bev_.reset(bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE));
  }
  if (!link->bev_) {
    evutil_freeaddrinfo(found);
    return Status::Unavailable("cannot create a connection to " + where);
  }
  bufferevent_setcb(link->bev_.get(), &InternalLink::OnRead, nullptr,
                    &InternalLink::OnEvent, link.get());
  bufferevent_enable(link->bev_.get(), EV_READ | EV_WRITE);
  const int started = bufferevent_socket_connect(
      link->bev_.get(), found->ai_addr, static_cast<int>(found->ai_addrlen));
  evutil_freeaddrinfo(found);
  if (started != 0) {
    return Status::Unavailable("cannot connect to " + where + " (" +
                               SocketError() + ")");
  }
  return link;
}

InternalLink::~InternalLink() {
  bev_.reset();
  if (reader_ != nullptr) redisReaderFree(reader_);
}

void InternalLink::Send(std::span<const std::string> argv) {
  if (closed_) return;
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const std::string& arg : argv) {
    ptrs.push_back(arg.data());
    lens.push_back(arg.size());
  }
  char* command = nullptr;
  const int len = redisFormatCommandArgv(
      &command, static_cast<int>(argv.size()), ptrs.data(), lens.data());
  ++unanswered_;
  if (len < 0 || bufferevent_write(bev_.get(), command,
                                   static_cast<size_t>(len)) != 0) {
    if (command != nullptr) redisFreeCommand(command);
    Close("out of memory");
    return;
  }
  redisFreeCommand(command);
}

void InternalLink::OnRead(bufferevent* bev, void* arg) {
  auto* self = static_cast<InternalLink*>(arg);
  evbuffer* in = bufferevent_get_input(bev);
  const size_t n = evbuffer_get_length(in);
  if (n == 0) return;
  const char* data =
      reinterpret_cast<const char*>(evbuffer_pullup(in, static_cast<ssize_t>(n)));
  if (redisReaderFeed(self->reader_, data, n) != REDIS_OK) {
    self->Close("out of memory");
    return;
  }
  evbuffer_drain(in, n);
  while (!self->closed_) {
    void* reply = nullptr;
    if (redisReaderGetReply(self->reader_, &reply) != REDIS_OK) {
      self->Close(std::string("protocol error: ") + self->reader_->errstr);
      return;
    }
    if (reply == nullptr) return;  // no whole reply yet
    if (self->unanswered_ > 0) --self->unanswered_;
    self->callbacks_.reply(static_cast<const redisReply*>(reply));
    freeReplyObject(reply);
  }
}

void InternalLink::OnEvent(bufferevent* bev, short what, void* arg) {
  auto* self = static_cast<InternalLink*>(arg);
  if (what & BEV_EVENT_CONNECTED) {
    self->connected_ = true;
    return;
  }
  if (what & BEV_EVENT_EOF) {
    self->Close("closed by the peer");
  } else if (what & BEV_EVENT_ERROR) {
    std::string why = self->tls_ ? OpenSslErrorsOf(bev) : std::string();
    if (why.empty()) why = SocketError();
    self->Close(std::move(why));
  }
}

void InternalLink::Close(std::string why) {
  if (closed_) return;
  closed_ = true;
  error_ = std::move(why);
  // The callbacks may not destroy this link; freeing the bufferevent from
  // its own callback is allowed (libevent defers it).
  bev_.reset();
  for (; unanswered_ > 0; --unanswered_) callbacks_.reply(nullptr);
  callbacks_.closed();
}

}  // namespace frontier
