// TlsContext: the server's one OpenSSL SSL_CTX, built at start from the
// tls-* directives (certificate chain, private key, CA for client
// certificates, tls-auth-clients, tls-protocols). Every TLS connection gets
// its SSL object from it. See docs/security.md for how to set TLS up.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "server/config.h"
#include "util/status.h"

namespace frontier {

class TlsContext {
 public:
  // Builds the context from `config`. Returns InvalidArgument whose message
  // names the directive and the file when a file is missing, unreadable or
  // not what it should be ("tls-key-file '/x.key': ..."), when the key does
  // not match the certificate, when tls-cert-file or tls-key-file is unset,
  // or when client certificates are asked for (tls-auth-clients yes or
  // optional) without tls-ca-cert-file to check them against.
  static StatusOr<std::unique_ptr<TlsContext>> Create(const Config& config);

  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A new server-side SSL object for one accepted connection, owned by the
  // caller (SSL_free, or a bufferevent opened with BEV_OPT_CLOSE_ON_FREE).
  // nullptr if OpenSSL cannot allocate one.
  SSL* NewSsl() const;

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

// Limits `ctx` to the protocol versions of tls-protocols (TlsProtocol
// bits); InvalidArgument if OpenSSL cannot.
Status SetTlsProtocols(SSL_CTX* ctx, uint32_t protocols);

// Takes every error in this thread's OpenSSL error queue, oldest first, as
// "reason; reason" (empty if there is none). Clears the queue.
std::string TakeOpenSslErrors();

}  // namespace frontier
