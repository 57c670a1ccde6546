// End to end: a catalogue of bad input, one table row per case. Each row is
// sent either as raw bytes on a fresh socket (framing the way no client
// library would) or as an argv through hiredis (binary-safe, so NUL bytes
// and invalid UTF-8 reach the server as they are). Each row states the
// reply, and after every row STATS must be unchanged: bad input is refused
// and stores nothing. docs/commands.md, "Errors and bad input", lists the
// same rows.
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using namespace std::string_literals;  // "..."s keeps NUL bytes

// What a raw row expects.
enum class Outcome {
  kReplyThenClose,  // exactly `reply`, then the server closes
  kReplyStaysOpen,  // exactly `reply`, and the connection stays usable
  kNoReply,         // an incomplete frame: nothing comes, nothing closes
                    // (the client then gives up and closes)
  kAnything,        // any replies or a close; the server must survive
};

struct RawRow {
  std::string name;
  std::string bytes;
  Outcome outcome;
  std::string reply;  // for kReplyThenClose / kReplyStaysOpen
};

std::string ProtocolError(const std::string& what) {
  return "-ERR Protocol error: " + what + "\r\n";
}

const std::vector<RawRow>& RawRows() {
  static const std::vector<RawRow> rows = {
      // --- Truncated frames: the server waits for the rest ---
      {"truncated bulk data", "*2\r\n$3\r\nADD\r\n$20\r\nhttp://trunc",
       Outcome::kNoReply, ""},
      {"truncated argument count", "*3\r\n$3\r\nADD\r\n", Outcome::kNoReply,
       ""},
      {"truncated bulk header", "*2\r\n$3\r\nADD\r\n$2", Outcome::kNoReply, ""},
      {"CR without LF", "*1\r\n$4\r\nPING\r", Outcome::kNoReply, ""},
      {"inline without newline", "ADD http://inline.example/",
       Outcome::kNoReply, ""},
      // --- Negative lengths ---
      {"negative argument count", "*-5\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid multibulk length")},
      {"null multibulk is skipped", "*-1\r\nPING\r\n", Outcome::kReplyStaysOpen,
       "+PONG\r\n"},
      {"empty multibulk is skipped", "*0\r\nPING\r\n", Outcome::kReplyStaysOpen,
       "+PONG\r\n"},
      {"negative bulk length", "*2\r\n$3\r\nADD\r\n$-20\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid bulk length")},
      {"null bulk", "*1\r\n$-1\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid bulk length")},
      // --- Huge lengths: refused from the header, nothing allocated ---
      {"argument count over proto-max-multibulk-len", "*1048577\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid multibulk length")},
      {"argument count beyond 64 bits", "*99999999999999999999\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid multibulk length")},
      {"bulk over proto-max-bulk-len", "*1\r\n$536870913\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid bulk length")},
      {"bulk length beyond 64 bits", "*1\r\n$99999999999999999999\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid bulk length")},
      {"64 KiB count line", "*" + std::string(70000, '1'),
       Outcome::kReplyThenClose, ProtocolError("too big mbulk count string")},
      {"64 KiB bulk length line", "*1\r\n$" + std::string(70000, '1'),
       Outcome::kReplyThenClose, ProtocolError("too big bulk count string")},
      {"64 KiB inline line", std::string(70000, 'A'), Outcome::kReplyThenClose,
       ProtocolError("too big inline request")},
      // --- Non-numeric lengths ---
      {"letters as argument count", "*abc\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid multibulk length")},
      {"plus sign in argument count", "*+1\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid multibulk length")},
      {"leading zero in argument count", "*01\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid multibulk length")},
      {"empty argument count", "*\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid multibulk length")},
      {"letters as bulk length", "*1\r\n$abc\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid bulk length")},
      {"space in bulk length", "*1\r\n$ 4\r\nPING\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid bulk length")},
      {"fraction as bulk length", "*1\r\n$4.0\r\nPING\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid bulk length")},
      // --- Malformed frames ---
      {"element not a bulk", "*1\r\nPING\r\n", Outcome::kReplyThenClose,
       ProtocolError("expected '$', got 'P'")},
      {"integer element", "*1\r\n:1\r\n", Outcome::kReplyThenClose,
       ProtocolError("expected '$', got ':'")},
      {"bulk longer than announced", "*1\r\n$4\r\nPINGXX\r\n",
       Outcome::kReplyThenClose,
       ProtocolError("expected CRLF after bulk data")},
      {"header ending in bare LF", "*1\n$4\r\nPING\r\n",
       Outcome::kReplyThenClose, ProtocolError("invalid multibulk length")},
      {"unbalanced quotes inline", "ADD \"http://a.example/\r\n",
       Outcome::kReplyThenClose, ProtocolError("unbalanced quotes in request")},
      {"text after a closing quote", "ECHO \"a\"b\r\n",
       Outcome::kReplyThenClose, ProtocolError("unbalanced quotes in request")},
      // --- Binary garbage ---
      {"TLS hello on the plain port",
       "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03"s, Outcome::kNoReply, ""},
      {"garbage line is an unknown command", "\x01\xfe\x7f junk\r\n",
       Outcome::kReplyStaysOpen,
       "-ERR unknown command '\x01\xfe\x7f', with args beginning with: "
       "'junk' \r\n"},
      {"star then garbage", "*\xff\xfe\r\n", Outcome::kReplyThenClose,
       ProtocolError("invalid multibulk length")},
      {"HTTP request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
       Outcome::kReplyStaysOpen,
       "-ERR unknown command 'GET', with args beginning with: '/' "
       "'HTTP/1.1' \r\n-ERR unknown command 'Host:', with args beginning "
       "with: 'x' \r\n"},
  };
  return rows;
}

// A hiredis row: argv, and the reply expected (an exact Reply, or an error
// whose text starts with `error_prefix`).
struct ArgvRow {
  std::vector<std::string> argv;
  std::string error_prefix;  // "" = compare with `reply`
  Reply reply = Reply();
};

ArgvRow Err(std::vector<std::string> argv, std::string prefix) {
  return ArgvRow{std::move(argv), std::move(prefix)};
}

ArgvRow Exactly(std::vector<std::string> argv, Reply reply) {
  return ArgvRow{std::move(argv), "", std::move(reply)};
}

const char kUrl[] = "http://known.example/page";  // leased before the rows
const char kSyntax[] = "ERR syntax error";
const char kNotInteger[] = "ERR value is not an integer or out of range";
const char kNotFloat[] = "ERR value is not a valid float";
const char kPriority[] = "ERR PRIORITY must be an integer between 0 and 9999";
const char kRecrawl[] = "ERR RECRAWL must be a non-negative number of seconds";
const char kLease[] = "ERR LEASE must be a positive number of seconds";
const char kDelay[] = "ERR DELAY must be a non-negative number of seconds";
const char kStatusRange[] =
    "ERR STATUS must be an HTTP status code between 100 and 599";
const char kUtf8[] = "ERR invalid URL: invalid UTF-8 at offset ";

std::vector<ArgvRow> ArgvRows() {
  const std::string overlong = "http://long.example/" + std::string(8173, 'a');
  const std::string max_len = "http://long.example/" + std::string(8172, 'a');
  return {
      // --- NUL bytes, control bytes, invalid UTF-8, IDN hosts ---
      // A NUL or control byte in a path is escaped, as browsers do; in a
      // host it is refused, and shown as \xNN.
      Err({"ADD", "http://a\0.example/"s},
          "ERR invalid URL: invalid host 'a\\x00.example': control "
          "character 0x00 cannot appear in a host name"),
      Err({"ADD", "\0"s}, "ERR invalid URL: empty URL"),
      Err({"ADD", "http://a.example\x01/"},
          "ERR invalid URL: invalid host 'a.example\\x01': control "
          "character 0x01 cannot appear in a host name"),
      Err({"SEEN", "http://a\0.example/"s}, "ERR invalid URL: "),
      Err({"CONFIRM", "http://a\0.example/"s}, "ERR invalid URL: "),
      Err({"FAIL", "http://a.example/\xff"}, kUtf8 + "17"s),
      Err({"RECRAWL", "http://a\0.example/"s, "10"}, "ERR invalid URL: "),
      Err({"URLINFO", "http://\xC3\xBC.xn--a.example/"},
          "ERR invalid URL: invalid IDN host '\xC3\xBC.xn--a.example': "),
      Err({"ADD", "http://a.example/\xff"}, kUtf8 + "17"s),
      Err({"ADD", "http://a.example/caf\xe9"}, kUtf8 + "20"s),
      Err({"ADD", "http://a.example/\xc3"}, kUtf8 + "17"s),
      Err({"ADD", "http://a.example/\xc0\xaf"}, kUtf8 + "17"s),
      // IDN hosts are converted (add_test.cc); invalid ones are refused.
      Err({"ADD", "http://\xe2\x98\x83.example/"},
          "ERR invalid URL: invalid IDN host '\xe2\x98\x83.example': string "
          "contains a disallowed character (IDNA2008, UTS #46)"),
      Err({"ADD", "http://b%FFcher.example/"},
          "ERR invalid URL: invalid host 'b%FFcher.example': its "
          "percent-escapes are not UTF-8 text"),
      // --- Other invalid URLs ---
      Err({"ADD", overlong}, "ERR invalid URL: URL is longer than 8192 bytes"),
      Err({"ADD", ""}, "ERR invalid URL: empty URL"),
      Err({"ADD", "ftp://a.example/"},
          "ERR invalid URL: unsupported scheme 'ftp'"),
      Err({"ADD", "a.example/page"}, "ERR invalid URL: relative URL"),
      Err({"ADD", "http://a.example:99999/"},
          "ERR invalid URL: invalid port '99999'"),
      Err({"ADD", "http://a.example/", "http://\xff/"},
          "ERR invalid ref URL: invalid UTF-8 at offset 7"),
      Exactly({"MADD", "", "http://a\0.example/"s, overlong},
              Array({Error("ERR invalid URL: invalid host 'a\\x00.example': "
                           "control character 0x00 cannot appear in a host "
                           "name"),
                     Error("ERR invalid URL: URL is longer than 8192 "
                           "bytes")})),
      Err({"MADD", "http://\xff/", "http://a.example/"},
          "ERR invalid ref URL: "),
      // --- Wrong types for numeric arguments ---
      Err({"ADD", "http://a.example/", "PRIORITY", "abc"}, kPriority),
      Err({"ADD", "http://a.example/", "PRIORITY", "1.5"}, kPriority),
      Err({"ADD", "http://a.example/", "PRIORITY", "-1"}, kPriority),
      Err({"ADD", "http://a.example/", "PRIORITY", "10000"}, kPriority),
      Err({"ADD", "http://a.example/", "PRIORITY", ""}, kPriority),
      Err({"ADD", "http://a.example/", "PRIORITY", "99999999999999999999"},
          kPriority),
      Err({"ADD", "http://a.example/", "", "PRIORITY", " 5"}, kPriority),
      Err({"ADD", "http://a.example/", "RECRAWL", "abc"}, kRecrawl),
      Err({"ADD", "http://a.example/", "RECRAWL", "-1"}, kRecrawl),
      Err({"ADD", "http://a.example/", "RECRAWL", "1e3"}, kRecrawl),
      Err({"ADD", "http://a.example/", "RECRAWL", "inf"}, kRecrawl),
      Err({"ADD", "http://a.example/", "RECRAWL", "nan"}, kRecrawl),
      Err({"POP", "COUNT", "abc"}, kNotInteger),
      Err({"POP", "COUNT", "0"}, kNotInteger),
      Err({"POP", "COUNT", "-1"}, kNotInteger),
      Err({"POP", "COUNT", "1.5"}, kNotInteger),
      Err({"POP", "COUNT", "99999999999999999999"}, kNotInteger),
      Err({"POP", "LEASE", "abc"}, kLease),
      Err({"POP", "LEASE", "-1"}, kLease),
      Err({"POP", "LEASE", "0"}, kLease),
      Err({"BPOP", "abc"}, "ERR timeout is not a float or out of range"),
      Err({"BPOP", "-1"}, "ERR timeout is negative"),
      Err({"BPOP", "1", "COUNT", "abc"}, kNotInteger),
      Err({"BPOP", "1", "COUNT", "0"}, kNotInteger),
      Err({"BPOP", "1", "LEASE", "abc"}, kLease),
      Err({"BPOP", "1", "LEASE", "-1"}, kLease),
      Err({"FAIL", kUrl, "DELAY", "abc"}, kDelay),
      Err({"FAIL", kUrl, "DELAY", "-1"}, kDelay),
      Err({"RECRAWL", kUrl, "abc"}, kNotFloat),
      Err({"RECRAWL", kUrl, ""}, kNotFloat),
      Err({"DELAY", "known.example", "abc"}, kNotFloat),
      Err({"DELAY", "known.example", "1s"}, kNotFloat),
      Err({"DELAY", "", "1"}, "ERR invalid site ''"),
      Err({"ROBOTS", "SET", "http://a.example", "99"}, kStatusRange),
      Err({"ROBOTS", "SET", "http://a.example", "abc", "body"}, kStatusRange),
      Err({"ROBOTS", "SET", "http://a.example/path", "200"},
          "ERR invalid origin 'http://a.example/path': expected "
          "scheme://host[:port] with no path, query or fragment"),
      Err({"ROBOTS", "SET", "ftp://a.example", "200"},
          "ERR invalid origin: unsupported scheme 'ftp'"),
      Err({"ROBOTS", "GET", "http://a\0.example/"s}, "ERR invalid URL: "),
      Err({"ROBOTS", "CHECK", ""}, "ERR invalid URL: empty URL"),
      Err({"SELECT", "abc"}, kNotInteger),
      Err({"SELECT", "1"}, "ERR DB index is out of range"),
      Err({"SELECT", "-1"}, "ERR DB index is out of range"),
      Err({"HELLO", "abc"},
          "ERR Protocol version is not an integer or out of range"),
      Err({"HELLO", "3"}, "NOPROTO unsupported protocol version"),
      // --- Unknown options, missing values, repeated options ---
      Err({"ADD", "http://a.example/", "PRIORITY", "1", "FOO"}, kSyntax),
      Err({"ADD", "http://a.example/", "", "PRIORITY"}, kSyntax),
      Err({"ADD", "http://a.example/", "PRIORITY", "1", "PRIORITY", "2"},
          kSyntax),
      Err({"ADD", "http://a.example/", "ref", "FOO", "1"}, kSyntax),
      Err({"POP", "FOO", "1"}, kSyntax),
      Err({"POP", "COUNT"}, kSyntax),
      Err({"POP", "COUNT", "1", "COUNT", "2"}, kSyntax),
      Err({"BPOP", "1", "FOO", "1"}, kSyntax),
      Err({"FAIL", kUrl, "FOO", "1"}, kSyntax),
      Err({"FAIL", kUrl, "DELAY"}, kSyntax),
      // --- Per-URL data (issue 22): the word at fault is named ---
      Err({"ADD", "http://a.example/", "DATA"},
          "ERR syntax error: DATA needs a value"),
      Err({"ADD", "http://a.example/", "DATA", "1", "DATA", "2"},
          "ERR syntax error: DATA given twice"),
      Err({"ADD", "http://a.example/", "REPLACE", "replace"},
          "ERR syntax error: REPLACE given twice"),
      Err({"ADD", "http://a.example/", "DATA", "1", "FOO"}, kSyntax),
      Err({"POP", "WITHDATA", "WITHDATA"},
          "ERR syntax error: WITHDATA given twice"),
      Err({"BPOP", "1", "withdata", "WITHDATA"},
          "ERR syntax error: WITHDATA given twice"),
      Err({"MADD", "", "DATA"},
          "ERR syntax error: MADD ref DATA takes url value pairs"),
      Err({"MADD", "", "DATA", "http://a.example/", "v", "http://b.example/"},
          "ERR syntax error: MADD ref DATA takes url value pairs"),
      Err({"ADD", "http://a.example/", "DATA", std::string(65537, 'x')},
          "ERR DATA value of 65537 bytes is longer than max-url-data (65536 "
          "bytes)"),
      // --- Unknown commands and wrong argument counts ---
      Err({"FOO", "bar"},
          "ERR unknown command 'FOO', with args beginning with: 'bar' "),
      Err({"ADD"}, "ERR wrong number of arguments for 'add' command"),
      Err({"CONFIRM"}, "ERR wrong number of arguments for 'confirm' command"),
      Err({"CONFIRM", kUrl, "extra"}, "ERR syntax error"),
      Err({"RECRAWL", kUrl},
          "ERR wrong number of arguments for 'recrawl' command"),
      Err({"MADD", ""}, "ERR wrong number of arguments for 'madd' command"),
      Err({"ROBOTS"}, "ERR wrong number of arguments for 'robots' command"),
      Err({"ROBOTS", "GET"},
          "ERR wrong number of arguments for 'robots|get' command"),
      Err({"ROBOTS", "SET", "http://a.example"},
          "ERR wrong number of arguments for 'robots|set' command"),
      Err({"ROBOTS", "FOO"},
          "ERR unknown subcommand 'FOO'. Try ROBOTS HELP."),
      // A URL exactly max-url-length long is fine: checked in its own test.
      Exactly({"SEEN", max_len}, Int(0)),
  };
}

class BadInputTest : public FrontierdTest {
 protected:
  void SetUp() override {
    FrontierdTest::SetUp();
    // A leased URL, so that FAIL and RECRAWL rows would change something
    // if their arguments were accepted.
    ASSERT_EQ(Cmd({"ADD", kUrl}), Int(1));
    ASSERT_EQ(Cmd({"POP"}), Bulk(kUrl));
  }

  // STATS, and what must not change: the URLs and their states.
  Counters Snapshot() {
    Counters s = Stats();
    s.Set("dbsize", Cmd({"DBSIZE"}).integer);
    return s;
  }
};

TEST_F(BadInputTest, RawFramesGetTheirDocumentedReplyAndStoreNothing) {
  const auto before = Snapshot();
  for (const RawRow& row : RawRows()) {
    SCOPED_TRACE(row.name);
    RawConnection raw(server_->port());
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw.Send(row.bytes));
    bool closed = false;
    switch (row.outcome) {
      case Outcome::kReplyThenClose: {
        std::string got = raw.ReadUntilClosed(seconds(5), &closed);
        EXPECT_EQ(got, row.reply);
        EXPECT_TRUE(closed) << "the connection stayed open";
        break;
      }
      case Outcome::kReplyStaysOpen: {
        EXPECT_EQ(raw.Read(row.reply.size(), seconds(5), &closed), row.reply);
        EXPECT_FALSE(closed);
        // Still in step: the next command is answered normally.
        ASSERT_TRUE(raw.Send("PING\r\n"));
        EXPECT_EQ(raw.Read(7, seconds(5), &closed), "+PONG\r\n");
        break;
      }
      case Outcome::kNoReply: {
        EXPECT_EQ(raw.Read(1, milliseconds(200), &closed), "");
        EXPECT_FALSE(closed) << "closed on an incomplete frame";
        break;
      }
      case Outcome::kAnything:
        raw.ReadUntilClosed(milliseconds(200), &closed);
        break;
    }
    EXPECT_EQ(Snapshot(), before);
  }
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(BadInputTest, ArgvRowsGetTheirDocumentedReplyAndStoreNothing) {
  const auto before = Snapshot();
  auto client = Connect();
  for (const ArgvRow& row : ArgvRows()) {
    std::string trace;
    for (const std::string& a : row.argv) {
      trace += "'" + a.substr(0, 40) + (a.size() > 40 ? "...'" : "'") + " ";
    }
    SCOPED_TRACE(trace);
    Reply r = client->Cmd(row.argv);
    if (row.error_prefix.empty()) {
      EXPECT_EQ(r, row.reply);
    } else {
      EXPECT_TRUE(IsErrorStartingWith(r, row.error_prefix));
    }
    ASSERT_TRUE(client->ok()) << "the connection was lost";
    EXPECT_EQ(Snapshot(), before);
  }
  // The leased URL is still leased: no FAIL or RECRAWL row touched it.
  EXPECT_EQ(UrlInfo(kUrl)["state"], "leased");
  EXPECT_EQ(UrlInfo(kUrl)["recrawl"], "0");
}

TEST_F(BadInputTest, RandomBytesNeverCrashTheServer) {
  // Deterministic noise, in frames and outside them, on 50 connections.
  std::mt19937 rng(20240611);
  const auto before = Snapshot();
  for (int i = 0; i < 50; ++i) {
    std::string noise(4096, '\0');
    for (char& c : noise) c = static_cast<char>(rng() & 0xff);
    if (i % 2 == 0) noise = "*3\r\n$3\r\nADD\r\n$4096\r\n" + noise;
    RawConnection raw(server_->port());
    raw.Send(noise);
    bool closed = false;
    raw.Read(1 << 20, milliseconds(50), &closed);
  }
  EXPECT_EQ(Snapshot(), before);
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(BadInputTest, PunycodeHostsAndLimitLengthUrlsAreAccepted) {
  // The contrast to the rows above: the forms that are refused have a form
  // that is accepted.
  EXPECT_EQ(Cmd({"ADD", "http://xn--bcher-kva.example/"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.example/caf%E9"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.example/caf\xc3\xa9"}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", "http://a.example/caf%C3%A9"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://long.example/" + std::string(8172, 'a')}),
            Int(1));
  EXPECT_EQ(Stats()["urls"], 5);
}

}  // namespace
}  // namespace frontier::itest
