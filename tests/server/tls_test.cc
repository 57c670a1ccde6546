// End to end over TLS: frontierd with a tls-port, talked to with
// `redis-cli --tls` and with an OpenSSL client of our own (tls_fixture.h).
// Mutual TLS (tls-auth-clients yes|optional|no), plain and TLS ports side
// by side, a TLS-only server (port 0), tls-protocols, maxclients.
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "server/tls_fixture.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

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

}  // namespace
}  // namespace frontier::itest
