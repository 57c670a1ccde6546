// The TLS suites' fixture (tls_test.cc, tls_startup_test.cc): a CA,
// server and client certificates made with the `openssl` command, an
// OpenSSL client of our own, and TlsTest, which starts frontierd with a
// tls-port on demand. Each suite is its own test program, so the helpers
// are defined here, inline.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {

// A key and a certificate, as file paths.
struct KeyPair {
  std::string cert;
  std::string key;
};

// Certificates made once for the whole suite, as a user would make them
// (docs/security.md shows the same commands).
struct Pki {
  std::string ca;        // the CA that signs the server and the worker
  KeyPair server;        // CN=localhost, SAN 127.0.0.1 and localhost
  KeyPair client;        // CN=worker-1, signed by `ca`
  KeyPair rogue;         // CN=intruder, signed by another CA
  std::string other_ca;  // that other CA
  std::string garbage;   // a file that is not PEM
};

inline ::testing::AssertionResult Openssl(
    const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = RunProcess(argv, "", std::chrono::seconds(60));
  if (r.exit_code == 0) return ::testing::AssertionSuccess();
  std::string cmd;
  for (const std::string& a : argv) cmd += a + " ";
  return ::testing::AssertionFailure()
         << cmd << "exited " << r.exit_code << ": " << r.err;
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A CA: a self-signed certificate and its key, in `dir`/`name`.{crt,key}.
inline ::testing::AssertionResult MakeCa(const std::string& dir,
                                         const std::string& name,
                                         const std::string& cn) {
  return Openssl({"req", "-x509", "-new", "-newkey", "ec", "-pkeyopt",
                  "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                  "-subj", "/CN=" + cn, "-keyout", dir + "/" + name + ".key",
                  "-out", dir + "/" + name + ".crt"});
}

// A key and a certificate for `cn` signed by the CA `ca` (in `dir`), with
// the given X.509 v3 extensions.
inline ::testing::AssertionResult MakeSigned(const std::string& dir,
                                             const std::string& name,
                                             const std::string& cn,
                                             const std::string& ca,
                                             const std::string& extensions) {
  const std::string base = dir + "/" + name;
  WriteFile(base + ".ext", extensions);
  if (auto r = Openssl({"req", "-new", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
                        "/CN=" + cn, "-keyout", base + ".key", "-out",
                        base + ".csr"});
      !r) {
    return r;
  }
  return Openssl({"x509", "-req", "-in", base + ".csr", "-CA",
                  dir + "/" + ca + ".crt", "-CAkey", dir + "/" + ca + ".key",
                  "-CAcreateserial", "-days", "2", "-extfile", base + ".ext",
                  "-out", base + ".crt"});
}

// A client of our own: a TCP socket, then SSL_connect. Blocking, with a
// timeout on every read and write.
class TlsClient {
 public:
  struct Options {
    std::string ca;       // trusted to sign the server's certificate
    KeyPair identity;     // presented if cert is not empty
    int min_version = 0;  // e.g. TLS1_3_VERSION; 0 = OpenSSL's default
    int max_version = 0;
  };

  TlsClient(int port, const Options& o) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (ctx_ == nullptr) {
      Fail("SSL_CTX_new");
      return;
    }
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    if (SSL_CTX_load_verify_locations(ctx_, o.ca.c_str(), nullptr) != 1) {
      Fail("loading " + o.ca);
      return;
    }
    if (!o.identity.cert.empty() &&
        (SSL_CTX_use_certificate_file(ctx_, o.identity.cert.c_str(),
                                      SSL_FILETYPE_PEM) != 1 ||
         SSL_CTX_use_PrivateKey_file(ctx_, o.identity.key.c_str(),
                                     SSL_FILETYPE_PEM) != 1)) {
      Fail("loading " + o.identity.cert);
      return;
    }
    if (o.min_version != 0) SSL_CTX_set_min_proto_version(ctx_, o.min_version);
    if (o.max_version != 0) SSL_CTX_set_max_proto_version(ctx_, o.max_version);

    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      Fail("connect: " + std::string(strerror(errno)));
      return;
    }
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    SSL_set_tlsext_host_name(ssl_, "localhost");
    SSL_set1_host(ssl_, "localhost");  // check the server's name too
    if (SSL_connect(ssl_) != 1) {
      Fail("SSL_connect");
      return;
    }
    handshake_ok_ = true;
  }

  ~TlsClient() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (fd_ >= 0) close(fd_);
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  }
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  bool handshake_ok() const { return handshake_ok_; }
  const std::string& error() const { return error_; }
  // The protocol agreed on, e.g. "TLSv1.3".
  std::string version() const { return ssl_ ? SSL_get_version(ssl_) : ""; }

  bool Send(const std::string& bytes) {
    if (!handshake_ok_) return false;
    size_t done = 0;
    while (done < bytes.size()) {
      int n = SSL_write(ssl_, bytes.data() + done,
                        static_cast<int>(bytes.size() - done));
      if (n <= 0) {
        Fail("SSL_write");
        return false;
      }
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // Reads until `n` bytes arrived, the server closed, or a read timed out
  // (5 s). *closed says whether the connection ended.
  std::string Read(size_t n, bool* closed = nullptr) {
    std::string out;
    if (closed != nullptr) *closed = false;
    if (!handshake_ok_) {
      if (closed != nullptr) *closed = true;
      return out;
    }
    char buf[16384];
    while (out.size() < n) {
      int r = SSL_read(ssl_, buf, sizeof(buf));
      if (r <= 0) {
        int err = SSL_get_error(ssl_, r);
        bool timed_out = err == SSL_ERROR_SYSCALL &&
                         (errno == EAGAIN || errno == EWOULDBLOCK);
        if (closed != nullptr && !timed_out) *closed = true;
        Fail("SSL_read");
        break;
      }
      out.append(buf, static_cast<size_t>(r));
    }
    return out;
  }

  // PING, and the reply (or what went wrong).
  std::string Ping() {
    if (!Send("PING\r\n")) return "send failed: " + error_;
    return Read(7);
  }

 private:
  void Fail(const std::string& what) {
    std::string detail;
    for (unsigned long e = ERR_get_error(); e != 0; e = ERR_get_error()) {
      char buf[256];
      ERR_error_string_n(e, buf, sizeof(buf));
      detail += std::string(" ") + buf;
    }
    error_ = what + detail;
  }

  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  bool handshake_ok_ = false;
  std::string error_;
};

class TlsTest : public FrontierdTest {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string d = dir_->path();
    pki_ = new Pki{d + "/ca.crt",
                   {d + "/server.crt", d + "/server.key"},
                   {d + "/client.crt", d + "/client.key"},
                   {d + "/rogue.crt", d + "/rogue.key"},
                   d + "/other-ca.crt",
                   d + "/garbage.pem"};
    WriteFile(pki_->garbage, "this is not a certificate\n");
    made_ = MakeCa(d, "ca", "frontierd test CA") &&
            MakeCa(d, "other-ca", "someone else's CA") &&
            MakeSigned(d, "server", "localhost", "ca",
                       "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                       "extendedKeyUsage=serverAuth\n") &&
            MakeSigned(d, "client", "worker-1", "ca",
                       "extendedKeyUsage=clientAuth\n") &&
            MakeSigned(d, "rogue", "intruder", "other-ca",
                       "extendedKeyUsage=clientAuth\n");
  }
  static void TearDownTestSuite() {
    delete pki_;
    delete dir_;
    pki_ = nullptr;
    dir_ = nullptr;
  }

  bool AutoStart() const override { return false; }

  void SetUp() override {
    FrontierdTest::SetUp();
    ASSERT_TRUE(made_) << "could not make the test certificates with openssl";
  }

  // The directives of a TLS server on `tls_port` (plus the test defaults).
  static std::vector<std::string> TlsArgs(int tls_port,
                                          const std::string& auth = "yes") {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(),
                {"--tls-port", std::to_string(tls_port), "--tls-cert-file",
                 pki_->server.cert, "--tls-key-file", pki_->server.key,
                 "--tls-ca-cert-file", pki_->ca, "--tls-auth-clients", auth,
                 "--loglevel", "verbose"});
    return args;
  }

  // Starts server_ with a plain port and a TLS port; returns the TLS port.
  int StartTls(const std::string& auth = "yes",
               std::vector<std::string> extra = {}) {
    const int tls_port = PickFreePort();
    std::vector<std::string> args = TlsArgs(tls_port, auth);
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = std::make_unique<FrontierdProcess>(args);
    EXPECT_TRUE(server_->Start());
    return tls_port;
  }

  static TlsClient::Options WithCert() {
    return {pki_->ca, pki_->client, 0, 0};
  }
  static TlsClient::Options WithoutCert() { return {pki_->ca, {}, 0, 0}; }
  static TlsClient::Options WithRogueCert() {
    return {pki_->ca, pki_->rogue, 0, 0};
  }

  // redis-cli --tls with the suite's CA and, if `cert`, the worker's cert.
  static ProcessResult TlsCli(int port, std::vector<std::string> args,
                              bool cert = true) {
    std::vector<std::string> tls = {"--tls", "--cacert", pki_->ca};
    if (cert) {
      tls.insert(tls.end(),
                 {"--cert", pki_->client.cert, "--key", pki_->client.key});
    }
    tls.insert(tls.end(), args.begin(), args.end());
    return RunRedisCli(port, tls);
  }

  // Whether a client with `options` gets PONG from `port`.
  static ::testing::AssertionResult Served(int port,
                                           const TlsClient::Options& options) {
    TlsClient c(port, options);
    std::string reply = c.Ping();
    if (reply == "+PONG\r\n") return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "no PONG (got '" << reply << "'): " << c.error();
  }

  // How many times `text` occurs in the server's log.
  size_t LogCount(const std::string& text) const {
    const std::string log = ReadFile(server_->log_path());
    size_t n = 0;
    for (size_t at = log.find(text); at != std::string::npos;
         at = log.find(text, at + text.size())) {
      ++n;
    }
    return n;
  }

  // Refused for the reason a user relies on: a client with `options` gets
  // no PONG from `port`, and the server logs `reason` (OpenSSL's text) for
  // it, which a refusal for any other cause (a server down, a bad test
  // certificate) would not. The client's side is not checked: under TLS
  // 1.3 the server's alert may arrive as a reset before it is read.
  ::testing::AssertionResult RefusedFor(int port,
                                        const TlsClient::Options& options,
                                        const std::string& reason) {
    const size_t before = LogCount(reason);
    if (Served(port, options)) {
      return ::testing::AssertionFailure() << "served; expected: " << reason;
    }
    Stopwatch watch;  // the server logs it in its own time
    while (LogCount(reason) == before &&
           watch.Elapsed() < std::chrono::seconds(5)) {
      usleep(10000);
    }
    if (LogCount(reason) > before) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "refused, but the server did not log '" << reason << "' for it:\n"
           << ReadFile(server_->log_path());
  }

  inline static TempDir* dir_ = nullptr;
  inline static Pki* pki_ = nullptr;
  inline static bool made_ = false;
};

}  // namespace frontier::itest
