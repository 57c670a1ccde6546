// End to end: the limits that keep one client from hurting the server or
// the others, with Redis's names and behaviour: proto-max-bulk-len,
// proto-max-multibulk-len, client-query-buffer-limit,
// client-output-buffer-limit, maxclients, timeout and tcp-keepalive. Each
// gives a clear error or a logged close, and the server goes on serving.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Limits tests start their own server with the directives under test.
class LimitsTest : public FrontierdTest {
 protected:
  bool AutoStart() const override { return false; }

  void StartWith(std::vector<std::string> args) {
    std::vector<std::string> all = DefaultTestArgs();
    all.insert(all.end(), args.begin(), args.end());
    server_ = std::make_unique<FrontierdProcess>(all);
    ASSERT_TRUE(server_->Start());
  }

  std::string Log() const { return ReadFile(server_->log_path()); }

  long long InfoStat(const std::string& name) {
    Reply r = Cmd({"INFO", "stats"});
    auto m = InfoMap(r.str);
    return m.count(name) ? std::stoll(m[name]) : -1;
  }

  // A client that sends `echoes` 100 kB ECHOs and never reads its replies,
  // until the server closes it for its output buffer (bounded: 20 s).
  // Returns how long that took.
  std::chrono::steady_clock::duration FloodUntilOutputLimit(int echoes) {
    RawConnection greedy(server_->port());
    std::string echo = Resp({"ECHO", std::string(100 * 1000, 'z')});
    std::thread sender([&] {
      for (int i = 0; i < echoes; ++i) {
        if (!greedy.Send(echo)) break;
      }
    });
    Stopwatch watch;
    while (InfoStat("client_output_buffer_limit_disconnections") < 1 &&
           watch.Elapsed() < seconds(20)) {
      std::this_thread::sleep_for(milliseconds(50));
    }
    sender.join();
    return watch.Elapsed();
  }
};

// Sends `bytes` and expects the server to close the connection without a
// reply (a limit enforced by closing, as Redis does).
void ExpectClosedWithoutReply(RawConnection& raw, const std::string& bytes) {
  raw.Send(bytes);  // may fail part-way once the server has closed
  bool closed = false;
  std::string got = raw.ReadUntilClosed(seconds(10), &closed);
  EXPECT_TRUE(closed) << "the server kept the connection open";
  EXPECT_EQ(got, "");
}

TEST_F(LimitsTest, ProtoMaxBulkLen) {
  StartWith({"--proto-max-bulk-len", "1mb"});
  // Exactly the limit is fine.
  std::string max(1 << 20, 'x');
  EXPECT_EQ(Cmd({"ECHO", max}), Bulk(max));
  // One byte more is refused as soon as the header arrives: nothing of the
  // argument needs to be sent.
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.Send("*2\r\n$4\r\nECHO\r\n$1048577\r\n"));
  bool closed = false;
  std::string got = raw.ReadUntilClosed(seconds(5), &closed);
  EXPECT_EQ(got, "-ERR Protocol error: invalid bulk length\r\n");
  EXPECT_TRUE(closed);
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(LimitsTest, DefaultProtoMaxBulkLenIs512Mb) {
  StartWith({});
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.Send("*1\r\n$536870913\r\n"));
  bool closed = false;
  EXPECT_EQ(raw.ReadUntilClosed(seconds(5), &closed),
            "-ERR Protocol error: invalid bulk length\r\n");
  // 512mb itself is accepted (the header; the bytes are not sent).
  RawConnection ok(server_->port());
  ASSERT_TRUE(ok.Send("*1\r\n$536870912\r\nabc"));
  EXPECT_EQ(ok.Read(1, milliseconds(300), &closed), "");
  EXPECT_FALSE(closed);
}

TEST_F(LimitsTest, ProtoMaxMultibulkLen) {
  StartWith({"--proto-max-multibulk-len", "4"});
  EXPECT_EQ(Cmd({"MADD", "", "http://a.com/1", "http://a.com/2"}),
            Array({Int(1), Int(1)}));
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.Send(Resp(
      {"MADD", "", "http://a.com/3", "http://a.com/4", "http://a.com/5"})));
  bool closed = false;
  EXPECT_EQ(raw.ReadUntilClosed(seconds(5), &closed),
            "-ERR Protocol error: invalid multibulk length\r\n");
  EXPECT_TRUE(closed);
  EXPECT_EQ(Cmd({"DBSIZE"}), Int(2));  // nothing of the refused MADD
}

TEST_F(LimitsTest, ClientQueryBufferLimitOnOneBigArgument) {
  StartWith({"--client-query-buffer-limit", "1mb"});
  // Below the limit: served.
  std::string below(900 * 1000, 'x');
  EXPECT_EQ(Cmd({"ECHO", below}), Bulk(below));
  // A 2 MB argument: allowed by proto-max-bulk-len (512mb) but the client
  // is closed once 1 MB of it is buffered.
  RawConnection raw(server_->port());
  ExpectClosedWithoutReply(
      raw, "*2\r\n$4\r\nECHO\r\n$2000000\r\n" + std::string(2000000, 'y'));
  EXPECT_NE(Log().find("Closing client that reached max query buffer length"),
            std::string::npos)
      << Log();
  EXPECT_EQ(InfoStat("client_query_buffer_limit_disconnections"), 1);
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(LimitsTest, ClientQueryBufferLimitBehindABlockedPop) {
  StartWith({"--client-query-buffer-limit", "1mb"});
  // While BPOP waits, pipelined commands are buffered, not run: 1.2 MB of
  // them pass the limit.
  RawConnection raw(server_->port());
  std::string flood = Resp({"BPOP", "0"});
  while (flood.size() < 1200 * 1000) flood += "PING\r\n";
  ExpectClosedWithoutReply(raw, flood);
  EXPECT_EQ(InfoStat("client_query_buffer_limit_disconnections"), 1);
  auto info = InfoMap(Cmd({"INFO", "clients"}).str);
  EXPECT_EQ(info["blocked_clients"], "0");
}

TEST_F(LimitsTest, ClientOutputBufferHardLimit) {
  StartWith({"--client-output-buffer-limit", "normal 1mb 0 0"});
  // A client that sends ECHO after ECHO and never reads: its replies pile
  // up in the server (after the kernel's socket buffers fill) until they
  // pass 1 MB, and it is closed.
  FloodUntilOutputLimit(400);
  EXPECT_EQ(InfoStat("client_output_buffer_limit_disconnections"), 1);
  EXPECT_NE(Log().find("closed for overcoming of output buffer limits"),
            std::string::npos)
      << Log();
  EXPECT_NE(Log().find("client-output-buffer-limit hard"), std::string::npos);
  // A client that reads its replies is never near the limit.
  std::string big(500 * 1000, 'a');
  auto c = Connect();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(c->Cmd({"ECHO", big}), Bulk(big));
  EXPECT_EQ(InfoStat("client_output_buffer_limit_disconnections"), 1);
}

TEST_F(LimitsTest, ClientOutputBufferSoftLimit) {
  StartWith({"--client-output-buffer-limit", "normal 0 512kb 1"});
  // Enough replies to stay far above 512 kB after the socket buffers.
  const auto elapsed = FloodUntilOutputLimit(200);
  EXPECT_EQ(InfoStat("client_output_buffer_limit_disconnections"), 1);
  // Above the soft limit for more than a second, not at once.
  EXPECT_GE(elapsed, milliseconds(900));
  EXPECT_NE(Log().find("client-output-buffer-limit soft"), std::string::npos)
      << Log();
}

TEST_F(LimitsTest, OutputBufferLimitOffByDefault) {
  StartWith({});
  auto info = InfoMap(Cmd({"INFO", "stats"}).str);
  EXPECT_EQ(info["client_output_buffer_limit_disconnections"], "0");
  EXPECT_EQ(info["client_query_buffer_limit_disconnections"], "0");
}

TEST_F(LimitsTest, MaxClientsRepliesRedisErrorAndCloses) {
  StartWith({"--maxclients", "1", "--loglevel", "verbose"});
  // One client in (retried: the start-up probe may not be counted out yet).
  std::unique_ptr<Client> first;
  Stopwatch watch;
  while (watch.Elapsed() < seconds(5)) {
    first = Connect();
    if (first->Cmd({"PING"}) == StatusReply("PONG")) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_EQ(first->Cmd({"PING"}), StatusReply("PONG"));
  auto rejected = [&] {
    return InfoMap(first->Cmd({"INFO", "stats"}).str)["rejected_connections"];
  };
  const long long rejected_before = std::stoll(rejected());
  RawConnection second(server_->port());
  ASSERT_TRUE(second.ok());
  bool closed = false;
  EXPECT_EQ(second.ReadUntilClosed(seconds(5), &closed),
            "-ERR max number of clients reached\r\n");
  EXPECT_TRUE(closed);
  EXPECT_EQ(std::stoll(rejected()), rejected_before + 1);
  EXPECT_NE(Log().find("max number of clients reached"), std::string::npos);
}

TEST_F(LimitsTest, IdleClientsAreClosedAfterTimeout) {
  StartWith({"--timeout", "1", "--loglevel", "verbose"});
  RawConnection idle(server_->port());
  ASSERT_TRUE(idle.Send("PING\r\n"));
  EXPECT_EQ(idle.Read(7, seconds(5)), "+PONG\r\n");
  Stopwatch watch;
  bool closed = false;
  EXPECT_EQ(idle.ReadUntilClosed(seconds(5), &closed), "");
  EXPECT_TRUE(closed) << "an idle client was not closed";
  EXPECT_GE(watch.Elapsed(), milliseconds(900));
  EXPECT_NE(Log().find("Closing idle client"), std::string::npos) << Log();
}

TEST_F(LimitsTest, ActiveAndBlockedClientsAreNotIdle) {
  StartWith({"--timeout", "1"});
  // A client that sends something every 300 ms for 3 s.
  RawConnection active(server_->port());
  // A client blocked in BPOP for 3 s, as Redis never times out blocked
  // clients: BPOP has its own timeout.
  RawConnection blocked(server_->port());
  ASSERT_TRUE(blocked.Send(Resp({"BPOP", "0"})));
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(active.Send("PING\r\n"));
    bool closed = false;
    ASSERT_EQ(active.Read(7, seconds(5), &closed), "+PONG\r\n") << i;
    std::this_thread::sleep_for(milliseconds(300));
  }
  EXPECT_EQ(Cmd({"ADD", "http://wake.example/"}), Int(1));
  const std::string expected = "$20\r\nhttp://wake.example/\r\n";
  EXPECT_EQ(blocked.Read(expected.size(), seconds(5)), expected);
}

// The server side of a loopback connection in /proc/net/tcp: its "tr"
// (timer kind: 2 is keepalive) and "tm->when" (jiffies left, in USER_HZ).
struct TcpTimer {
  int kind = -1;
  long long when = -1;
};

TcpTimer ServerSocketTimer(int server_port, int client_port) {
  std::ifstream in("/proc/net/tcp");
  char local[16], remote[16];
  std::snprintf(local, sizeof(local), "0100007F:%04X", server_port);
  std::snprintf(remote, sizeof(remote), "0100007F:%04X", client_port);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string sl, l, r, st, queues, timer;
    fields >> sl >> l >> r >> st >> queues >> timer;
    if (l != local || r != remote) continue;
    TcpTimer t;
    t.kind = std::stoi(timer.substr(0, 2), nullptr, 16);
    t.when = std::stoll(timer.substr(3), nullptr, 16);
    return t;
  }
  return {};
}

// A connected loopback socket and its local port.
struct Socket {
  explicit Socket(int port) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      return;
    }
    socklen_t len = sizeof(addr);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    local_port = ntohs(addr.sin_port);
    // A round trip: the server has accepted (and tuned) the socket.
    send(fd, "PING\r\n", 6, MSG_NOSIGNAL);
    char buf[16];
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    recv(fd, buf, sizeof(buf), 0);
  }
  ~Socket() {
    if (fd >= 0) close(fd);
  }
  int fd = -1;
  int local_port = 0;
};

TEST_F(LimitsTest, TcpKeepaliveIsSetOnAcceptedSockets) {
  StartWith({"--tcp-keepalive", "77"});
  Socket s(server_->port());
  ASSERT_NE(s.local_port, 0);
  TcpTimer t = ServerSocketTimer(server_->port(), s.local_port);
  EXPECT_EQ(t.kind, 2) << "no keepalive timer on the server's socket";
  // First probe after 77 s idle (USER_HZ is 100 on Linux).
  EXPECT_GT(t.when, 70 * 100);
  EXPECT_LE(t.when, 77 * 100);
}

TEST_F(LimitsTest, TcpKeepaliveDefaultAndOff) {
  StartWith({});
  {
    Socket s(server_->port());
    TcpTimer t = ServerSocketTimer(server_->port(), s.local_port);
    EXPECT_EQ(t.kind, 2);
    EXPECT_GT(t.when, 290 * 100);  // tcp-keepalive 300
    EXPECT_LE(t.when, 300 * 100);
  }
  server_->Stop();
  ASSERT_TRUE(
      server_->Restart(std::vector<std::string>{"--tcp-keepalive", "0"}));
  Socket s(server_->port());
  TcpTimer t = ServerSocketTimer(server_->port(), s.local_port);
  EXPECT_EQ(t.kind, 0) << "a keepalive timer with tcp-keepalive 0";
}

}  // namespace
}  // namespace frontier::itest
