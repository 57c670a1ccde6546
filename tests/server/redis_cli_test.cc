// End to end with the real redis-cli: one-shot commands, commands on
// stdin, --pipe mass insertion, and an interactive session on a terminal
// (where redis-cli 7 fetches COMMAND DOCS at start).
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::seconds;
using RedisCliTest = FrontierdTest;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST_F(RedisCliTest, PingAsTheDockerHealthcheckDoes) {
  ProcessResult r =
      RunProcess({"redis-cli", "-p", std::to_string(server_->port()), "ping"},
                 "", seconds(10));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "PONG\n");
}

TEST_F(RedisCliTest, OneShotFrontierCommands) {
  const int port = server_->port();
  EXPECT_EQ(
      RunRedisCli(port, {"ADD", "http://a.com/", "", "PRIORITY", "7"}).out,
      "1\n");
  EXPECT_EQ(RunRedisCli(port, {"ADD", "HTTP://A.COM:80/#x"}).out, "0\n");
  EXPECT_EQ(RunRedisCli(port, {"SEEN", "http://a.com/"}).out, "1\n");
  EXPECT_EQ(RunRedisCli(port, {"POP"}).out, "http://a.com/\n");
  EXPECT_EQ(RunRedisCli(port, {"POP"}).out,
            "\n");  // nil prints as an empty line
  ProcessResult info = RunRedisCli(port, {"URLINFO", "http://a.com/"});
  EXPECT_EQ(info.exit_code, 0);
  std::vector<std::string> lines = Lines(info.out);
  ASSERT_EQ(lines.size(), 20u) << info.out;
  EXPECT_EQ(lines[0], "url");
  EXPECT_EQ(lines[1], "http://a.com/");
  EXPECT_EQ(lines[2], "depth");
  EXPECT_EQ(lines[3], "1");
  EXPECT_EQ(lines[4], "priority");
  EXPECT_EQ(lines[5], "7");
  EXPECT_EQ(lines[6], "state");
  EXPECT_EQ(lines[7], "leased");
  EXPECT_EQ(lines[8], "attempts");
  EXPECT_EQ(lines[10], "backlinks");
  EXPECT_EQ(lines[12], "recrawl");
  EXPECT_EQ(lines[14], "due");
  EXPECT_EQ(lines[16], "created");
  EXPECT_EQ(lines[18], "data");
  EXPECT_EQ(lines[19], "");  // no value: nil, an empty line
  EXPECT_EQ(RunRedisCli(port, {"CONFIRM", "http://a.com/"}).out, "1\n");
  EXPECT_EQ(RunRedisCli(port, {"DELAY", "a.com", "2.5"}).out, "OK\n");
  ProcessResult madd =
      RunRedisCli(port, {"MADD", "http://a.com/", "http://a.com/x", "ftp://y"});
  std::vector<std::string> madd_lines = Lines(madd.out);
  ASSERT_GE(madd_lines.size(), 2u)
      << madd.out;  // redis-cli adds a blank line after an error
  EXPECT_EQ(madd_lines[0], "1");
  EXPECT_EQ(madd_lines[1].rfind("ERR invalid URL: ", 0), 0u) << madd.out;
}

TEST_F(RedisCliTest, FormattedOutput) {
  const int port = server_->port();
  EXPECT_EQ(RunRedisCli(port, {"--no-raw", "ADD", "http://a.com/"}).out,
            "(integer) 1\n");
  EXPECT_EQ(RunRedisCli(port, {"--no-raw", "POP"}).out, "\"http://a.com/\"\n");
  EXPECT_EQ(RunRedisCli(port, {"--no-raw", "POP"}).out, "(nil)\n");
  EXPECT_EQ(RunRedisCli(port, {"--no-raw", "POP", "COUNT", "3"}).out,
            "(empty array)\n");
  ProcessResult stats = RunRedisCli(port, {"--no-raw", "STATS"});
  EXPECT_NE(stats.out.find("1) \"urls\"\n 2) (integer) 1\n"), std::string::npos)
      << stats.out;
}

TEST_F(RedisCliTest, ErrorsReachTheUser) {
  const int port = server_->port();
  ProcessResult r = RunRedisCli(port, {"ADD"});
  EXPECT_NE(
      (r.out + r.err).find("ERR wrong number of arguments for 'add' command"),
      std::string::npos)
      << r.out << r.err;
  r = RunRedisCli(port, {"ADD", "ftp://a.com/"});
  EXPECT_NE((r.out + r.err).find("ERR invalid URL: "), std::string::npos)
      << r.out << r.err;
  r = RunRedisCli(port, {"FROB"});
  EXPECT_NE((r.out + r.err).find("ERR unknown command 'FROB'"),
            std::string::npos)
      << r.out << r.err;
}

TEST_F(RedisCliTest, CommandsOnStdin) {
  ProcessResult r = RunRedisCli(server_->port(), {},
                                "ADD http://a.com/\n"
                                "ADD http://a.com/x http://a.com/\n"
                                "URLINFO http://a.com/x\n"
                                "POP COUNT 5\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u + 20u + 2u) << r.out;
  EXPECT_EQ(lines[0], "1");
  EXPECT_EQ(lines[1], "1");
  EXPECT_EQ(lines[2], "url");
  EXPECT_EQ(lines[3], "http://a.com/x");
  EXPECT_EQ(lines[4], "depth");
  EXPECT_EQ(lines[5], "2");
  EXPECT_EQ(lines[22], "http://a.com/");
  EXPECT_EQ(lines[23], "http://a.com/x");
}

TEST_F(RedisCliTest, PipeMassInsertion) {
  std::string protocol;
  constexpr int kUrls = 1000;
  for (int i = 0; i < kUrls; ++i) {
    std::string url =
        "http://mass" + std::to_string(i % 10) + ".com/" + std::to_string(i);
    protocol += "*2\r\n$3\r\nADD\r\n$" + std::to_string(url.size()) + "\r\n" +
                url + "\r\n";
  }
  ProcessResult r =
      RunRedisCli(server_->port(), {"--pipe"}, protocol, seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("errors: 0, replies: " + std::to_string(kUrls)),
            std::string::npos)
      << r.out << r.err;
  EXPECT_EQ(Stats()["urls"], kUrls);
}

TEST_F(RedisCliTest, InfoAndStats) {
  const int port = server_->port();
  ASSERT_EQ(RunRedisCli(port, {"ADD", "http://a.com/"}).out, "1\n");
  ProcessResult info = RunRedisCli(port, {"INFO", "frontier"});
  EXPECT_NE(info.out.find("# Frontier"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("urls:1"), std::string::npos) << info.out;
  std::vector<std::string> stats = Lines(RunRedisCli(port, {"STATS"}).out);
  ASSERT_EQ(stats.size(), 60u);  // 30 names, each with its value
  EXPECT_EQ(stats[0], "urls");
  EXPECT_EQ(stats[1], "1");
  EXPECT_EQ(RunRedisCli(port, {"DBSIZE"}).out, "1\n");
}

TEST_F(RedisCliTest, BpopThroughRedisCli) {
  const int port = server_->port();
  Stopwatch watch;
  ProcessResult r = RunRedisCli(port, {"BPOP", "0.2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "\n");
  ASSERT_EQ(RunRedisCli(port, {"ADD", "http://a.com/"}).out, "1\n");
  EXPECT_EQ(RunRedisCli(port, {"BPOP", "1"}).out, "http://a.com/\n");
}

TEST_F(RedisCliTest, InteractiveSession) {
  const std::string port = std::to_string(server_->port());
  PtySession cli({"redis-cli", "-p", port});
  ASSERT_TRUE(cli.ok());
  const std::string prompt = "127.0.0.1:" + port + "> ";
  ASSERT_TRUE(cli.WaitFor(prompt, seconds(10))) << cli.output();
  ASSERT_TRUE(cli.Send("ADD http://a.com/ \"\" PRIORITY 3\r"));
  ASSERT_TRUE(cli.WaitFor("(integer) 1", seconds(10))) << cli.output();
  ASSERT_TRUE(cli.WaitFor(prompt, seconds(10), 2)) << cli.output();
  ASSERT_TRUE(cli.Send("pop\r"));
  ASSERT_TRUE(cli.WaitFor("\"http://a.com/\"", seconds(10))) << cli.output();
  ASSERT_TRUE(cli.WaitFor(prompt, seconds(10), 3)) << cli.output();
  ASSERT_TRUE(cli.Send("URLINFO http://a.com/\r"));
  ASSERT_TRUE(cli.WaitFor("\"leased\"", seconds(10))) << cli.output();
  ASSERT_TRUE(cli.WaitFor(prompt, seconds(10), 4)) << cli.output();
  ASSERT_TRUE(cli.Send("quit\r"));
  EXPECT_EQ(cli.Wait(seconds(10)), 0) << cli.output();
  EXPECT_EQ(cli.output().find("(error)"), std::string::npos) << cli.output();
  EXPECT_EQ(cli.output().find("ERR"), std::string::npos) << cli.output();
}

TEST_F(RedisCliTest, ShutdownThroughRedisCli) {
  ASSERT_EQ(RunRedisCli(server_->port(), {"ADD", "http://a.com/"}).out, "1\n");
  ProcessResult r = RunRedisCli(server_->port(), {"SHUTDOWN"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(server_->WaitForExit(seconds(10)), 0);
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(RunRedisCli(server_->port(), {"SEEN", "http://a.com/"}).out, "1\n");
}

}  // namespace
}  // namespace frontier::itest
