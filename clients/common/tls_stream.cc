#include "tls_stream.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "str_cat.h"

namespace frontier_client {
namespace {

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

bool IsIpAddress(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

int ConnectTcp(const std::string& host, int port, std::string* error) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &list);
  if (rc != 0) {
    *error = StrCat("connect to ", host, ":", port, ": ",
                    std::string_view(gai_strerror(rc)));
    return -1;
  }
  int fd = -1;
  int last_errno = 0;
  for (addrinfo* a = list; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      last_errno = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(list);
  if (fd < 0) {
    *error = StrCat("connect to ", host, ":", port, ": ",
                    std::string_view(std::strerror(last_errno)));
  }
  return fd;
}

}  // namespace

std::unique_ptr<TlsStream> TlsStream::Connect(const std::string& host, int port,
                                              const TlsOptions& o,
                                              std::string* error) {
  std::unique_ptr<TlsStream> s(new TlsStream());
  s->fd_ = ConnectTcp(host, port, error);
  if (s->fd_ < 0) return nullptr;
  auto fail = [&](std::string_view what) {
    *error = StrCat("TLS to ", host, ":", port, ": ", what);
    std::string details = OpenSslErrors();
    if (!details.empty()) *error += StrCat(" (", details, ")");
    return nullptr;
  };
  s->ctx_ = SSL_CTX_new(TLS_client_method());
  if (s->ctx_ == nullptr) return fail("cannot create a TLS context");
  SSL_CTX_set_min_proto_version(s->ctx_, TLS1_2_VERSION);
  if (!o.insecure) {
    SSL_CTX_set_verify(s->ctx_, SSL_VERIFY_PEER, nullptr);
    int loaded = o.ca_cert.empty() ? SSL_CTX_set_default_verify_paths(s->ctx_)
                                   : SSL_CTX_load_verify_locations(
                                         s->ctx_, o.ca_cert.c_str(), nullptr);
    if (loaded != 1) return fail(StrCat("cannot load CA '", o.ca_cert, "'"));
  }
  if (!o.cert.empty() &&
      SSL_CTX_use_certificate_chain_file(s->ctx_, o.cert.c_str()) != 1) {
    return fail(StrCat("cannot load certificate '", o.cert, "'"));
  }
  if (!o.key.empty() && SSL_CTX_use_PrivateKey_file(s->ctx_, o.key.c_str(),
                                                    SSL_FILETYPE_PEM) != 1) {
    return fail(StrCat("cannot load key '", o.key, "'"));
  }
  s->ssl_ = SSL_new(s->ctx_);
  if (s->ssl_ == nullptr) return fail("cannot create a TLS session");
  const std::string& name = o.sni.empty() ? host : o.sni;
  if (!IsIpAddress(name)) SSL_set_tlsext_host_name(s->ssl_, name.c_str());
  if (!o.insecure) {
    X509_VERIFY_PARAM* param = SSL_get0_param(s->ssl_);
    int set = IsIpAddress(name)
                  ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                  : X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
    if (set != 1) return fail(StrCat("bad server name '", name, "'"));
  }
  SSL_set_fd(s->ssl_, s->fd_);
  int rc = SSL_connect(s->ssl_);
  if (rc != 1) {
    long verify = SSL_get_verify_result(s->ssl_);
    if (verify != X509_V_OK) {
      return fail(
          StrCat("server certificate not accepted: ",
                 std::string_view(X509_verify_cert_error_string(verify))));
    }
    return fail("handshake failed");
  }
  return s;
}

TlsStream::~TlsStream() {
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  if (fd_ >= 0) close(fd_);
}

void TlsStream::SetError(std::string_view what, int ssl_result) {
  int code = SSL_get_error(ssl_, ssl_result);
  if (code == SSL_ERROR_ZERO_RETURN ||
      (code == SSL_ERROR_SYSCALL && ssl_result == 0)) {
    error_ = "connection closed by the server";
  } else {
    error_ = StrCat(what, ": ", OpenSslErrors());
    if (code == SSL_ERROR_SYSCALL) {
      error_ += StrCat(" ", std::string_view(std::strerror(errno)));
    }
  }
}

bool TlsStream::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    int n = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
    if (n <= 0) {
      SetError("TLS write", n);
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

int64_t TlsStream::Read(char* buf, size_t size, bool wait) {
  int flags = fcntl(fd_, F_GETFL);
  if (!wait) fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
  int n = SSL_read(ssl_, buf, static_cast<int>(size));
  if (!wait) fcntl(fd_, F_SETFL, flags);
  if (n > 0) return n;
  if (!wait && SSL_get_error(ssl_, n) == SSL_ERROR_WANT_READ) return 0;
  SetError("TLS read", n);
  return -1;
}

}  // namespace frontier_client
