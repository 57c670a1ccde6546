// CLIENT LIST, CLIENT INFO and CLIENT KILL, in Redis's formats
// (docs/commands.md#client): what an operator uses to see who is connected
// and to throw a stuck worker out.
#include <algorithm>
#include <chrono>
#include <future>
#include <map>
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

// One CLIENT LIST line as field -> value. Every field must be key=value.
std::map<std::string, std::string> ParseLine(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    size_t eq = word.find('=');
    EXPECT_NE(eq, std::string::npos) << word << " in " << line;
    if (eq != std::string::npos)
      fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return fields;
}

// CLIENT LIST as id -> fields. Lines end with "\n", as in Redis.
std::map<std::string, std::map<std::string, std::string>> ParseList(
    const Reply& reply) {
  std::map<std::string, std::map<std::string, std::string>> clients;
  EXPECT_TRUE(reply.IsString()) << reply;
  EXPECT_TRUE(reply.str.empty() || reply.str.back() == '\n') << reply.str;
  std::istringstream lines(reply.str);
  for (std::string line; std::getline(lines, line);) {
    std::map<std::string, std::string> fields = ParseLine(line);
    clients[fields["id"]] = fields;
  }
  return clients;
}

using ClientAdminTest = FrontierdTest;

TEST_F(ClientAdminTest, ListShowsEveryClientInRedisFormat) {
  std::unique_ptr<Client> a = Connect();
  std::unique_ptr<Client> b = Connect();
  ASSERT_EQ(a->Cmd({"CLIENT", "SETNAME", "worker-a"}), StatusReply("OK"));
  ASSERT_EQ(b->Cmd({"POP"}), Nil());
  std::string id_a = std::to_string(a->Cmd({"CLIENT", "ID"}).integer);
  std::string id_b = std::to_string(b->Cmd({"CLIENT", "ID"}).integer);

  auto clients = ParseList(a->Cmd({"CLIENT", "LIST"}));
  ASSERT_EQ(clients.size(), 2u);
  ASSERT_TRUE(clients.count(id_a) && clients.count(id_b));
  auto& fa = clients[id_a];
  auto& fb = clients[id_b];
  // The fields redis-cli and monitoring tools read, in Redis's order.
  const std::vector<std::string> order = {
      "id",    "addr",  "laddr",     "fd",       "name",      "age",
      "idle",  "flags", "db",        "sub",      "psub",      "ssub",
      "multi", "qbuf",  "qbuf-free", "argv-mem", "multi-mem", "rbs",
      "rbp",   "obl",   "oll",       "omem",     "tot-mem",   "events",
      "cmd",   "user",  "redir",     "resp",     "lib-name",  "lib-ver"};
  std::string line = a->Cmd({"CLIENT", "INFO"}).str;
  size_t pos = 0;
  for (const std::string& key : order) {
    size_t at = line.find(key + "=", pos);
    ASSERT_NE(at, std::string::npos) << key << " missing or out of order";
    pos = at + key.size();
  }
  EXPECT_EQ(fa["name"], "worker-a");
  EXPECT_EQ(fb["name"], "");
  EXPECT_TRUE(fa["addr"].starts_with("127.0.0.1:")) << fa["addr"];
  EXPECT_NE(fa["addr"], fb["addr"]);
  EXPECT_EQ(fa["laddr"], "127.0.0.1:" + std::to_string(server_->port()));
  EXPECT_EQ(fa["cmd"], "client|list");
  EXPECT_EQ(fb["cmd"], "client|id");
  EXPECT_EQ(fa["user"], "default");
  EXPECT_EQ(fa["flags"], "N");
  EXPECT_EQ(fa["db"], "0");
  EXPECT_EQ(fa["resp"], "2");

  // CLIENT LIST ID picks clients.
  auto only_b = ParseList(a->Cmd({"CLIENT", "LIST", "ID", id_b}));
  ASSERT_EQ(only_b.size(), 1u);
  EXPECT_TRUE(only_b.count(id_b));
  EXPECT_EQ(a->Cmd({"CLIENT", "LIST", "TYPE", "pubsub"}), Bulk(""));
  EXPECT_EQ(ParseList(a->Cmd({"CLIENT", "LIST", "TYPE", "normal"})).size(), 2u);
}

TEST_F(ClientAdminTest, InfoDescribesTheCallingClient) {
  std::unique_ptr<Client> a = Connect();
  ASSERT_EQ(a->Cmd({"CLIENT", "SETNAME", "me"}), StatusReply("OK"));
  ASSERT_EQ(a->Cmd({"CLIENT", "SETINFO", "LIB-NAME", "mylib"}),
            StatusReply("OK"));
  Reply info = a->Cmd({"CLIENT", "INFO"});
  ASSERT_TRUE(info.IsString()) << info;
  EXPECT_EQ(std::count(info.str.begin(), info.str.end(), '\n'), 1);
  auto f = ParseLine(info.str);
  EXPECT_EQ(f["id"], std::to_string(a->Cmd({"CLIENT", "ID"}).integer));
  EXPECT_EQ(f["name"], "me");
  EXPECT_EQ(f["lib-name"], "mylib");
  EXPECT_EQ(f["cmd"], "client|info");
}

TEST_F(ClientAdminTest, AgeAndIdleCountSeconds) {
  std::unique_ptr<Client> idle = Connect();
  ASSERT_EQ(idle->Cmd({"PING"}), StatusReply("PONG"));
  std::string id = std::to_string(idle->Cmd({"CLIENT", "ID"}).integer);
  std::this_thread::sleep_for(milliseconds(2100));
  auto clients = ParseList(Cmd({"CLIENT", "LIST"}));
  EXPECT_GE(std::stoi(clients[id]["age"]), 2);
  EXPECT_GE(std::stoi(clients[id]["idle"]), 2);
  // The client asking has just been active.
  std::string me = std::to_string(Cmd({"CLIENT", "ID"}).integer);
  EXPECT_EQ(ParseList(Cmd({"CLIENT", "LIST"}))[me]["idle"], "0");
}

TEST_F(ClientAdminTest, KillIdClosesTheOtherClient) {
  std::unique_ptr<Client> victim = Connect();
  ASSERT_EQ(victim->Cmd({"PING"}), StatusReply("PONG"));
  long long id = victim->Cmd({"CLIENT", "ID"}).integer;
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "ID", std::to_string(id)}), Int(1));
  EXPECT_TRUE(victim->Cmd({"PING"}).IsIoError());
  auto clients = ParseList(Cmd({"CLIENT", "LIST"}));
  EXPECT_EQ(clients.count(std::to_string(id)), 0u);
  EXPECT_EQ(clients.size(), 1u);
  // Nobody left with that id.
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "ID", std::to_string(id)}), Int(0));
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "ID", "0"}),
            Error("ERR client-id should be greater than 0"));
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "ID", "x"}),
            Error("ERR client-id should be greater than 0"));
  // Three words are the old form: "ID" is taken for an address.
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "ID"}), Error("ERR No such client"));
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "COLOR", "red"}), Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"CLIENT", "KILL"}),
            Error("ERR wrong number of arguments for 'client|kill' command"));
}

TEST_F(ClientAdminTest, KillByAddressAndByFilters) {
  std::unique_ptr<Client> a = Connect();
  std::unique_ptr<Client> b = Connect();
  auto fa = ParseLine(a->Cmd({"CLIENT", "INFO"}).str);
  ASSERT_EQ(b->Cmd({"PING"}), StatusReply("PONG"));
  // The old form: CLIENT KILL ip:port.
  EXPECT_EQ(Cmd({"CLIENT", "KILL", fa["addr"]}), StatusReply("OK"));
  EXPECT_TRUE(a->Cmd({"PING"}).IsIoError());
  EXPECT_EQ(Cmd({"CLIENT", "KILL", fa["addr"]}), Error("ERR No such client"));
  // USER default kills every other client (SKIPME yes is the default).
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "USER", "default"}), Int(1));
  EXPECT_TRUE(b->Cmd({"PING"}).IsIoError());
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(ClientAdminTest, KillingItselfRepliesFirst) {
  std::unique_ptr<Client> a = Connect();
  long long id = a->Cmd({"CLIENT", "ID"}).integer;
  EXPECT_EQ(
      a->Cmd({"CLIENT", "KILL", "ID", std::to_string(id), "SKIPME", "no"}),
      Int(1));
  EXPECT_TRUE(a->Cmd({"PING"}).IsIoError());
}

TEST_F(ClientAdminTest, KillsABlockedClient) {
  std::shared_ptr<Client> waiter = Connect(seconds(10));
  long long id = waiter->Cmd({"CLIENT", "ID"}).integer;
  // BPOP 0 waits forever: only the kill ends it.
  std::future<Reply> reply = std::async(std::launch::async, [waiter] {
    return waiter->Cmd({"BPOP", "0"});
  });
  // Wait until the server has it in BPOP.
  std::map<std::string, std::string> f;
  Stopwatch watch;
  while (watch.Elapsed() < seconds(5)) {
    f = ParseList(
        Cmd({"CLIENT", "LIST", "ID", std::to_string(id)}))[std::to_string(id)];
    if (f["flags"] == "b") break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_EQ(f["flags"], "b");
  EXPECT_EQ(f["cmd"], "bpop");
  EXPECT_EQ(Cmd({"CLIENT", "KILL", "ID", std::to_string(id)}), Int(1));
  ASSERT_EQ(reply.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_TRUE(reply.get().IsIoError());
  // It no longer waits: a URL added now stays queued.
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(Stats()["queued"], 1);
  EXPECT_EQ(InfoMap(Cmd({"INFO", "clients"}).str)["blocked_clients"], "0");
}

TEST_F(ClientAdminTest, RedisCliReadsTheList) {
  ProcessResult r = RunRedisCli(server_->port(), {"CLIENT", "LIST"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" cmd=client|list "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" user=default "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace frontier::itest
