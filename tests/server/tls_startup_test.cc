// Start-up errors of a bad TLS set-up: frontierd exits with status 1 and
// a message naming the problem (a missing or wrong certificate or key, a
// bad CA, client authentication without a CA, one port twice, an unknown
// protocol version).
#include <chrono>
#include <string>
#include <vector>

#include "server/tls_fixture.h"

namespace frontier::itest {
namespace {

using std::chrono::seconds;

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
