// End to end over TLS: the suite makes its own CA, server and client
// certificates with the `openssl` command, starts frontierd with a
// tls-port, and talks to it with `redis-cli --tls` and with an OpenSSL
// client of its own. Mutual TLS (tls-auth-clients yes|optional|no), plain
// and TLS ports side by side, a TLS-only server (port 0), tls-protocols,
// and the start-up errors of a bad TLS set-up.
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
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

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

::testing::AssertionResult Openssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = RunProcess(argv, "", seconds(60));
  if (r.exit_code == 0) return ::testing::AssertionSuccess();
  std::string cmd;
  for (const std::string& a : argv) cmd += a + " ";
  return ::testing::AssertionFailure()
         << cmd << "exited " << r.exit_code << ": " << r.err;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A CA: a self-signed certificate and its key, in `dir`/`name`.{crt,key}.
::testing::AssertionResult MakeCa(const std::string& dir,
                                  const std::string& name,
                                  const std::string& cn) {
  return Openssl({"req", "-x509", "-new", "-newkey", "ec", "-pkeyopt",
                  "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                  "-subj", "/CN=" + cn, "-keyout", dir + "/" + name + ".key",
                  "-out", dir + "/" + name + ".crt"});
}

// A key and a certificate for `cn` signed by the CA `ca` (in `dir`), with
// the given X.509 v3 extensions.
::testing::AssertionResult MakeSigned(const std::string& dir,
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
    while (LogCount(reason) == before && watch.Elapsed() < seconds(5)) {
      usleep(10000);
    }
    if (LogCount(reason) > before) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "refused, but the server did not log '" << reason
           << "' for it:\n"
           << ReadFile(server_->log_path());
  }

  static TempDir* dir_;
  static Pki* pki_;
  static bool made_;
};

TempDir* TlsTest::dir_ = nullptr;
Pki* TlsTest::pki_ = nullptr;
bool TlsTest::made_ = false;

TEST_F(TlsTest, RedisCliTalksTls) {
  const int tls_port = StartTls();
  ASSERT_TRUE(server_->running());
  ProcessResult r = TlsCli(tls_port, {"PING"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "PONG\n") << r.err;
  EXPECT_EQ(TlsCli(tls_port, {"ADD", "http://tls.example/"}).out, "1\n");
  EXPECT_EQ(TlsCli(tls_port, {"SEEN", "http://tls.example/"}).out, "1\n");
  EXPECT_EQ(TlsCli(tls_port, {"POP"}).out, "http://tls.example/\n");
  EXPECT_EQ(TlsCli(tls_port, {"CONFIRM", "http://tls.example/"}).out, "1\n");
  // The same commands on stdin, as a script would pipe them.
  r = RunRedisCli(tls_port,
                  {"--tls", "--cacert", pki_->ca, "--cert", pki_->client.cert,
                   "--key", pki_->client.key},
                  "ADD http://tls.example/a\nADD http://tls.example/b\n"
                  "STATS\n");
  EXPECT_NE(r.out.find("1\n1\nurls\n3\n"), std::string::npos) << r.out << r.err;
  // redis-cli hangs up without a TLS close_notify: an ordinary end of the
  // connection, not an error.
  std::string log = ReadFile(server_->log_path());
  EXPECT_NE(log.find("closed the connection"), std::string::npos) << log;
  EXPECT_EQ(log.find("connection error"), std::string::npos) << log;
}

TEST_F(TlsTest, RedisCliWithoutCertificateIsRefused) {
  const int tls_port = StartTls("yes");
  ProcessResult r = TlsCli(tls_port, {"PING"}, /*cert=*/false);
  EXPECT_EQ((r.out + r.err).find("PONG"), std::string::npos) << r.out;
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  // Refused because it had no certificate, not for any other reason.
  Stopwatch watch;
  while (LogCount("peer did not return a certificate") == 0 &&
         watch.Elapsed() < seconds(5)) {
    usleep(10000);
  }
  EXPECT_EQ(LogCount("peer did not return a certificate"), 1u)
      << ReadFile(server_->log_path());
  EXPECT_TRUE(Served(tls_port, WithCert()));
}

TEST_F(TlsTest, OpenSslClientPingsAndPipelines) {
  const int tls_port = StartTls();
  TlsClient c(tls_port, WithCert());
  ASSERT_TRUE(c.handshake_ok()) << c.error();
  EXPECT_EQ(c.Ping(), "+PONG\r\n");
  // A pipeline and a large argument: TLS records and partial writes.
  std::string big(1 << 20, 'x');
  ASSERT_TRUE(c.Send(Resp({"ADD", "http://a.example/"}) + Resp({"ECHO", big}) +
                     Resp({"SEEN", "http://a.example/"})));
  std::string expected =
      ":1\r\n$" + std::to_string(big.size()) + "\r\n" + big + "\r\n:1\r\n";
  std::string got = c.Read(expected.size());
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  EXPECT_EQ(c.version(), "TLSv1.3");
}

TEST_F(TlsTest, ClientCertificateRequiredByDefault) {
  const int tls_port = StartTls("yes");
  EXPECT_TRUE(Served(tls_port, WithCert()));
  // Each refusal is in the log, with OpenSSL's reason, and the server
  // goes on serving.
  EXPECT_TRUE(
      RefusedFor(tls_port, WithoutCert(), "peer did not return a certificate"));
  EXPECT_TRUE(
      RefusedFor(tls_port, WithRogueCert(), "certificate verify failed"));
  EXPECT_TRUE(Served(tls_port, WithCert()));
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(TlsTest, ClientCertificateOptional) {
  const int tls_port = StartTls("optional");
  EXPECT_TRUE(Served(tls_port, WithCert()));
  EXPECT_TRUE(Served(tls_port, WithoutCert()));
  // A certificate that is presented must still verify.
  EXPECT_TRUE(
      RefusedFor(tls_port, WithRogueCert(), "certificate verify failed"));
  EXPECT_EQ(TlsCli(tls_port, {"PING"}, /*cert=*/false).out, "PONG\n");
}

TEST_F(TlsTest, ClientCertificateNotAsked) {
  const int tls_port = StartTls("no");
  EXPECT_TRUE(Served(tls_port, WithCert()));
  EXPECT_TRUE(Served(tls_port, WithoutCert()));
  EXPECT_TRUE(Served(tls_port, WithRogueCert()));  // never requested
}

TEST_F(TlsTest, NoCaNeededWhenClientsAreNotAuthenticated) {
  const int tls_port = PickFreePort();
  std::vector<std::string> args = DefaultTestArgs();
  args.insert(args.end(),
              {"--tls-port", std::to_string(tls_port), "--tls-cert-file",
               pki_->server.cert, "--tls-key-file", pki_->server.key,
               "--tls-auth-clients", "no"});
  server_ = std::make_unique<FrontierdProcess>(args);
  ASSERT_TRUE(server_->Start());
  EXPECT_TRUE(Served(tls_port, WithoutCert()));
}

TEST_F(TlsTest, PlainAndTlsPortsServeOneFrontier) {
  const int tls_port = StartTls();
  TlsClient tls(tls_port, WithCert());
  ASSERT_TRUE(tls.handshake_ok()) << tls.error();
  ASSERT_TRUE(tls.Send(Resp({"ADD", "http://both.example/"})));
  EXPECT_EQ(tls.Read(4), ":1\r\n");
  // Plain TCP sees what TLS added, and the other way round.
  EXPECT_EQ(Cmd({"SEEN", "http://both.example/"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://plain.example/"}), Int(1));
  ASSERT_TRUE(tls.Send(Resp({"SEEN", "http://plain.example/"})));
  EXPECT_EQ(tls.Read(4), ":1\r\n");
  // A plain client on the TLS port gets no RESP reply, and a TLS client on
  // the plain port no handshake: each port speaks only its own protocol.
  RawConnection raw(tls_port);
  ASSERT_TRUE(raw.ok());
  raw.Send("PING\r\n");
  bool closed = false;
  std::string got = raw.ReadUntilClosed(seconds(5), &closed);
  EXPECT_EQ(got.find("+PONG"), std::string::npos);
  EXPECT_TRUE(closed);
  {
    // The plain port answers the ClientHello in RESP, not TLS.
    TlsClient on_plain(server_->port(), WithCert());
    EXPECT_FALSE(on_plain.handshake_ok());
    EXPECT_NE(on_plain.error().find("wrong version number"), std::string::npos)
        << on_plain.error();
  }
  std::string log = ReadFile(server_->log_path());
  EXPECT_NE(log.find("Ready to accept connections tcp on port " +
                     std::to_string(server_->port())),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Ready to accept connections tls on port " +
                     std::to_string(tls_port)),
            std::string::npos)
      << log;
}

TEST_F(TlsTest, TlsOnlyWithPortZero) {
  const int tls_port = PickFreePort();
  std::vector<std::string> args = TlsArgs(tls_port);
  args.insert(args.end(), {"--port", "0"});  // overrides the fixture's port
  server_ = std::make_unique<FrontierdProcess>(args);
  server_->set_ready_probe([tls_port] {
    TlsClient c(tls_port, WithCert());
    std::string reply = c.Ping();
    return reply == "+PONG\r\n" ? std::string() : c.error();
  });
  ASSERT_TRUE(server_->Start());
  EXPECT_TRUE(Served(tls_port, WithCert()));
  EXPECT_EQ(TlsCli(tls_port, {"ADD", "http://only.example/"}).out, "1\n");
  // Nothing listens on the plain port the fixture picked.
  Client plain(server_->port(), milliseconds(500));
  EXPECT_FALSE(plain.ok());
  std::string log = ReadFile(server_->log_path());
  EXPECT_EQ(log.find("Ready to accept connections tcp"), std::string::npos);
  EXPECT_NE(log.find("Ready to accept connections tls on port " +
                     std::to_string(tls_port)),
            std::string::npos)
      << log;
  EXPECT_EQ(server_->Stop(), 0);
}

TEST_F(TlsTest, ProtocolVersions) {
  const int tls_port = StartTls("yes", {"--tls-protocols", "TLSv1.2"});
  TlsClient::Options v12 = WithCert();
  v12.max_version = TLS1_2_VERSION;
  TlsClient old(tls_port, v12);
  EXPECT_EQ(old.Ping(), "+PONG\r\n") << old.error();
  EXPECT_EQ(old.version(), "TLSv1.2");
  TlsClient::Options v13 = WithCert();
  v13.min_version = TLS1_3_VERSION;
  TlsClient newer(tls_port, v13);
  EXPECT_FALSE(newer.handshake_ok());
  // Refused for the version: the server's alert names it.
  EXPECT_NE(newer.error().find("alert protocol version"), std::string::npos)
      << newer.error();
  EXPECT_TRUE(Served(tls_port, WithCert()));  // negotiates TLSv1.2
}

TEST_F(TlsTest, MaxClientsClosesTlsClientsWithoutAHandshake) {
  const int tls_port = StartTls("yes", {"--maxclients", "1"});
  // One TLS client in (retried: the start-up probe may not be counted out
  // yet), then a second is closed before any handshake.
  std::unique_ptr<TlsClient> first;
  Stopwatch watch;
  while (watch.Elapsed() < seconds(5)) {
    first = std::make_unique<TlsClient>(tls_port, WithCert());
    if (first->Ping() == "+PONG\r\n") break;
  }
  ASSERT_EQ(first->Ping(), "+PONG\r\n");
  // (INFO is not asked: a plain connection would be refused too.)
  const size_t rejected_before =
      LogCount("(tls): max number of clients reached");
  TlsClient second(tls_port, WithCert());
  EXPECT_FALSE(second.handshake_ok());
  EXPECT_EQ(first->Ping(), "+PONG\r\n");
  // Refused for maxclients, not for anything else: this very refusal is
  // logged as such (the PING above orders it before this read).
  EXPECT_EQ(LogCount("(tls): max number of clients reached"),
            rejected_before + 1)
      << ReadFile(server_->log_path());
}

// --- Start-up errors: exit status 1 and a message naming the problem ---

class TlsStartupTest : public TlsTest {
 protected:
  // Runs frontierd with `args` and expects it to refuse to start with a
  // message containing `message`.
  void ExpectRefusal(std::vector<std::string> args,
                     const std::string& message) {
    TempDir dir;
    std::vector<std::string> argv = {FrontierdBinary(), "--bind", "127.0.0.1",
                                     "--dir", dir.path() + "/data"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = RunProcess(argv, "", seconds(10));
    ASSERT_FALSE(r.timed_out) << "frontierd started: " << r.err;
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << "expected '" << message << "' in:\n"
        << r.err;
  }

  std::vector<std::string> Tls(const std::string& cert,
                               const std::string& key) const {
    return {"--port",
            std::to_string(PickFreePort()),
            "--tls-port",
            std::to_string(PickFreePort()),
            "--tls-cert-file",
            cert,
            "--tls-key-file",
            key,
            "--tls-ca-cert-file",
            pki_->ca};
  }
};

TEST_F(TlsStartupTest, NothingToListenOn) {
  ExpectRefusal({"--port", "0"},
                "port is 0 (no plain TCP) and tls-port is not set");
}

TEST_F(TlsStartupTest, MissingCertificate) {
  ExpectRefusal(Tls("/nonexistent/server.crt", pki_->server.key),
                "tls-cert-file '/nonexistent/server.crt': cannot read it: No "
                "such file or directory");
}

TEST_F(TlsStartupTest, MissingKey) {
  ExpectRefusal(Tls(pki_->server.cert, "/nonexistent/server.key"),
                "tls-key-file '/nonexistent/server.key': cannot read it");
}

TEST_F(TlsStartupTest, NotACertificate) {
  ExpectRefusal(Tls(pki_->garbage, pki_->server.key),
                "tls-cert-file '" + pki_->garbage +
                    "': not a PEM certificate or certificate chain");
}

TEST_F(TlsStartupTest, NotAKey) {
  ExpectRefusal(Tls(pki_->server.cert, pki_->garbage),
                "tls-key-file '" + pki_->garbage + "': not a PEM private key");
}

TEST_F(TlsStartupTest, KeyOfAnotherCertificate) {
  ExpectRefusal(Tls(pki_->server.cert, pki_->client.key),
                "does not match the certificate in tls-cert-file '" +
                    pki_->server.cert + "'");
}

TEST_F(TlsStartupTest, BadCaFile) {
  std::vector<std::string> args = Tls(pki_->server.cert, pki_->server.key);
  args.back() = pki_->garbage;
  ExpectRefusal(args, "tls-ca-cert-file '" + pki_->garbage +
                          "': no PEM CA certificate in it");
}

TEST_F(TlsStartupTest, CertificateAndKeyAreRequired) {
  ExpectRefusal({"--tls-port", std::to_string(PickFreePort())},
                "needs tls-cert-file and tls-key-file");
}

TEST_F(TlsStartupTest, ClientAuthenticationNeedsACa) {
  ExpectRefusal(
      {"--tls-port", std::to_string(PickFreePort()), "--tls-cert-file",
       pki_->server.cert, "--tls-key-file", pki_->server.key},
      "tls-auth-clients yes needs tls-ca-cert-file");
}

TEST_F(TlsStartupTest, SamePortTwice) {
  const std::string port = std::to_string(PickFreePort());
  std::vector<std::string> args = Tls(pki_->server.cert, pki_->server.key);
  args[1] = port;
  args[3] = port;
  ExpectRefusal(args, "port and tls-port are both " + port);
}

TEST_F(TlsStartupTest, UnknownProtocolVersion) {
  ExpectRefusal({"--tls-protocols", "TLSv1.1"},
                "bad value for 'tls-protocols': 'TLSv1.1'");
}

}  // namespace
}  // namespace frontier::itest
