// frontierd: parse the configuration, open the frontier (running recovery),
// serve until SHUTDOWN or SIGTERM/SIGINT, then checkpoint and close.
//
// Exit status: 0 after a clean shutdown; 1 if the configuration is bad, the
// data directory or log file cannot be used, the frontier cannot be opened,
// or the server cannot listen.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <cstdio>
#include <string>
#include <vector>

#include "server/clock.h"
#include "server/cluster_etcd_map.h"
#include "server/cluster_record.h"
#include "server/cluster_state.h"
#include "server/config.h"
#include "server/log.h"
#include "server/server.h"
#include "server/server_stats.h"
#include "server/version.h"
#include "storage/frontier.h"

namespace {

constexpr char kUsage[] =
    "Usage: frontierd [/path/to/frontierd.conf] [--directive value ...]\n"
    "       frontierd -v | --version\n"
    "       frontierd -h | --help\n"
    "\n"
    "Examples:\n"
    "       frontierd\n"
    "       frontierd /etc/frontierd.conf\n"
    "       frontierd --port 7380 --dir /var/lib/frontierd --fsync everysec\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "frontierd: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using frontier::Log;
  using frontier::LogLevel;

  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "-v" || args[0] == "--version")) {
    std::printf("frontierd v=%s\n", frontier::kFrontierdVersion);
    return 0;
  }
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }

  auto config_or = frontier::LoadConfig(args);
  if (!config_or.ok()) return Fail(config_or.status().message());
  // Not const: CONFIG SET changes it while the server runs.
  frontier::Config config = std::move(config_or).value();

  // A closed peer must not kill the server; writes then fail with EPIPE.
  std::signal(SIGPIPE, SIG_IGN);

  if (frontier::Status s = frontier::PrepareDirectories(config); !s.ok()) {
    return Fail(s.message());
  }
  if (frontier::Status s = frontier::InitLog(config.loglevel, config.logfile);
      !s.ok()) {
    return Fail(s.message());
  }

  frontier::ServerStats stats;
  stats.start_ms = frontier::NowMs();
  Log(LogLevel::kNotice, "frontierd %s starting, pid=%d, dir=%s, fsync=%s",
      frontier::kFrontierdVersion, static_cast<int>(getpid()),
      config.dir.c_str(), frontier::FsyncPolicyName(config.fsync));
  if (config.config_file.empty()) {
    Log(LogLevel::kNotice,
        "No config file given, using the defaults and "
        "the command line");
  } else {
    Log(LogLevel::kNotice, "Configuration loaded from %s",
        config.config_file.c_str());
  }

  // A cluster file that is not a valid map, or has no place for this
  // node, refuses the start before the frontier is opened.
  std::optional<frontier::ClusterState> cluster;
  if (!config.cluster_config_file.empty()) {
    auto loaded = frontier::LoadClusterState(
        config.cluster_config_file, config.bind, frontier::ClusterPort(config));
    if (!loaded.ok()) {
      Log(LogLevel::kWarning, "%s", loaded.status().message().c_str());
      if (!config.logfile.empty()) Fail(loaded.status().message());
      return 1;
    }
    cluster = std::move(loaded).value();
  } else if (!config.cluster_etcd.empty()) {
    auto loaded = frontier::LoadEtcdClusterState(config);
    if (!loaded.ok()) {
      Log(LogLevel::kWarning, "%s", loaded.status().message().c_str());
      if (!config.logfile.empty()) Fail(loaded.status().message());
      return 1;
    }
    cluster = std::move(loaded).value();
  }

  auto started = std::chrono::steady_clock::now();
  auto frontier_or =
      frontier::Frontier::Open(frontier::ToFrontierOptions(config));
  if (!frontier_or.ok()) {
    std::string why = "cannot open the frontier in '" + config.dir +
                      "': " + frontier_or.status().ToString();
    Log(LogLevel::kWarning, "%s", why.c_str());
    if (!config.logfile.empty()) Fail(why);
    return 1;
  }
  std::unique_ptr<frontier::Frontier> frontier = std::move(frontier_or).value();
  stats.recovery_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  Log(LogLevel::kNotice, "Frontier opened (recovery took %lld ms): %llu URLs",
      static_cast<long long>(stats.recovery_ms),
      static_cast<unsigned long long>(frontier->Stats().urls));

  // A map from etcd (or its cached copy) must agree with what the shard
  // recorded that it owns (docs/cluster.md, "What a shard owns").
  if (cluster && cluster->path.empty()) {
    if (frontier::Status s = frontier::CheckClusterRecord(*frontier, *cluster);
        !s.ok()) {
      Log(LogLevel::kWarning, "%s", s.message().c_str());
      if (!config.logfile.empty()) Fail(s.message());
      frontier->Close(/*skip_checkpoint=*/false);
      return 1;
    }
  }

  bool nosave = false;
  {
    frontier::Server server(config, *frontier, stats);
    frontier::Status s = cluster ? server.UseCluster(std::move(*cluster))
                                 : frontier::Status::OK();
    if (s.ok()) s = server.Listen();
    if (!s.ok()) {
      Log(LogLevel::kWarning, "%s", s.message().c_str());
      if (!config.logfile.empty()) Fail(s.message());
      frontier->Close(/*skip_checkpoint=*/false);
      return 1;
    }
    if (server.port() != 0) {
      Log(LogLevel::kNotice, "Ready to accept connections tcp on port %d",
          server.port());
    }
    if (server.tls_port() != 0) {
      Log(LogLevel::kNotice, "Ready to accept connections tls on port %d",
          server.tls_port());
    }
    nosave = server.Run();
  }

  frontier::Status flushed = frontier->FlushLog();
  if (!flushed.ok()) {
    Log(LogLevel::kWarning, "Final log flush failed: %s",
        flushed.ToString().c_str());
  }
  if (!nosave) Log(LogLevel::kNotice, "Checkpointing before exit");
  frontier::Status closed = frontier->Close(/*skip_checkpoint=*/nosave);
  if (!closed.ok()) {
    Log(LogLevel::kWarning, "Closing the frontier failed: %s",
        closed.ToString().c_str());
    return 1;
  }
  Log(LogLevel::kNotice, "frontierd is now ready to exit, bye bye...");
  return 0;
}
