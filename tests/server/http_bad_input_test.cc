// Bad HTTP input: unknown paths, other methods, huge headers, garbage and
// slow clients get an error status and a closed connection, and never
// hold up the event loop (RESP clients and other HTTP clients are served
// meanwhile). The limits are named in docs/operations.md.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"
#include "support/http_client.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

using HttpBadInputTest = HttpServerTest;

TEST_F(HttpBadInputTest, UnknownPathIs404AndCloses) {
  HttpResponse r = HttpExchange(
      http_port_, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", seconds(10));
  EXPECT_EQ(r.status, 404) << r.raw;
  EXPECT_EQ(r.Header("connection"), "close");
  EXPECT_TRUE(r.closed) << "a keep-alive request that failed stays open";
  EXPECT_EQ(HttpGet(http_port_, "/metrics/../etc/passwd").status, 404);
  EXPECT_EQ(HttpGet(http_port_, "/index.html").status, 404);
}

TEST_F(HttpBadInputTest, OtherMethodsAre405) {
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"}) {
    HttpResponse r = HttpExchange(
        http_port_, std::string(method) +
                        " /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: "
                        "0\r\n\r\n");
    EXPECT_EQ(r.status, 405) << method << ": " << r.raw;
    EXPECT_EQ(r.Header("allow"), "GET, HEAD") << method;
    EXPECT_TRUE(r.closed) << method;
  }
}

TEST_F(HttpBadInputTest, HugeHeadersAre431) {
  // Over 8 KiB of headers: 431.
  HttpResponse r = HttpGet(http_port_, "/metrics",
                           {"X-Big: " + std::string(10 * 1024, 'a')});
  EXPECT_EQ(r.status, 431) << r.raw.substr(0, 200);
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.body.find("frontierd_"), std::string::npos);
  // Many small headers count together.
  std::vector<std::string> many;
  for (int i = 0; i < 200; ++i) {
    many.push_back("X-H" + std::to_string(i) + ": " + std::string(50, 'b'));
  }
  EXPECT_EQ(HttpGet(http_port_, "/metrics", many).status, 431);
  // Past 64 KiB libevent stops reading: an error and a closed connection,
  // never a buffer that grows with what the client sends.
  HttpResponse huge =
      HttpGet(http_port_, "/metrics", {"X-Big: " + std::string(1 << 20, 'a')});
  EXPECT_GE(huge.status, 400) << huge.raw.substr(0, 200);
  EXPECT_TRUE(huge.closed);
  // Just under the limit is fine.
  EXPECT_EQ(
      HttpGet(http_port_, "/metrics", {"X-Ok: " + std::string(6 * 1024, 'c')})
          .status,
      200);
}

TEST_F(HttpBadInputTest, GarbageIs400AndCloses) {
  for (const char* garbage :
       {"GARBAGE\r\n\r\n", "GET\r\n\r\n", "\x16\x03\x01\x02\x01\r\n\r\n",
        "GET / HTTP/9.9\r\n\r\n"}) {
    HttpResponse r = HttpExchange(http_port_, garbage, seconds(10));
    EXPECT_TRUE(r.closed) << garbage;
    EXPECT_NE(r.status, 200) << garbage;
  }
  // A body over the limit.
  HttpResponse body = HttpExchange(
      http_port_,
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" +
          std::string(100000, 'x'));
  EXPECT_GE(body.status, 400);
  EXPECT_TRUE(body.closed);
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(HttpBadInputTest, SlowClientsAreClosedWithoutBlockingTheLoop) {
  // Three clients that send half a request and then nothing.
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 3; ++i) {
    slow.push_back(std::make_unique<RawConnection>(http_port_));
    ASSERT_TRUE(slow.back()->ok());
    ASSERT_TRUE(slow.back()->Send("GET /metrics HTTP/1.1\r\nHost: x\r\nX-A: "));
  }
  // Meanwhile everyone else is served at once.
  Stopwatch served;
  EXPECT_EQ(Cmd({"ADD", "http://a.example/"}), Int(1));
  EXPECT_EQ(HttpGet(http_port_, "/api/stats").status, 200);
  EXPECT_LT(served.Elapsed(), seconds(3));
  // The slow ones are closed after the timeout (10 s), without a page.
  Stopwatch waited;
  for (auto& conn : slow) {
    bool closed = false;
    std::string got = conn->ReadUntilClosed(seconds(20), &closed);
    EXPECT_TRUE(closed) << "a slow client was never closed";
    EXPECT_EQ(got.find("frontierd_"), std::string::npos);
  }
  EXPECT_GE(waited.Elapsed(), seconds(5));
  EXPECT_LT(waited.Elapsed(), seconds(20));
}

TEST_F(HttpBadInputTest, KeepAliveServesSeveralRequests) {
  RawConnection conn(http_port_);
  ASSERT_TRUE(conn.ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(conn.Send("GET /api/stats HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string got = conn.Read(20, seconds(5));
    EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << got;
    // Drain the rest of this response before the next request.
    conn.Read(1 << 20, milliseconds(200));
  }
}

}  // namespace
}  // namespace frontier::itest
