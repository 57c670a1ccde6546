// A blocking TLS client stream over a TCP socket (OpenSSL), for the client
// tools' connection to a frontierd tls-port: Debian's hiredis (0.14) has no
// TLS, so the tools carry RESP over this themselves. The options mirror
// redis-cli's.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace frontier_client {

struct TlsOptions {
  std::string ca_cert;  // --cacert: CAs to verify the server with; empty =
                        // the system's
  std::string cert;     // --cert/--key: a client certificate (mutual TLS)
  std::string key;
  std::string sni;        // --sni: server name sent; empty = the host
  bool insecure = false;  // --insecure: no verification at all
};

class TlsStream {
 public:
  // Connects to host:port and completes the handshake, verifying the
  // server's certificate chain and its name (the SNI or host: a DNS name or
  // an IP address) unless o.insecure. Returns nullptr with *error set.
  static std::unique_ptr<TlsStream> Connect(const std::string& host, int port,
                                            const TlsOptions& o,
                                            std::string* error);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // Writes all of `bytes`; false (with error() set) on failure.
  bool WriteAll(std::string_view bytes);
  // Reads what is available: the byte count; 0 if `wait` is false and no
  // application data can be read without blocking; -1 on failure or close
  // (error() says which). With `wait`, blocks until some data comes.
  int64_t Read(char* buf, size_t size, bool wait);
  // Bytes OpenSSL holds already decrypted: readable without the socket.
  bool HasBuffered() const { return SSL_pending(ssl_) > 0; }
  int fd() const { return fd_; }
  const std::string& error() const { return error_; }

 private:
  TlsStream() = default;
  void SetError(std::string_view what, int ssl_result);

  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  std::string error_;
};

}  // namespace frontier_client
