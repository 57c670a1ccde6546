#include "server/urlfrontier_credentials.h"

#include <grpcpp/security/server_credentials.h>

#include <fstream>
#include <sstream>
#include <string>

#include "server/tls_context.h"

namespace frontier {
namespace {

// The whole of `path`, or InvalidArgument naming `directive`.
StatusOr<std::string> ReadPem(const char* directive, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    return Status::InvalidArgument(std::string("urlfrontier-tls: ") +
                                   directive + " '" + path +
                                   "' cannot be read");
  }
  return text.str();
}

grpc_ssl_client_certificate_request_type ClientCertificates(
    TlsAuthClients auth) {
  switch (auth) {
    case TlsAuthClients::kYes:
      return GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    case TlsAuthClients::kOptional:
      return GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
    case TlsAuthClients::kNo:
      break;
  }
  return GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
}

}  // namespace

StatusOr<std::shared_ptr<grpc::ServerCredentials>> UrlFrontierCredentials(
    const Config& config) {
  if (!config.urlfrontier_tls) return grpc::InsecureServerCredentials();
  if (config.tls_cert_file.empty() || config.tls_key_file.empty()) {
    return Status::InvalidArgument(
        "urlfrontier-tls yes needs tls-cert-file and tls-key-file");
  }
  // The files are checked as the RESP TLS port checks them (that the key
  // matches the certificate, that client certificates have a CA), so a
  // mistake is reported at start with the same words, not by a failed
  // handshake later.
  auto checked = TlsContext::Create(config);
  if (!checked.ok()) {
    return Status::InvalidArgument("urlfrontier-tls: " +
                                   checked.status().message());
  }
  grpc::SslServerCredentialsOptions options(
      ClientCertificates(config.tls_auth_clients));
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  auto key = ReadPem("tls-key-file", config.tls_key_file);
  if (!key.ok()) return key.status();
  auto cert = ReadPem("tls-cert-file", config.tls_cert_file);
  if (!cert.ok()) return cert.status();
  pair.private_key = std::move(key).value();
  pair.cert_chain = std::move(cert).value();
  options.pem_key_cert_pairs.push_back(std::move(pair));
  if (config.tls_auth_clients != TlsAuthClients::kNo) {
    auto ca = ReadPem("tls-ca-cert-file", config.tls_ca_cert_file);
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = std::move(ca).value();
  }
  return grpc::SslServerCredentials(options);
}

}  // namespace frontier
