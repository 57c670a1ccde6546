// The gRPC port's credentials (docs/urlfrontier.md, "TLS"): plain HTTP/2,
// or with `urlfrontier-tls yes` TLS with the RESP TLS port's certificate
// files (tls-cert-file, tls-key-file, and tls-ca-cert-file to check client
// certificates as tls-auth-clients asks).
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "server/config.h"
#include "util/status.h"

namespace frontier {

// InvalidArgument "urlfrontier-tls: ..." naming the directive and the file
// when a file is missing or not what it should be (checked as the RESP
// TLS port checks them, server/tls_context.h).
StatusOr<std::shared_ptr<grpc::ServerCredentials>> UrlFrontierCredentials(
    const Config& config);

}  // namespace frontier
