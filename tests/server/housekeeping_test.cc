// End to end: the connection housekeeping commands that Redis clients and
// libraries send on their own (PING, SELECT 0, CLIENT SETNAME, HELLO,
// COMMAND DOCS, INFO...) and the generic command errors.
#include <chrono>
#include <ctime>
#include <string>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using HousekeepingTest = FrontierdTest;

TEST_F(HousekeepingTest, PingAndEcho) {
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
  EXPECT_EQ(Cmd({"PING", "hello world"}), Bulk("hello world"));
  EXPECT_EQ(Cmd({"ECHO", "a\r\nb"}), Bulk("a\r\nb"));
  EXPECT_EQ(Cmd({"ECHO", ""}), Bulk(""));
  EXPECT_EQ(Cmd({"ECHO"}),
            Error("ERR wrong number of arguments for 'echo' command"));
}

TEST_F(HousekeepingTest, CommandNamesAreCaseInsensitive) {
  EXPECT_EQ(Cmd({"ping"}), StatusReply("PONG"));
  EXPECT_EQ(Cmd({"PiNg"}), StatusReply("PONG"));
  EXPECT_EQ(Cmd({"add", "http://example.com/"}), Int(1));
  EXPECT_EQ(Cmd({"Seen", "http://example.com/"}), Int(1));
}

TEST_F(HousekeepingTest, UnknownCommandAndWrongArity) {
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"foo"}), "ERR unknown command 'foo'"));
  EXPECT_TRUE(
      IsErrorStartingWith(Cmd({"foo", "bar"}), "ERR unknown command 'foo'"));
  // Redis commands the frontier does not have are unknown too, not crashes.
  EXPECT_TRUE(
      IsErrorStartingWith(Cmd({"GET", "k"}), "ERR unknown command 'GET'"));
  EXPECT_EQ(Cmd({"ADD"}),
            Error("ERR wrong number of arguments for 'add' command"));
  EXPECT_EQ(Cmd({"SEEN"}),
            Error("ERR wrong number of arguments for 'seen' command"));
  EXPECT_EQ(Cmd({"CONFIRM"}),
            Error("ERR wrong number of arguments for 'confirm' command"));
  EXPECT_EQ(Cmd({"RECRAWL", "http://a.com/"}),
            Error("ERR wrong number of arguments for 'recrawl' command"));
  EXPECT_EQ(Cmd({"DELAY", "a.com"}),
            Error("ERR wrong number of arguments for 'delay' command"));
  // The connection is still usable after errors.
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(HousekeepingTest, SelectOnlyDatabaseZero) {
  EXPECT_EQ(Cmd({"SELECT", "0"}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"SELECT", "1"}), Error("ERR DB index is out of range"));
  EXPECT_TRUE(Cmd({"SELECT", "x"}).IsError());
}

TEST_F(HousekeepingTest, ClientSetNameGetNameId) {
  auto a = Connect();
  auto b = Connect();
  EXPECT_EQ(a->Cmd({"CLIENT", "GETNAME"}), Nil());
  EXPECT_EQ(a->Cmd({"CLIENT", "SETNAME", "worker-1"}), StatusReply("OK"));
  EXPECT_EQ(a->Cmd({"CLIENT", "GETNAME"}), Bulk("worker-1"));
  // Names are per connection.
  EXPECT_EQ(b->Cmd({"CLIENT", "GETNAME"}), Nil());
  // Lower case works as libraries send it.
  EXPECT_EQ(b->Cmd({"client", "setname", "worker-2"}), StatusReply("OK"));
  EXPECT_EQ(b->Cmd({"client", "getname"}), Bulk("worker-2"));
  EXPECT_TRUE(a->Cmd({"CLIENT", "SETNAME", "has space"}).IsError());

  Reply id_a = a->Cmd({"CLIENT", "ID"});
  Reply id_b = b->Cmd({"CLIENT", "ID"});
  ASSERT_TRUE(id_a.IsInteger()) << id_a;
  ASSERT_TRUE(id_b.IsInteger()) << id_b;
  EXPECT_GT(id_a.integer, 0);
  EXPECT_NE(id_a.integer, id_b.integer);
  EXPECT_EQ(a->Cmd({"CLIENT", "ID"}), id_a);  // stable for a connection
}

TEST_F(HousekeepingTest, HelloTwoAndNoProtoForThree) {
  Reply hello = Cmd({"HELLO", "2"});
  ASSERT_TRUE(hello.IsArray()) << hello;
  auto fields = FieldMap(hello);
  EXPECT_EQ(fields["proto"], "2") << hello;
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"HELLO", "3"}), "NOPROTO"));
  // Still a RESP2 connection afterwards.
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
  // HELLO with no version answers like HELLO 2.
  EXPECT_TRUE(Cmd({"HELLO"}).IsArray());
}

TEST_F(HousekeepingTest, CommandListsTheFrontierCommands) {
  Reply all = Cmd({"COMMAND"});
  ASSERT_TRUE(all.IsArray()) << all;
  std::map<std::string, long long> arity;
  for (const Reply& entry : all.elements) {
    ASSERT_TRUE(entry.IsArray()) << entry;
    ASSERT_GE(entry.elements.size(), 2u) << entry;
    std::string name = entry.elements[0].str;
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    arity[name] = entry.elements[1].integer;
  }
  for (const char* name :
       {"add", "madd", "pop", "bpop", "confirm", "fail", "recrawl", "seen",
        "urlinfo", "delay", "stats", "ping", "info"}) {
    EXPECT_EQ(arity.count(name), 1u) << "COMMAND does not list " << name;
  }
  // Redis's arity convention: the name counts, negative means "at least".
  EXPECT_EQ(arity["add"], -2);
  EXPECT_EQ(arity["seen"], 2);
  EXPECT_EQ(arity["madd"], -3);

  EXPECT_EQ(Cmd({"COMMAND", "COUNT"}),
            Int(static_cast<long long>(all.elements.size())));
  Reply docs = Cmd({"COMMAND", "DOCS"});
  EXPECT_TRUE(docs.IsArray()) << docs;
  Reply docs_one = Cmd({"COMMAND", "DOCS", "add"});
  EXPECT_TRUE(docs_one.IsArray()) << docs_one;
}

TEST_F(HousekeepingTest, InfoHasRedisSectionsAndFrontierCounters) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.com/"}), Int(1));
  Reply info = Cmd({"INFO"});
  ASSERT_TRUE(info.IsString()) << info;
  for (const char* section :
       {"# Server\r\n", "# Clients\r\n", "# Persistence\r\n", "# Stats\r\n",
        "# Frontier\r\n"}) {
    EXPECT_NE(info.str.find(section), std::string::npos)
        << "INFO lacks " << section << ":\n"
        << info.str;
  }
  auto m = InfoMap(info.str);
  EXPECT_EQ(m["urls"], "2");
  EXPECT_EQ(m["queued"], "2");
  EXPECT_EQ(m["connected_clients"], "1");

  Reply frontier = Cmd({"INFO", "frontier"});
  ASSERT_TRUE(frontier.IsString()) << frontier;
  EXPECT_NE(frontier.str.find("# Frontier"), std::string::npos) << frontier.str;
  EXPECT_NE(frontier.str.find("urls:2\r\n"), std::string::npos) << frontier.str;
  EXPECT_EQ(frontier.str.find("# Clients"), std::string::npos)
      << "INFO frontier should hold only that section:\n"
      << frontier.str;
  Reply server = Cmd({"INFO", "SERVER"});
  ASSERT_TRUE(server.IsString()) << server;
  EXPECT_NE(server.str.find("# Server"), std::string::npos) << server.str;
  EXPECT_EQ(server.str.find("# Frontier"), std::string::npos) << server.str;
}

TEST_F(HousekeepingTest, DbsizeCountsUrls) {
  EXPECT_EQ(Cmd({"DBSIZE"}), Int(0));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2"}), Int(0));
  EXPECT_EQ(Cmd({"DBSIZE"}), Int(2));
}

TEST_F(HousekeepingTest, TimeIsNow) {
  Reply t = Cmd({"TIME"});
  ASSERT_TRUE(t.IsArray()) << t;
  ASSERT_EQ(t.elements.size(), 2u) << t;
  ASSERT_TRUE(t.elements[0].IsString()) << t;
  ASSERT_TRUE(t.elements[1].IsString()) << t;
  long long secs = std::stoll(t.elements[0].str);
  long long micros = std::stoll(t.elements[1].str);
  EXPECT_LE(std::llabs(secs - static_cast<long long>(std::time(nullptr))), 5);
  EXPECT_GE(micros, 0);
  EXPECT_LT(micros, 1'000'000);
}

TEST_F(HousekeepingTest, QuitRepliesOkAndCloses) {
  RawConnection raw(server_->port());
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(raw.Send("*1\r\n$4\r\nQUIT\r\n"));
  bool closed = false;
  std::string got = raw.ReadUntilClosed(std::chrono::seconds(5), &closed);
  EXPECT_EQ(got, "+OK\r\n");
  EXPECT_TRUE(closed);
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));  // others unaffected
}

TEST_F(HousekeepingTest, ShutdownStopsTheServerCleanly) {
  auto c = Connect();
  Reply r = c->Cmd({"SHUTDOWN"});
  // Redis closes the connection without a reply; +OK is tolerated.
  EXPECT_TRUE(r.IsIoError() || r == StatusReply("OK")) << r;
  EXPECT_EQ(server_->WaitForExit(std::chrono::seconds(10)), 0);
}

TEST_F(HousekeepingTest, SigtermExitsZero) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(server_->Stop(), 0);
}

TEST_F(HousekeepingTest, ManyClientsAtOnce) {
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 50; ++i) clients.push_back(Connect());
  for (int i = 0; i < 50; ++i) {
    clients[i]->Append({"ADD", "http://site" + std::to_string(i) + ".com/"});
  }
  for (int i = 0; i < 50; ++i) EXPECT_EQ(clients[i]->GetReply(), Int(1)) << i;
  EXPECT_EQ(Stats()["urls"], 50);
}

}  // namespace
}  // namespace frontier::itest
