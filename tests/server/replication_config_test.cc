// The replication directives (server/replication_config.h): their values,
// the checks that join them, and what a user sees when frontierd is
// started with them (CONFIG GET, a refused start naming the reason).
#include "server/replication_config.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier {
namespace {

StatusOr<Config> Load(const std::vector<std::string>& args) {
  return LoadConfig(args);
}

TEST(ReplicationSiteTest, ParsesHostsAndPorts) {
  auto v4 = ParseReplicationSite("127.0.0.2:7400");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->host, "127.0.0.2");
  EXPECT_EQ(v4->port, 7400);
  auto v6 = ParseReplicationSite("[::1]:9");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(FormatReplicationSite(*v6), "[::1]:9");
  auto name = ParseReplicationSite("node-2.crawl.internal:65535");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->host, "node-2.crawl.internal");
  for (const char* bad :
       {"", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
        ":7400", "::1:7400", "[::1]", "[127.0.0.1]:7400", "10.1:7400",
        "a b:7400", "host:-1", "host:7400x", "999.0.0.1:7400"}) {
    EXPECT_FALSE(ParseReplicationSite(bad).has_value()) << bad;
  }
}

TEST(ReplicationSiteTest, WildcardHosts) {
  EXPECT_TRUE(IsWildcardHost("0.0.0.0"));
  EXPECT_TRUE(IsWildcardHost("::"));
  EXPECT_TRUE(IsWildcardHost("0:0::0"));
  EXPECT_FALSE(IsWildcardHost("127.0.0.1"));
  EXPECT_FALSE(IsWildcardHost("::1"));
  EXPECT_FALSE(IsWildcardHost("localhost"));
}

TEST(ReplicationConfigTest, DefaultsAreSingleNode) {
  Config c = DefaultConfig();
  EXPECT_FALSE(c.replication);
  EXPECT_TRUE(CheckReplicationConfig(c).ok());
  ReplicationOptions r = ToFrontierOptions(c).replication;
  ReplicationOptions storage;
  EXPECT_FALSE(r.enabled);
  EXPECT_EQ(r.priority, storage.priority);
  EXPECT_EQ(r.ack_timeout_ms, storage.ack_timeout_ms);
  EXPECT_EQ(r.heartbeat_ms, storage.heartbeat_ms);
  EXPECT_EQ(r.election_timeout_ms, storage.election_timeout_ms);
  EXPECT_EQ(r.log_retain_bytes, storage.log_retain_bytes);
}

TEST(ReplicationConfigTest, AGroupMembersDirectivesReachStorage) {
  auto c = Load({"--replication", "yes", "--repl-listen", "127.0.0.3:7401",
                 "--repl-peers", "127.0.0.2:7400,", "[::1]:7402",
                 "--repl-priority", "0", "--repl-ack-timeout", "0.25",
                 "--repl-heartbeat", "0.5", "--repl-election-timeout", "3",
                 "--repl-log-retain", "64mb"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ReplicationOptions r = ToFrontierOptions(*c).replication;
  EXPECT_TRUE(r.enabled);
  EXPECT_EQ(r.listen, (ReplicationSite{"127.0.0.3", 7401}));
  ASSERT_EQ(r.peers.size(), 2u);
  EXPECT_EQ(r.peers[0], (ReplicationSite{"127.0.0.2", 7400}));
  EXPECT_EQ(r.peers[1], (ReplicationSite{"::1", 7402}));
  EXPECT_FALSE(r.group_creator);
  EXPECT_EQ(r.priority, 0u);
  EXPECT_EQ(r.ack_timeout_ms, 250);
  EXPECT_EQ(r.heartbeat_ms, 500);
  EXPECT_EQ(r.election_timeout_ms, 3000);
  EXPECT_EQ(r.log_retain_bytes, 64ull << 20);
  EXPECT_EQ(FindDirective("repl-peers")->get(*c), "127.0.0.2:7400 [::1]:7402");
}

// Each refused start names what is wrong and why.
TEST(ReplicationConfigTest, RefusedCombinations) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--repl-listen", "0.0.0.0:7400"}, "repl-listen-any"},
      {{"--repl-listen", "[::]:7400", "--replication", "yes",
        "--repl-group-creator", "yes"},
       "neither TLS nor authentication"},
      {{"--replication", "yes", "--repl-group-creator", "yes"},
       "needs repl-listen"},
      {{"--replication", "yes", "--repl-listen", "127.0.0.2:7400"},
       "needs repl-peers"},
      {{"--replication", "yes", "--repl-listen", "127.0.0.2:7400",
        "--repl-group-creator", "yes", "--repl-priority", "0"},
       "priority 0 never becomes master"},
      {{"--replication", "yes", "--repl-listen", "127.0.0.2:7400",
        "--repl-peers", "127.0.0.3:7400 127.0.0.2:7400"},
       "own repl-listen"},
      {{"--replication", "yes", "--repl-listen", "127.0.0.2:7400",
        "--repl-peers", "127.0.0.3:7400 127.0.0.3:7400"},
       "127.0.0.3:7400 twice"},
      {{"--repl-peers", "127.0.0.3"}, "bad value for 'repl-peers'"},
      {{"--repl-ack-timeout", "0"}, "bad value for 'repl-ack-timeout'"},
      {{"--repl-heartbeat", "7200"}, "bad value for 'repl-heartbeat'"},
      {{"--repl-priority", "-1"}, "bad value for 'repl-priority'"},
      {{"--replication", "maybe"}, "bad value for 'replication'"},
      {{"--repl-name", "two words"}, "repl-name must not contain spaces"},
      {{"--replica-announce-ip", "0.0.0.0"}, "not an address clients"},
      {{"--replica-announce-ip", "a b"}, "not an address clients"},
      {{"--replica-announce-port", "70000"},
       "bad value for 'replica-announce-port'"},
  };
  for (const auto& [args, why] : bad) {
    auto c = Load(args);
    ASSERT_FALSE(c.ok()) << args[0] << " " << args[1];
    EXPECT_NE(c.status().message().find(why), std::string::npos)
        << c.status().message();
  }
}

TEST(ReplicationConfigTest, TheOverrideAllowsAWildcardListenAddress) {
  auto c = Load({"--repl-listen-any", "yes", "--replication", "yes",
                 "--repl-listen", "0.0.0.0:7400", "--repl-group-creator",
                 "yes"});
  EXPECT_TRUE(c.ok()) << c.status().ToString();
}

// What a site tells its peers is where clients reach it: the announce
// directives, else the first bind address that is not a wildcard, else
// repl-listen's host; the port clients connect to.
TEST(ReplicationConfigTest, TheAnnouncedClientAddress) {
  auto c = Load({"--bind", "0.0.0.0 10.1.2.3", "--repl-listen",
                 "10.9.9.9:7400"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(AnnouncedClientAddress(*c, 6380), "10.1.2.3:6380");
  c = Load({"--bind", "0.0.0.0", "--repl-listen", "10.9.9.9:7400"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(AnnouncedClientAddress(*c, 6380), "10.9.9.9:6380");
  c = Load({"--bind", "::1", "--replica-announce-ip", "fd00::5",
            "--replica-announce-port", "7000"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(AnnouncedClientAddress(*c, 6380), "[fd00::5]:7000");
}

}  // namespace

namespace itest {
namespace {

TEST(ReplicationConfigCliTest, AWildcardReplicationAddressStopsTheServer) {
  TempDir dir;
  ProcessResult r = RunProcess(
      {FrontierdBinary(), "--port", std::to_string(PickFreePort()), "--bind",
       "127.0.0.1", "--dir", dir.path() + "/data", "--replication", "yes",
       "--repl-group-creator", "yes", "--repl-listen", "0.0.0.0:7400"},
      "", std::chrono::seconds(10));
  ASSERT_FALSE(r.timed_out) << "frontierd started on a wildcard address";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("repl-listen-any yes"), std::string::npos) << r.err;
}

class ReplicationConfigGetTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--repl-listen",    "127.0.0.2:7400", "--repl-peers",
            "127.0.0.3:7400 127.0.0.4:7400", "--repl-ack-timeout", "1.5"};
  }
};

// replication no (the default): the directives are shown, and the server
// runs as a single node.
TEST_F(ReplicationConfigGetTest, ConfigGetShowsTheDirectives) {
  std::map<std::string, std::string> v =
      FieldMap(Cmd({"CONFIG", "GET", "repl*"}));
  EXPECT_EQ(v["replication"], "no");
  EXPECT_EQ(v["repl-listen"], "127.0.0.2:7400");
  EXPECT_EQ(v["repl-listen-any"], "no");
  EXPECT_EQ(v["repl-peers"], "127.0.0.3:7400 127.0.0.4:7400");
  EXPECT_EQ(v["repl-group-creator"], "no");
  EXPECT_EQ(v["repl-priority"], "100");
  EXPECT_EQ(v["repl-ack-timeout"], "1.5");
  EXPECT_EQ(v["repl-heartbeat"], "1");
  EXPECT_EQ(v["repl-election-timeout"], "2");
  EXPECT_EQ(v["repl-log-retain"], "1gb");
  // Fixed at start: CONFIG SET refuses them and changes nothing.
  Reply set = Cmd({"CONFIG", "SET", "repl-peers", "127.0.0.9:7400"});
  EXPECT_TRUE(set.IsError()) << set.DebugString();
  EXPECT_EQ(FieldMap(Cmd({"CONFIG", "GET", "repl-peers"}))["repl-peers"],
            "127.0.0.3:7400 127.0.0.4:7400");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
}

}  // namespace
}  // namespace itest
}  // namespace frontier
