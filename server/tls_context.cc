#include "server/tls_context.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

namespace frontier {
namespace {

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// Any non-empty value works; it only has to be set, or OpenSSL refuses to
// resume sessions of clients whose certificate was verified.
constexpr unsigned char kSessionIdContext[] = "frontierd";

// A key that needs a passphrase would make OpenSSL ask for it on the
// terminal, which a server must never do: refuse it instead.
int NoPassphrase(char*, int, int, void*) { return 0; }

std::string Quoted(std::string_view directive, const std::string& path) {
  return std::string(directive) + " '" + path + "'";
}

// OpenSSL's message for a missing file is "system lib"; say it plainly.
Status CheckReadable(std::string_view directive, const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Status::InvalidArgument(Quoted(directive, path) +
                                   ": cannot read it: " + std::strerror(errno));
  }
  return Status::OK();
}

Status FileError(std::string_view directive, const std::string& path,
                 std::string_view what) {
  std::string detail = TakeOpenSslErrors();
  return Status::InvalidArgument(Quoted(directive, path) + ": " +
                                 std::string(what) +
                                 (detail.empty() ? "" : " (" + detail + ")"));
}

}  // namespace

Status SetTlsProtocols(SSL_CTX* ctx, uint32_t protocols) {
  const int min_version =
      (protocols & kTlsV12) ? TLS1_2_VERSION : TLS1_3_VERSION;
  const int max_version =
      (protocols & kTlsV13) ? TLS1_3_VERSION : TLS1_2_VERSION;
  if (SSL_CTX_set_min_proto_version(ctx, min_version) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, max_version) != 1) {
    return Status::InvalidArgument("tls-protocols: not supported by OpenSSL (" +
                                   TakeOpenSslErrors() + ")");
  }
  return Status::OK();
}

std::string TakeOpenSslErrors() {
  std::string out;
  for (unsigned long e = ERR_get_error(); e != 0; e = ERR_get_error()) {
    if (!out.empty()) out += "; ";
    const char* reason = ERR_reason_error_string(e);
    if (reason != nullptr) {
      out += reason;
    } else {
      char buf[256];
      ERR_error_string_n(e, buf, sizeof(buf));
      out += buf;
    }
  }
  return out;
}

StatusOr<std::unique_ptr<TlsContext>> TlsContext::Create(const Config& c) {
  const std::string port = std::to_string(c.tls_port);
  if (c.tls_cert_file.empty() || c.tls_key_file.empty()) {
    return Status::InvalidArgument("tls-port " + port +
                                   " needs tls-cert-file and tls-key-file");
  }
  if (c.tls_auth_clients != TlsAuthClients::kNo && c.tls_ca_cert_file.empty()) {
    return Status::InvalidArgument(
        "tls-auth-clients " +
        std::string(c.tls_auth_clients == TlsAuthClients::kYes ? "yes"
                                                               : "optional") +
        " needs tls-ca-cert-file, the CA that signs client certificates "
        "(or set tls-auth-clients no)");
  }

  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) {
    return Status::InvalidArgument("cannot create a TLS context: " +
                                   TakeOpenSslErrors());
  }
  if (Status s = SetTlsProtocols(ctx.get(), c.tls_protocols); !s.ok()) {
    return s;
  }
  // No compression (CRIME), no renegotiation (a client could make the
  // single loop thread do handshakes on demand).
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION |
                                     SSL_OP_NO_RENEGOTIATION |
                                     SSL_OP_CIPHER_SERVER_PREFERENCE);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
  // Most clients (redis-cli among them) close without a close_notify.
  // OpenSSL 3 calls that an error; for RESP, whose every command and reply
  // carries its own length, a cut stream is only an incomplete command, so
  // it is the ordinary end of the connection.
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE |
                                  SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_session_id_context(ctx.get(), kSessionIdContext,
                                 sizeof(kSessionIdContext) - 1);
  SSL_CTX_set_default_passwd_cb(ctx.get(), &NoPassphrase);

  if (Status s = CheckReadable("tls-cert-file", c.tls_cert_file); !s.ok()) {
    return s;
  }
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), c.tls_cert_file.c_str()) !=
      1) {
    return FileError("tls-cert-file", c.tls_cert_file,
                     "not a PEM certificate or certificate chain");
  }
  if (Status s = CheckReadable("tls-key-file", c.tls_key_file); !s.ok()) {
    return s;
  }
  // Read apart from SSL_CTX_use_PrivateKey so that "not a key" and "the
  // key of another certificate" get their own messages.
  EVP_PKEY* key = nullptr;
  if (BIO* bio = BIO_new_file(c.tls_key_file.c_str(), "r")) {
    key = PEM_read_bio_PrivateKey(bio, nullptr, &NoPassphrase, nullptr);
    BIO_free(bio);
  }
  if (key == nullptr) {
    return FileError("tls-key-file", c.tls_key_file,
                     "not a PEM private key, or one protected by a passphrase "
                     "(not supported)");
  }
  const bool key_used = SSL_CTX_use_PrivateKey(ctx.get(), key) == 1;
  EVP_PKEY_free(key);  // the context holds its own reference
  if (!key_used || SSL_CTX_check_private_key(ctx.get()) != 1) {
    return FileError("tls-key-file", c.tls_key_file,
                     "does not match the certificate in tls-cert-file '" +
                         c.tls_cert_file + "'");
  }

  if (!c.tls_ca_cert_file.empty()) {
    if (Status s = CheckReadable("tls-ca-cert-file", c.tls_ca_cert_file);
        !s.ok()) {
      return s;
    }
    if (SSL_CTX_load_verify_locations(ctx.get(), c.tls_ca_cert_file.c_str(),
                                      nullptr) != 1) {
      return FileError("tls-ca-cert-file", c.tls_ca_cert_file,
                       "no PEM CA certificate in it");
    }
    // The CA names sent to clients, so that a client with several
    // certificates picks the right one. Owned by the context.
    STACK_OF(X509_NAME)* names =
        SSL_load_client_CA_file(c.tls_ca_cert_file.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(ctx.get(), names);
  }

  switch (c.tls_auth_clients) {
    case TlsAuthClients::kYes:
      SSL_CTX_set_verify(ctx.get(),
                         SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                         nullptr);
      break;
    case TlsAuthClients::kOptional:
      // A certificate is not required, but one that is sent must verify.
      SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
      break;
    case TlsAuthClients::kNo:
      SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
      break;
  }
  ERR_clear_error();
  return std::unique_ptr<TlsContext>(new TlsContext(ctx.release()));
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

SSL* TlsContext::NewSsl() const { return SSL_new(ctx_); }

}  // namespace frontier
