// End to end: starting frontierd the way users do:
//   frontierd [config-file] [--directive value ...]
// Bad directives and values stop it with a message naming them; a config
// file is read and the command line overrides it.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::seconds;

// Runs frontierd on a fresh port and directory with `args`, expecting it to
// refuse to start. Returns what it printed.
ProcessResult RunExpectingFailure(const std::vector<std::string>& args,
                                  const std::string& config_file = "") {
  TempDir dir;
  std::vector<std::string> argv = {FrontierdBinary()};
  if (!config_file.empty()) argv.push_back(config_file);
  argv.insert(argv.end(), {"--port", std::to_string(PickFreePort()), "--bind",
                           "127.0.0.1", "--dir", dir.path() + "/data"});
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, "", seconds(10));
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TEST(ConfigCliTest, UnknownDirectiveStopsTheServer) {
  ProcessResult r = RunExpectingFailure({"--no-such-directive", "1"});
  ASSERT_FALSE(r.timed_out) << "frontierd started with an unknown directive";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no-such-directive"), std::string::npos)
      << "stderr does not name the directive:\n"
      << r.err;
}

TEST(ConfigCliTest, BadValuesStopTheServer) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"port", "abc"},
      {"port", "70000"},
      {"lease-timeout", "soon"},
      {"max-depth", "-1"},
      {"depth-scope", "planet"},
      {"site-max-urls", "many"},
      {"politeness-delay", "x"},
      {"site-max-leases", "-2"},
      {"politeness-scope", "country"},
      {"default-priority", "10000"},
      {"order", "random"},
      {"max-attempts", "three"},
      {"timer-ms", "fast"},
      {"checkpoint-interval", "often"},
      {"fsync", "sometimes"},
      {"cache-size", "lots"},
      {"max-url-length", "long"},
      {"maxclients", "-5"},
      {"loglevel", "shouty"},
  };
  for (const auto& [name, value] : bad) {
    SCOPED_TRACE("--" + name + " " + value);
    ProcessResult r = RunExpectingFailure({"--" + name, value});
    ASSERT_FALSE(r.timed_out) << "frontierd started with a bad value";
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find(name), std::string::npos)
        << "stderr does not name it:\n"
        << r.err;
  }
}

TEST(ConfigCliTest, MissingValueStopsTheServer) {
  ProcessResult r = RunExpectingFailure({"--max-depth"});
  ASSERT_FALSE(r.timed_out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("max-depth"), std::string::npos) << r.err;
}

TEST(ConfigCliTest, BadDirectiveInAConfigFile) {
  TempDir dir;
  std::string conf = dir.path() + "/frontierd.conf";
  WriteFile(conf, "# a comment\n\nmax-depth 4\nfrobnicate yes\n");
  ProcessResult r = RunExpectingFailure({}, conf);
  ASSERT_FALSE(r.timed_out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST(ConfigCliTest, MissingConfigFileStopsTheServer) {
  ProcessResult r = RunExpectingFailure({}, "/nonexistent/frontierd.conf");
  ASSERT_FALSE(r.timed_out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("/nonexistent/frontierd.conf"), std::string::npos)
      << r.err;
}

class ConfigFileTest : public FrontierdTest {
 protected:
  bool AutoStart() const override { return false; }
};

TEST_F(ConfigFileTest, FileIsReadAndTheCommandLineOverridesIt) {
  server_ = std::make_unique<FrontierdProcess>(
      std::vector<std::string>{"--max-depth", "3", "--timer-ms", "10"});
  std::string conf = server_->dir() + "/frontierd.conf";
  WriteFile(conf,
            "# frontierd test configuration\n"
            "\n"
            "max-depth 2\n"
            "default-priority \"42\"\n"
            "politeness-delay 0\n"
            "site-max-leases 0\n"
            "order priority\n");
  server_->set_config_file(conf);
  ASSERT_TRUE(server_->Start());
  // max-depth: 3 from the command line beats 2 from the file.
  std::string ref;
  for (int depth = 1; depth <= 3; ++depth) {
    std::string url = "http://a.com/" + std::to_string(depth);
    ASSERT_EQ(server_->Cmd({"ADD", url, ref}), Int(1)) << depth;
    ref = url;
  }
  EXPECT_EQ(server_->Cmd({"ADD", "http://a.com/4", ref}), Int(-1));
  // default-priority comes from the file.
  EXPECT_EQ(FieldMap(server_->Cmd({"URLINFO", "http://a.com/1"}))["priority"],
            "42");
  // order priority from the file: a lower priority number wins over depth.
  ASSERT_EQ(server_->Cmd({"ADD", "http://a.com/urgent", "http://a.com/2",
                          "PRIORITY", "1"}),
            Int(1));
  EXPECT_EQ(FieldMap(server_->Cmd({"URLINFO", "http://a.com/urgent"}))["depth"],
            "3");
  EXPECT_EQ(server_->Cmd({"POP"}), Bulk("http://a.com/urgent"));
}

TEST_F(ConfigFileTest, EveryDirectiveIsAccepted) {
  // clang-format off
  server_ = std::make_unique<FrontierdProcess>(std::vector<std::string>{
      "--lease-timeout", "0.5",         "--max-depth", "5",
      "--depth-scope", "host",          "--site-max-urls", "100",
      "--politeness-delay", "0.25",     "--site-max-leases", "2",
      "--politeness-scope", "domain",   "--default-priority", "10",
      "--order", "priority",            "--max-attempts", "2",
      "--timer-ms", "50",               "--checkpoint-interval", "5",
      "--fsync", "everysec",            "--cache-size", "16mb",
      "--max-url-length", "1000",       "--maxclients", "100",
      "--loglevel", "debug"});
  // clang-format on
  ASSERT_TRUE(server_->Start());
  EXPECT_EQ(server_->Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(FieldMap(server_->Cmd({"URLINFO", "http://a.com/"}))["priority"],
            "10");
  EXPECT_EQ(server_->Stop(), 0);
}

TEST_F(ConfigFileTest, TheShippedConfigFileWorks) {
  // conf/frontierd.conf, found from this source file's place in the tree.
  const std::filesystem::path conf = std::filesystem::path(__FILE__)
                                         .parent_path()
                                         .parent_path()
                                         .parent_path() /
                                     "conf" / "frontierd.conf";
  if (!std::filesystem::exists(conf)) GTEST_SKIP() << conf << " not found";
  // The port, dir and logfile of the fixture override the file's.
  server_ = std::make_unique<FrontierdProcess>();
  server_->set_config_file(conf.string());
  ASSERT_TRUE(server_->Start());
  EXPECT_EQ(server_->Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(FieldMap(server_->Cmd({"URLINFO", "http://a.com/"}))["priority"],
            "5000");
  EXPECT_EQ(server_->Stop(), 0);
}

TEST_F(ConfigFileTest, DirIsCreatedIfMissing) {
  TempDir base;
  std::string nested = base.path() + "/deep/er/data";
  server_ = std::make_unique<FrontierdProcess>(
      std::vector<std::string>{"--dir", nested, "--politeness-delay", "0"});
  ASSERT_TRUE(server_->Start());
  EXPECT_EQ(server_->Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_TRUE(std::filesystem::is_directory(nested));
  EXPECT_EQ(server_->Stop(), 0);
  EXPECT_FALSE(std::filesystem::is_empty(nested));
}

TEST_F(ConfigFileTest, LogGoesToTheLogfile) {
  server_ = std::make_unique<FrontierdProcess>(DefaultTestArgs());
  ASSERT_TRUE(server_->Start());
  EXPECT_EQ(server_->Stop(), 0);
  EXPECT_FALSE(ReadFile(server_->log_path()).empty()) << "nothing was logged";
}

TEST_F(ConfigFileTest, PortInUseStopsTheServer) {
  server_ = std::make_unique<FrontierdProcess>(DefaultTestArgs());
  ASSERT_TRUE(server_->Start());
  TempDir other;
  ProcessResult r =
      RunProcess({FrontierdBinary(), "--port", std::to_string(server_->port()),
                  "--bind", "127.0.0.1", "--dir", other.path() + "/data"},
                 "", seconds(10));
  ASSERT_FALSE(r.timed_out) << "a second server started on a port in use";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(server_->Cmd({"PING"}), StatusReply("PONG"));
}

TEST_F(ConfigFileTest, MaxClients) {
  server_ = std::make_unique<FrontierdProcess>(
      std::vector<std::string>{"--maxclients", "2", "--politeness-delay", "0"});
  ASSERT_TRUE(server_->Start());
  // Two clients get in. (Retried: the start-up probe's connection may not
  // have been counted out yet.)
  auto connect_within_limit = [this]() {
    Stopwatch watch;
    while (true) {
      auto c = server_->Connect();
      if (c->Cmd({"PING"}) == StatusReply("PONG") ||
          watch.Elapsed() > seconds(5))
        return c;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  auto a = connect_within_limit();
  auto b = connect_within_limit();
  ASSERT_EQ(a->Cmd({"PING"}), StatusReply("PONG"));
  ASSERT_EQ(b->Cmd({"PING"}), StatusReply("PONG"));
  {
    // Refused with Redis's error (read without sending anything: a command
    // sent to a closing socket could reset the connection first), then
    // closed.
    RawConnection c(server_->port());
    ASSERT_TRUE(c.ok());
    bool closed = false;
    EXPECT_EQ(c.ReadUntilClosed(seconds(5), &closed),
              "-ERR max number of clients reached\r\n")
        << "a third client was not refused with maxclients 2";
    EXPECT_TRUE(closed);
  }
  // Once one leaves, another may come in.
  a.reset();
  Stopwatch watch;
  Reply ok;
  while (watch.Elapsed() < seconds(5)) {
    auto d = server_->Connect();
    ok = d->Cmd({"PING"});
    if (ok == StatusReply("PONG")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ok, StatusReply("PONG"));
}

}  // namespace
}  // namespace frontier::itest
