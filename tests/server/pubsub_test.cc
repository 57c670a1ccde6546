// Pub/Sub (docs/commands.md#pubsub): the PubSub state on its own, then end
// to end through the real binary with raw sockets, so the bytes a
// subscriber reads are checked exactly against Redis's RESP2 format, and
// with redis-cli. tests/python/ drives redis-py's pubsub() and compares
// whole sessions byte for byte with a real redis-server.
#include "server/pubsub.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier {
namespace {

// Records what PubSub delivers, in order.
class FakeSink : public PubSubSink {
 public:
  void Deliver(uint64_t client, std::string_view resp) override {
    got.emplace_back(client, std::string(resp));
    if (on_deliver) on_deliver(client);
  }
  std::vector<std::pair<uint64_t, std::string>> got;
  std::function<void(uint64_t)> on_deliver;
};

std::string Message(const std::string& channel, const std::string& payload) {
  return "*3\r\n$7\r\nmessage\r\n$" + std::to_string(channel.size()) + "\r\n" +
         channel + "\r\n$" + std::to_string(payload.size()) + "\r\n" + payload +
         "\r\n";
}

TEST(PubSubTest, CountsAreChannelsPlusPatterns) {
  FakeSink sink;
  PubSub ps(sink);
  EXPECT_EQ(ps.Subscribe(1, "a"), 1u);
  EXPECT_EQ(ps.Subscribe(1, "b"), 2u);
  EXPECT_EQ(ps.Subscribe(1, "a"), 2u);  // again: no change
  EXPECT_EQ(ps.PSubscribe(1, "x*"), 3u);
  EXPECT_EQ(ps.Unsubscribe(1, "nope"), 3u);
  EXPECT_EQ(ps.Unsubscribe(1, "a"), 2u);
  EXPECT_EQ(ps.ChannelsOf(1), std::vector<std::string>{"b"});
  EXPECT_EQ(ps.PatternsOf(1), std::vector<std::string>{"x*"});
  EXPECT_EQ(ps.PUnsubscribe(1, "x*"), 1u);
  EXPECT_EQ(ps.Unsubscribe(1, "b"), 0u);
  EXPECT_EQ(ps.NumChannels(), 0u);
  EXPECT_EQ(ps.NumPatterns(), 0u);
  EXPECT_EQ(ps.Unsubscribe(2, "a"), 0u);  // a client never seen
}

TEST(PubSubTest, PublishFormatsOnceAndCountsEveryDelivery) {
  FakeSink sink;
  PubSub ps(sink);
  ps.Subscribe(1, "news");
  ps.Subscribe(2, "news");
  ps.PSubscribe(2, "n*");  // 2 also gets the pmessage, counted twice
  ps.PSubscribe(3, "x*");  // no match
  ps.PSubscribe(4, "N*");  // patterns are case sensitive, as in Redis
  EXPECT_EQ(ps.Publish("news", "hi"), 3u);
  ASSERT_EQ(sink.got.size(), 3u);
  EXPECT_EQ(sink.got[0], std::make_pair(uint64_t{1}, Message("news", "hi")));
  EXPECT_EQ(sink.got[1], std::make_pair(uint64_t{2}, Message("news", "hi")));
  EXPECT_EQ(sink.got[2],
            std::make_pair(uint64_t{2},
                           std::string("*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n"
                                       "$4\r\nnews\r\n$2\r\nhi\r\n")));
  EXPECT_EQ(ps.Publish("zzz", "x"), 0u);
  EXPECT_EQ(ps.Publish("", ""), 0u);
  EXPECT_EQ(ps.NumSubscribers("news"), 2u);
  EXPECT_EQ(ps.NumPatterns(), 3u);
}

TEST(PubSubTest, RemoveClientDropsEverySubscription) {
  FakeSink sink;
  PubSub ps(sink);
  ps.Subscribe(1, "a");
  ps.Subscribe(1, "b");
  ps.PSubscribe(1, "*");
  ps.Subscribe(2, "b");
  ps.RemoveClient(1);
  EXPECT_EQ(ps.ChannelCount(1), 0u);
  EXPECT_EQ(ps.PatternCount(1), 0u);
  EXPECT_EQ(ps.ActiveChannels(std::nullopt), std::vector<std::string>{"b"});
  EXPECT_EQ(ps.NumPatterns(), 0u);
  EXPECT_EQ(ps.Publish("a", "m"), 0u);
  EXPECT_EQ(ps.Publish("b", "m"), 1u);
}

TEST(PubSubTest, ASubscriberDroppedWhilePublishingIsRemovedAfter) {
  // The loop closes a subscriber over its output limit from inside
  // Deliver; the walk over the subscribers must survive it.
  FakeSink sink;
  PubSub ps(sink);
  for (uint64_t id = 1; id <= 5; ++id) ps.Subscribe(id, "c");
  ps.PSubscribe(3, "c*");
  sink.on_deliver = [&](uint64_t id) {
    if (id == 3) ps.RemoveClient(3);
  };
  EXPECT_EQ(ps.Publish("c", "m"), 6u);
  EXPECT_EQ(ps.NumSubscribers("c"), 4u);
  EXPECT_EQ(ps.NumPatterns(), 0u);
  EXPECT_EQ(ps.ChannelCount(3), 0u);
}

TEST(PubSubTest, ActiveChannelsMatchAGlob) {
  FakeSink sink;
  PubSub ps(sink);
  ps.Subscribe(1, "frontier:hints:eu");
  ps.Subscribe(2, "frontier:hints:us");
  ps.Subscribe(2, "other");
  ps.Subscribe(3, "");
  EXPECT_EQ(ps.ActiveChannels(std::nullopt),
            (std::vector<std::string>{"", "frontier:hints:eu",
                                      "frontier:hints:us", "other"}));
  EXPECT_EQ(
      ps.ActiveChannels("frontier:hints:*"),
      (std::vector<std::string>{"frontier:hints:eu", "frontier:hints:us"}));
  // An explicit empty pattern matches only the empty channel.
  EXPECT_EQ(ps.ActiveChannels(""), std::vector<std::string>{""});
  EXPECT_EQ(ps.NumChannels(), 4u);
}

}  // namespace

// --- End to end ----------------------------------------------------------

namespace itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A confirmation: [kind, name, count]; an empty `name` stands for nil.
std::string Confirmation(const std::string& kind, const std::string& name,
                         long long count) {
  std::string out =
      "*3\r\n$" + std::to_string(kind.size()) + "\r\n" + kind + "\r\n";
  out += name.empty()
             ? "$-1\r\n"
             : "$" + std::to_string(name.size()) + "\r\n" + name + "\r\n";
  return out + ":" + std::to_string(count) + "\r\n";
}

// Resp() writes a multibulk of bulk strings: exactly a message's shape.
std::string MessageBytes(const std::string& channel,
                         const std::string& payload) {
  return Resp({"message", channel, payload});
}

// DefaultTestArgs() plus `extra` directives.
std::vector<std::string> TestArgsWith(std::vector<std::string> extra) {
  std::vector<std::string> args = DefaultTestArgs();
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

class PubSubE2ETest : public FrontierdTest {
 protected:
  // Sends `command` on `conn` and reads exactly `expected.size()` bytes.
  std::string Exchange(RawConnection& conn,
                       const std::vector<std::string>& command,
                       size_t expected_size) {
    EXPECT_TRUE(conn.Send(Resp(command)));
    return conn.Read(expected_size, seconds(5));
  }
  void ExpectExchange(RawConnection& conn,
                      const std::vector<std::string>& command,
                      const std::string& expected) {
    EXPECT_EQ(Exchange(conn, command, expected.size()), expected) << command[0];
  }
  // Nothing more arrives on `conn` for a moment.
  void ExpectQuiet(RawConnection& conn) {
    EXPECT_EQ(conn.Read(1, milliseconds(150)), "");
  }
  long long InfoStat(const std::string& name) {
    auto m = InfoMap(Cmd({"INFO", "stats"}).str);
    return m.count(name) ? std::stoll(m[name]) : -1;
  }
  // Polls PUBSUB NUMSUB until `channel` has `n` subscribers (5 s at most).
  bool WaitForSubscribers(const std::string& channel, long long n) {
    Stopwatch watch;
    while (watch.Elapsed() < seconds(5)) {
      Reply r = Cmd({"PUBSUB", "NUMSUB", channel});
      if (r.IsArray() && r.elements.size() == 2 && r.elements[1] == Int(n)) {
        return true;
      }
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }
};

TEST_F(PubSubE2ETest, ConfirmationsCarryTheClientsCount) {
  RawConnection sub(server_->port());
  ExpectExchange(
      sub, {"SUBSCRIBE", "a", "b"},
      Confirmation("subscribe", "a", 1) + Confirmation("subscribe", "b", 2));
  ExpectExchange(sub, {"PSUBSCRIBE", "x*"},
                 Confirmation("psubscribe", "x*", 3));
  ExpectExchange(sub, {"SUBSCRIBE", "a"}, Confirmation("subscribe", "a", 3));
  ExpectExchange(sub, {"UNSUBSCRIBE", "zzz"},
                 Confirmation("unsubscribe", "zzz", 3));
  // Without arguments: every channel (sorted), then the patterns.
  ExpectExchange(sub, {"UNSUBSCRIBE"},
                 Confirmation("unsubscribe", "a", 2) +
                     Confirmation("unsubscribe", "b", 1));
  ExpectExchange(sub, {"UNSUBSCRIBE"}, Confirmation("unsubscribe", "", 1));
  ExpectExchange(sub, {"PUNSUBSCRIBE"}, Confirmation("punsubscribe", "x*", 0));
  // Out of subscribed mode: Redis's nil confirmation, then normal replies.
  ExpectExchange(sub, {"PUNSUBSCRIBE"}, Confirmation("punsubscribe", "", 0));
  ExpectExchange(sub, {"PING"}, "+PONG\r\n");
  ExpectExchange(sub, {"SUBSCRIBE"},
                 "-ERR wrong number of arguments for 'subscribe' command\r\n");
}

TEST_F(PubSubE2ETest, MessagesReachEverySubscriberAndPattern) {
  RawConnection one(server_->port()), two(server_->port()),
      pat(server_->port()), other(server_->port());
  ExpectExchange(one, {"SUBSCRIBE", "news"},
                 Confirmation("subscribe", "news", 1));
  ExpectExchange(two, {"SUBSCRIBE", "news", "sport"},
                 Confirmation("subscribe", "news", 1) +
                     Confirmation("subscribe", "sport", 2));
  ExpectExchange(pat, {"PSUBSCRIBE", "n?ws", "*"},
                 Confirmation("psubscribe", "n?ws", 1) +
                     Confirmation("psubscribe", "*", 2));
  ExpectExchange(other, {"SUBSCRIBE", "weather"},
                 Confirmation("subscribe", "weather", 1));

  std::string payload = "hello\r\nworld \x01\xff";  // binary safe
  EXPECT_EQ(Cmd({"PUBLISH", "news", payload}), Int(4));
  std::string message = MessageBytes("news", payload);
  EXPECT_EQ(one.Read(message.size(), seconds(5)), message);
  EXPECT_EQ(two.Read(message.size(), seconds(5)), message);
  // One pmessage per matching pattern, in the patterns' byte order.
  std::string pmessages = Resp({"pmessage", "*", "news", payload}) +
                          Resp({"pmessage", "n?ws", "news", payload});
  EXPECT_EQ(pat.Read(pmessages.size(), seconds(5)), pmessages);
  ExpectQuiet(other);
  ExpectQuiet(one);

  EXPECT_EQ(Cmd({"PUBLISH", "nobody-listens", "x"}), Int(1));  // "*"
  EXPECT_EQ(Cmd({"PUBLISH", "sport", "goal"}), Int(2));
  std::string goal = MessageBytes("sport", "goal");
  EXPECT_EQ(two.Read(goal.size(), seconds(5)), goal);
  ExpectQuiet(one);
}

TEST_F(PubSubE2ETest, SubscribedModeAllowsOnlyRedissCommands) {
  RawConnection sub(server_->port());
  ExpectExchange(sub, {"SUBSCRIBE", "c"}, Confirmation("subscribe", "c", 1));
  ExpectExchange(sub, {"ADD", "http://a.com/"},
                 "-ERR Can't execute 'add': only (P|S)SUBSCRIBE / "
                 "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
                 "context\r\n");
  ExpectExchange(sub, {"CLIENT", "LIST"},
                 "-ERR Can't execute 'client|list': only (P|S)SUBSCRIBE / "
                 "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
                 "context\r\n");
  ExpectExchange(sub, {"PUBLISH", "c", "x"},
                 "-ERR Can't execute 'publish': only (P|S)SUBSCRIBE / "
                 "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
                 "context\r\n");
  EXPECT_EQ(UrlInfo("http://a.com/").size(), 0u) << "the ADD must not run";
  ExpectExchange(sub, {"PING"}, "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
  ExpectExchange(sub, {"PING", "hi"}, "*2\r\n$4\r\npong\r\n$2\r\nhi\r\n");
  // RESET leaves subscribed mode without confirmations.
  ExpectExchange(sub, {"RESET"}, "+RESET\r\n");
  EXPECT_TRUE(WaitForSubscribers("c", 0));
  ExpectExchange(sub, {"ADD", "http://a.com/"}, ":1\r\n");
  // QUIT is allowed, and answered.
  ExpectExchange(sub, {"SUBSCRIBE", "c"}, Confirmation("subscribe", "c", 1));
  bool closed = false;
  sub.Send(Resp({"QUIT"}));
  EXPECT_EQ(sub.ReadUntilClosed(seconds(5), &closed), "+OK\r\n");
  EXPECT_TRUE(closed);
}

TEST_F(PubSubE2ETest, IntrospectionCountsChannelsAndPatterns) {
  RawConnection a(server_->port()), b(server_->port());
  ExpectExchange(
      a, {"SUBSCRIBE", "x", "y"},
      Confirmation("subscribe", "x", 1) + Confirmation("subscribe", "y", 2));
  ExpectExchange(b, {"SUBSCRIBE", "x"}, Confirmation("subscribe", "x", 1));
  ExpectExchange(b, {"PSUBSCRIBE", "p*", "q*"},
                 Confirmation("psubscribe", "p*", 2) +
                     Confirmation("psubscribe", "q*", 3));
  EXPECT_EQ(Cmd({"PUBSUB", "NUMSUB", "x", "y", "z"}),
            Array({Bulk("x"), Int(2), Bulk("y"), Int(1), Bulk("z"), Int(0)}));
  EXPECT_EQ(Cmd({"PUBSUB", "NUMSUB"}), Array({}));
  EXPECT_EQ(Cmd({"PUBSUB", "NUMPAT"}), Int(2));
  EXPECT_EQ(Cmd({"PUBSUB", "CHANNELS"}), BulkArray({"x", "y"}));
  EXPECT_EQ(Cmd({"PUBSUB", "channels", "y*"}), BulkArray({"y"}));
  EXPECT_EQ(Cmd({"PUBSUB", "CHANNELS", "a", "b"}),
            Error("ERR wrong number of arguments for 'pubsub|channels' "
                  "command"));
  EXPECT_EQ(Cmd({"PUBSUB", "NOPE"}),
            Error("ERR unknown subcommand 'NOPE'. Try PUBSUB HELP."));
  EXPECT_EQ(InfoStat("pubsub_channels"), 2);
  EXPECT_EQ(InfoStat("pubsub_patterns"), 2);

  std::string list = Cmd({"CLIENT", "LIST"}).str;
  EXPECT_NE(list.find(" flags=P db=0 sub=2 psub=0 "), std::string::npos)
      << list;
  EXPECT_NE(list.find(" flags=P db=0 sub=1 psub=2 "), std::string::npos)
      << list;
  EXPECT_NE(list.find(" flags=N db=0 sub=0 psub=0 "), std::string::npos)
      << list;  // the asking client itself
  auto lines = [](const Reply& r) {
    return std::count(r.str.begin(), r.str.end(), '\n');
  };
  EXPECT_EQ(lines(Cmd({"CLIENT", "LIST", "TYPE", "pubsub"})), 2);
  EXPECT_EQ(lines(Cmd({"CLIENT", "LIST", "TYPE", "normal"})), 1);
}

TEST_F(PubSubE2ETest, ADisconnectedSubscriberIsForgotten) {
  {
    RawConnection gone(server_->port());
    ExpectExchange(
        gone, {"SUBSCRIBE", "c", "d"},
        Confirmation("subscribe", "c", 1) + Confirmation("subscribe", "d", 2));
    ExpectExchange(gone, {"PSUBSCRIBE", "c*"},
                   Confirmation("psubscribe", "c*", 3));
    EXPECT_EQ(Cmd({"PUBLISH", "c", "m"}), Int(2));
  }  // closed
  EXPECT_TRUE(WaitForSubscribers("c", 0));
  EXPECT_EQ(Cmd({"PUBSUB", "CHANNELS"}), Array({}));
  EXPECT_EQ(Cmd({"PUBSUB", "NUMPAT"}), Int(0));
  EXPECT_EQ(Cmd({"PUBLISH", "c", "m"}), Int(0));
  EXPECT_EQ(InfoStat("pubsub_channels"), 0);
}

TEST_F(PubSubE2ETest, AChannelNameOverProtoMaxBulkLenIsRefused) {
  // proto-max-bulk-len is 512mb by default; the header alone is refused.
  RawConnection sub(server_->port());
  ASSERT_TRUE(sub.Send("*2\r\n$9\r\nSUBSCRIBE\r\n$600000000\r\n"));
  bool closed = false;
  std::string reply = sub.ReadUntilClosed(seconds(5), &closed);
  EXPECT_TRUE(reply.starts_with("-ERR Protocol error: invalid bulk length"))
      << reply;
  EXPECT_TRUE(closed);
  EXPECT_EQ(Cmd({"PUBSUB", "NUMSUB"}), Array({}));
  EXPECT_EQ(Cmd({"PUBSUB", "CHANNELS"}), Array({}));
}

TEST_F(PubSubE2ETest, RedisCliSubscribeReceivesMessages) {
  // redis-cli SUBSCRIBE runs until killed; it is given 10 s, and killed
  // once the test has published (it prints each message as it comes).
  ProcessResult cli;
  std::thread runner([&] {
    cli = RunRedisCli(server_->port(), {"SUBSCRIBE", "frontier:hints:eu"}, "",
                      seconds(4));
  });
  bool subscribed = WaitForSubscribers("frontier:hints:eu", 1);
  Reply published = Cmd({"PUBLISH", "frontier:hints:eu", "slow-down 3"});
  runner.join();
  ASSERT_TRUE(subscribed) << cli.out << cli.err;
  EXPECT_EQ(published, Int(1));
  // Raw output (stdout is a pipe): one line per element.
  EXPECT_EQ(cli.out,
            "subscribe\nfrontier:hints:eu\n1\n"
            "message\nfrontier:hints:eu\nslow-down 3\n")
      << cli.err;
}

// The pubsub output class: a subscriber that never reads is closed before
// the server holds more than the hard limit for it.
class PubSubLimitTest : public PubSubE2ETest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return TestArgsWith(
        {"--client-output-buffer-limit", "pubsub 1mb 512kb 60"});
  }
};

TEST_F(PubSubLimitTest, ASubscriberThatNeverReadsIsDisconnected) {
  EXPECT_EQ(Cmd({"CONFIG", "GET", "client-output-buffer-limit"}),
            BulkArray({"client-output-buffer-limit",
                       "normal 0 0 0 pubsub 1mb 524288 60"}));
  RawConnection idle(server_->port());
  ExpectExchange(idle, {"SUBSCRIBE", "flood"},
                 Confirmation("subscribe", "flood", 1));
  // A reading subscriber on the same channel keeps up and stays.
  RawConnection reader(server_->port());
  ExpectExchange(reader, {"SUBSCRIBE", "flood"},
                 Confirmation("subscribe", "flood", 1));
  const std::string payload(64 * 1024, 'm');
  const std::string message = MessageBytes("flood", payload);
  // The kernel's socket buffers take a few MB before the server holds
  // anything; 2000 messages (128 MB) is far beyond them and the limit.
  int published = 0;
  while (published < 2000 && InfoStat("pubsub_channels") == 1) {
    Reply r = Cmd({"PUBLISH", "flood", payload});
    ASSERT_TRUE(r.IsInteger()) << r;
    ASSERT_EQ(reader.Read(message.size(), seconds(5)), message);
    ++published;
    if (r.integer == 1) break;  // the idle one is gone
  }
  EXPECT_TRUE(WaitForSubscribers("flood", 1)) << published << " published";
  EXPECT_EQ(InfoStat("client_output_buffer_limit_disconnections"), 1);
  EXPECT_NE(ReadFile(server_->log_path())
                .find("client-output-buffer-limit hard, pubsub class"),
            std::string::npos);
  EXPECT_EQ(Cmd({"PUBLISH", "flood", "x"}), Int(1));
  EXPECT_EQ(reader.Read(MessageBytes("flood", "x").size(), seconds(5)),
            MessageBytes("flood", "x"));
}

TEST_F(PubSubE2ETest, TheDefaultPubSubLimitIsRedis) {
  EXPECT_EQ(Cmd({"CONFIG", "GET", "client-output-buffer-limit"}),
            BulkArray({"client-output-buffer-limit",
                       "normal 0 0 0 pubsub 32mb 8mb 60"}));
  EXPECT_EQ(Cmd({"CONFIG", "SET", "client-output-buffer-limit",
                 "pubsub 2mb 1mb 10 normal 64mb 0 0"}),
            StatusReply("OK"));
  EXPECT_EQ(Cmd({"CONFIG", "GET", "client-output-buffer-limit"}),
            BulkArray({"client-output-buffer-limit",
                       "normal 64mb 0 0 pubsub 2mb 1mb 10"}));
}

// `timeout` closes idle clients, but not subscribers, as in Redis: a
// worker waiting for hints may hear nothing for a long time.
class PubSubTimeoutTest : public PubSubE2ETest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return TestArgsWith({"--timeout", "1"});
  }
};

TEST_F(PubSubTimeoutTest, ASubscriberIsNeverIdle) {
  RawConnection idle(server_->port()), sub(server_->port());
  ExpectExchange(idle, {"PING"}, "+PONG\r\n");
  ExpectExchange(sub, {"SUBSCRIBE", "c"}, Confirmation("subscribe", "c", 1));
  bool closed = false;
  idle.ReadUntilClosed(seconds(5), &closed);
  EXPECT_TRUE(closed) << "an idle client is closed after 1 s";
  // Well past the timeout, the subscriber is still there and hears.
  std::this_thread::sleep_for(milliseconds(1500));
  auto admin = Connect();
  EXPECT_EQ(admin->Cmd({"PUBLISH", "c", "late"}), Int(1));
  EXPECT_EQ(sub.Read(MessageBytes("c", "late").size(), seconds(5)),
            MessageBytes("c", "late"));
}

// Workers subscribe to hints; only an admin publishes.
class PubSubRolesTest : public PubSubE2ETest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return TestArgsWith({"--requirepass", "admin-pw", "--user", "crawler", "on",
                         ">worker-pw", "+@worker"});
  }
};

TEST_F(PubSubRolesTest, AWorkerSubscribesButCannotPublish) {
  RawConnection worker(server_->port());
  ExpectExchange(worker, {"SUBSCRIBE", "c"},
                 "-NOAUTH Authentication required.\r\n");
  ExpectExchange(worker, {"AUTH", "crawler", "worker-pw"}, "+OK\r\n");
  ExpectExchange(worker, {"PUBLISH", "c", "x"},
                 "-NOPERM User crawler has no permissions to run the "
                 "'publish' command\r\n");
  ExpectExchange(worker, {"PUBSUB", "NUMSUB", "c"}, "*2\r\n$1\r\nc\r\n:0\r\n");
  ExpectExchange(worker, {"SUBSCRIBE", "c"}, Confirmation("subscribe", "c", 1));

  auto admin = Connect();
  ASSERT_EQ(admin->Cmd({"AUTH", "admin-pw"}), StatusReply("OK"));
  EXPECT_EQ(admin->Cmd({"PUBLISH", "c", "hurry-up 4"}), Int(1));
  std::string message = MessageBytes("c", "hurry-up 4");
  EXPECT_EQ(worker.Read(message.size(), seconds(5)), message);

  // RESET logs the worker out (the server requires AUTH) and unsubscribes.
  ExpectExchange(worker, {"RESET"}, "+RESET\r\n");
  ExpectExchange(worker, {"PING"}, "+PONG\r\n");
  ExpectExchange(worker, {"PUBSUB", "NUMSUB", "c"},
                 "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(admin->Cmd({"PUBLISH", "c", "x"}), Int(0));
}

}  // namespace
}  // namespace itest
}  // namespace frontier
