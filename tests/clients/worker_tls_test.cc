// frontier-worker over TLS: the same crawl through a frontierd tls-port,
// with the server verified against a CA given with --cacert, and with a
// client certificate for mutual TLS. The certificate is made with the
// `openssl` command (self-signed, for 127.0.0.1), as docs/security.md does.
#include <signal.h>

#include <thread>

#include "clients/loopback_site.h"
#include "clients/worker_process.h"
#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A self-signed certificate for IP 127.0.0.1, which is its own CA.
struct SelfSigned {
  TempDir dir;
  std::string cert = dir.path() + "/cert.pem";
  std::string key = dir.path() + "/key.pem";
  bool made = false;
  SelfSigned() {
    ProcessResult r = RunProcess(
        {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
         key, "-out", cert, "-days", "2", "-subj", "/CN=frontierd-test",
         "-addext", "subjectAltName=IP:127.0.0.1"},
        "", seconds(60));
    made = r.exit_code == 0 && !ReadFile(cert).empty();
  }
};

class WorkerTlsTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(),
                {"--tls-port", std::to_string(tls_port_), "--tls-cert-file",
                 pki_.cert, "--tls-key-file", pki_.key, "--tls-ca-cert-file",
                 pki_.cert, "--tls-auth-clients", auth_clients_});
    return args;
  }
  void SetUp() override {
    ASSERT_TRUE(pki_.made) << "could not make a certificate with openssl";
    FrontierdTest::SetUp();
    site_ = std::make_unique<LoopbackSite>(1);
    ASSERT_EQ(site_->error(), "");
    site_->SetPage(0, "/", {200, "<a href='/leaf'>leaf</a>", {}, {}});
    site_->SetPage(0, "/leaf", {200, "<p>leaf</p>", {}, {}});
  }

  // Runs the worker with `args` until both pages are confirmed (or 20 s),
  // then stops it; returns its exit status.
  int Crawl(const std::vector<std::string>& args, WorkerProcess** out) {
    EXPECT_EQ(Cmd({"ADD", site_->Url(0, "/")}), Int(1));
    worker_ = std::make_unique<WorkerProcess>(server_->port(), args);
    *out = worker_.get();
    Stopwatch watch;
    while (Stats()["confirmed"] < 2 && watch.Elapsed() < seconds(20)) {
      std::this_thread::sleep_for(milliseconds(20));
    }
    worker_->Signal(SIGINT);
    return worker_->Wait(seconds(10));
  }

  SelfSigned pki_;
  int tls_port_ = PickFreePort();
  std::string auth_clients_ = "no";
  std::unique_ptr<LoopbackSite> site_;
  std::unique_ptr<WorkerProcess> worker_;
};

TEST_F(WorkerTlsTest, CrawlsThroughTheTlsPort) {
  WorkerProcess* worker = nullptr;
  EXPECT_EQ(
      Crawl({"-p", std::to_string(tls_port_), "--tls", "--cacert", pki_.cert},
            &worker),
      0)
      << worker->Stderr();
  EXPECT_EQ(Stats()["confirmed"], 2);
  EXPECT_EQ(site_->Requests().size(), 2u);
  EXPECT_NE(worker->Stderr().find("(TLS)"), std::string::npos);
}

TEST_F(WorkerTlsTest, RefusesAServerItCannotVerify) {
  // The system's CAs do not know the test certificate.
  WorkerProcess worker(server_->port(),
                       {"-p", std::to_string(tls_port_), "--tls"});
  EXPECT_EQ(worker.Wait(seconds(10)), 3);
  EXPECT_NE(worker.Stderr().find("certificate"), std::string::npos)
      << worker.Stderr();
  // Nor does a plain port speak TLS.
  WorkerProcess plain(server_->port(), {"--tls", "--cacert", pki_.cert});
  EXPECT_EQ(plain.Wait(seconds(10)), 3);
  EXPECT_EQ(Stats()["popped"], 0);
}

class WorkerMutualTlsTest : public WorkerTlsTest {
 protected:
  WorkerMutualTlsTest() { auth_clients_ = "yes"; }
};

TEST_F(WorkerMutualTlsTest, SendsItsClientCertificate) {
  WorkerProcess* worker = nullptr;
  EXPECT_EQ(Crawl({"-p", std::to_string(tls_port_), "--tls", "--cacert",
                   pki_.cert, "--cert", pki_.cert, "--key", pki_.key},
                  &worker),
            0)
      << worker->Stderr();
  EXPECT_EQ(Stats()["confirmed"], 2);
}

TEST_F(WorkerMutualTlsTest, WithoutOneItIsRefused) {
  WorkerProcess worker(server_->port(), {"-p", std::to_string(tls_port_),
                                         "--tls", "--cacert", pki_.cert});
  EXPECT_EQ(worker.Wait(seconds(10)), 3);
  EXPECT_EQ(Stats()["popped"], 0);
}

}  // namespace
}  // namespace frontier::itest
