// A minimal HTTP/1.1 client for the HTTP tests: raw requests over a
// loopback socket (RawConnection), so tests can also send what no real
// client would (huge headers, unknown methods, half a request).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {

struct HttpResponse {
  int status = 0;  // 0: no parsable response arrived
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  bool closed = false;  // the server closed the connection after it
  std::string raw;      // every byte received

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

// Sends `request` (raw bytes) to 127.0.0.1:port and reads until the
// server closes or `timeout` passes, then parses the first response.
HttpResponse HttpExchange(
    int port, const std::string& request,
    std::chrono::milliseconds timeout = std::chrono::seconds(10));

// GET `path` with "Connection: close" and `extra_headers` ("Name: value").
HttpResponse HttpGet(int port, const std::string& path,
                     const std::vector<std::string>& extra_headers = {});

// Parses a response from raw bytes (status 0 if there is none).
HttpResponse ParseHttpResponse(const std::string& raw);

// "Authorization: Basic <base64(user:password)>".
std::string BasicAuthHeader(const std::string& user,
                            const std::string& password);

// FrontierdTest with an HTTP port: ServerArgs() is DefaultTestArgs(),
// --http-port (a free port, picked once per test) and extra_.
class HttpServerTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    if (http_port_ == 0) http_port_ = PickFreePort();
    args.insert(args.end(), {"--http-port", std::to_string(http_port_)});
    args.insert(args.end(), extra_.begin(), extra_.end());
    return args;
  }

  mutable int http_port_ = 0;
  std::vector<std::string> extra_;  // more directives, set before SetUp
};

}  // namespace frontier::itest
