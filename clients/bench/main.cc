// frontier-bench: load generator and correctness checker for frontierd and
// the Redis Functions peer (redis_frontier.lua). See --help and
// docs/performance.md.
#include <cstdio>
#include <string>

#include "client.h"
#include "options.h"
#include "report.h"
#include "server_info.h"
#include "workloads.h"

namespace {

constexpr int kExitCheckFailed = 1;
constexpr int kExitUnsupported = 2;
constexpr int kExitConnection = 3;

bool IsLocal(const std::string& host) {
  return host.starts_with("127.") || host == "localhost" || host == "::1";
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options o;
  int exit_code = 0;
  if (!bench::ParseOptions(argc, argv, &o, &exit_code)) return exit_code;
  if (o.tls) {
    std::fprintf(
        stderr,
        "frontier-bench: --tls not supported yet: hiredis 0.14 has no TLS\n");
    return kExitUnsupported;
  }

  std::string error;
  auto control = bench::Connection::Open(o.host, o.port, o.auth, &error);
  if (!control) {
    std::fprintf(stderr, "frontier-bench: %s\n", error.c_str());
    return kExitConnection;
  }
  bench::Verbs verbs(o.target);
  bench::ServerSnapshot before =
      bench::TakeSnapshot(*control, verbs, IsLocal(o.host));

  bench::RunResult result = bench::RunWorkload(o);
  if (!result.fatal.empty() && result.seconds == 0) {
    std::fprintf(stderr, "frontier-bench: %s\n", result.fatal.c_str());
    return kExitConnection;
  }

  bench::ServerSnapshot after =
      bench::TakeSnapshot(*control, verbs, IsLocal(o.host));
  bench::Verdict verdict = bench::Judge(o, result);
  bench::PrintTable(o, result, before, after, verdict);
  if (o.json)
    std::printf("%s\n",
                bench::JsonLine(o, result, before, after, verdict).c_str());
  std::fflush(stdout);
  if (result.total.io_failed) return kExitConnection;
  return verdict.ok ? 0 : kExitCheckFailed;
}
