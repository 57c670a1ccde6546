#include "options.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string_view>

#include "common/parse_number.h"

namespace worker {
namespace {

using frontier_client::ParseDouble;
using frontier_client::ParseInt;

constexpr int kExitUsage = 2;

constexpr const char* kUsage =
    R"(Usage: frontier-worker [options]

A crawler worker for frontierd: leases URLs (BPOP), fetches them, adds the
links of each page (MADD) and confirms it (CONFIRM), or reports a failure
(FAIL). Stops cleanly on SIGINT or SIGTERM. See docs/worker.md.

frontierd:
  -h <host>              server host (default 127.0.0.1)
  -p <port>              server port (default 7379)
  -a <password>          send AUTH <password> on connect (also --auth)
  --tls                  connect with TLS (to a tls-port)
  --cacert <file>        CA certificate(s) to verify the server with
                         (default: the system's)
  --cert <file>          client certificate, for mutual TLS
  --key <file>           its private key
  --sni <name>           server name to send and verify (default: -h)
  --insecure             do not verify the server's certificate
  --lease <secs>         lease asked with BPOP (default: the server's
                         lease-timeout)
  --reconnect <secs>     how long to keep reconnecting to a lost frontierd
                         before exiting (default 60; 0 = exit at once)
  --sentinels <list>     a replication group's sites, host:port,... : each
                         connect asks them for the master (SENTINEL
                         GET-MASTER-ADDR-BY-NAME), so the worker follows a
                         failover; replaces -h/-p
  --repl-name <name>     the group's repl-name (default frontierd)
  --nodes <list>         a cluster's nodes, host:port,... : each connect
                         takes the first that answers (moving on with every
                         connect), BPOP asks ANYSHARD, --exit-when-done
                         reads STATS CLUSTER; replaces -h/-p
Fetching:
  -c <n>                 fetches in flight at once (default 16; also
                         --concurrency)
  --user-agent <text>    User-Agent header (default frontier-worker/0.1)
  --connect-timeout <s>  seconds to connect (default 10)
  --timeout <secs>       seconds for a whole fetch (default 30)
  --max-bytes <n>        body bytes downloaded at most; a longer body is cut
                         there (default 5242880)
  --max-redirects <n>    redirects followed (default 5; 0 = none)
Reporting:
  --retry-delay <secs>   FAIL ... DELAY for a transient error (default 60)
  --no-report-status     leave STATUS, FETCH-MS, RETRY-AFTER and the
                         robots.txt BODY out of CONFIRM and FAIL (for an
                         old frontierd, which refuses them: one that answers
                         `RELEASE http://a.example/` with "ERR unknown
                         command", not 0; INFO's frontierd_version, 0.1.0,
                         does not tell them apart)
  --no-release           hand leases back with FAIL instead of RELEASE (for
                         that old frontierd)
  --save-dir <dir>       save each fetched page in <dir> (index.tsv lists them)
Stopping:
  --grace <secs>         after SIGINT/SIGTERM, seconds in-flight fetches get
                         to finish before they are abandoned and handed back
                         (default 10; a second signal ends them at once)
  --exit-when-done       stop (exit 0) once the frontier has no URL queued
                         or leased: when a BPOP finds nothing, nothing is
                         in flight here and STATS says queued 0, leased 0
Output:
  -q, --quiet            no line per fetch on stdout
  --help                 this text

Exit status: 0 stopped by a signal or done (--exit-when-done), 2 usage, 3 frontierd unreachable or lost.
)";

// host:port,... into *out (replacing it); false if one is not host:port.
bool ParseAddresses(std::string_view v, std::vector<std::string>* out) {
  out->clear();
  while (!v.empty()) {
    const size_t comma = v.find(',');
    const std::string_view one = v.substr(0, comma);
    const size_t colon = one.rfind(':');
    int port = 0;
    if (colon == std::string_view::npos || colon == 0 ||
        !ParseInt(one.substr(colon + 1), 1, 65535, &port)) {
      return false;
    }
    out->emplace_back(one);
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return !out->empty();
}

// Options that take a value: names, and how the value lands in Options.
struct ValueOption {
  std::string_view name;
  std::string_view alias;
  bool (*set)(std::string_view value, Options& o);
};

constexpr ValueOption kValueOptions[] = {
    {"-h", "--host",
     [](std::string_view v, Options& o) {
       o.host = std::string(v);
       return !v.empty();
     }},
    {"-p", "--port",
     [](std::string_view v, Options& o) {
       return ParseInt(v, 1, 65535, &o.port);
     }},
    {"-a", "--auth",
     [](std::string_view v, Options& o) {
       o.password = std::string(v);
       return true;
     }},
    {"--lease", "",
     [](std::string_view v, Options& o) {
       // 0 = the server's default; else at least the millisecond that
       // BPOP ... LEASE can express.
       return ParseDouble(v, 0, 86400 * 365, &o.lease) &&
              (o.lease == 0 || o.lease >= 0.001);
     }},
    {"--reconnect", "",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 86400 * 365, &o.reconnect);
     }},
    {"--sentinels", "",
     [](std::string_view v, Options& o) {
       return ParseAddresses(v, &o.sentinels);
     }},
    {"--nodes", "",
     [](std::string_view v, Options& o) {
       return ParseAddresses(v, &o.nodes);
     }},
    {"--repl-name", "",
     [](std::string_view v, Options& o) {
       o.repl_name = std::string(v);
       return !v.empty();
     }},
    {"-c", "--concurrency",
     [](std::string_view v, Options& o) {
       return ParseInt(v, 1, 10000, &o.concurrency);
     }},
    {"--user-agent", "",
     [](std::string_view v, Options& o) {
       o.user_agent = std::string(v);
       return !v.empty();
     }},
    {"--connect-timeout", "",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0.001, 3600, &o.connect_timeout);
     }},
    {"--timeout", "",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0.001, 86400, &o.timeout);
     }},
    {"--max-bytes", "",
     [](std::string_view v, Options& o) {
       return ParseInt<int64_t>(v, 1, int64_t{1} << 40, &o.max_bytes);
     }},
    {"--max-redirects", "",
     [](std::string_view v, Options& o) {
       return ParseInt(v, 0, 100, &o.max_redirects);
     }},
    {"--retry-delay", "",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 86400 * 365, &o.retry_delay);
     }},
    {"--save-dir", "",
     [](std::string_view v, Options& o) {
       o.save_dir = std::string(v);
       return !v.empty();
     }},
    {"--cacert", "",
     [](std::string_view v, Options& o) {
       o.tls_options.ca_cert = std::string(v);
       return !v.empty();
     }},
    {"--cert", "",
     [](std::string_view v, Options& o) {
       o.tls_options.cert = std::string(v);
       return !v.empty();
     }},
    {"--key", "",
     [](std::string_view v, Options& o) {
       o.tls_options.key = std::string(v);
       return !v.empty();
     }},
    {"--sni", "",
     [](std::string_view v, Options& o) {
       o.tls_options.sni = std::string(v);
       return !v.empty();
     }},
    {"--grace", "",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 86400, &o.grace);
     }},
};

struct FlagOption {
  std::string_view name;
  std::string_view alias;
  void (*set)(Options& o);
};

constexpr FlagOption kFlags[] = {
    {"--tls", "", [](Options& o) { o.tls = true; }},
    {"--exit-when-done", "", [](Options& o) { o.exit_when_done = true; }},
    {"--insecure", "", [](Options& o) { o.tls_options.insecure = true; }},
    {"--report-status", "", [](Options& o) { o.report_status = true; }},
    {"--no-report-status", "", [](Options& o) { o.report_status = false; }},
    {"--release", "", [](Options& o) { o.release = true; }},
    {"--no-release", "", [](Options& o) { o.release = false; }},
    {"-q", "--quiet", [](Options& o) { o.quiet = true; }},
};

template <typename Table>
auto Find(const Table& table, std::string_view arg) {
  return std::find_if(std::begin(table), std::end(table), [&](const auto& o) {
    return o.name == arg || (!o.alias.empty() && o.alias == arg);
  });
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options* out, int* exit_code) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help") {
      std::fputs(kUsage, stdout);
      *exit_code = 0;
      return false;
    }
    if (auto flag = Find(kFlags, arg); flag != std::end(kFlags)) {
      flag->set(*out);
      continue;
    }
    auto opt = Find(kValueOptions, arg);
    if (opt == std::end(kValueOptions)) {
      std::fprintf(stderr,
                   "frontier-worker: unknown option '%s' (try --help)\n",
                   argv[i]);
      *exit_code = kExitUsage;
      return false;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "frontier-worker: %s needs a value (try --help)\n",
                   argv[i]);
      *exit_code = kExitUsage;
      return false;
    }
    std::string_view value = argv[++i];
    if (!opt->set(value, *out)) {
      std::fprintf(stderr,
                   "frontier-worker: bad value for %s: '%s' (try --help)\n",
                   argv[i - 1], argv[i]);
      *exit_code = kExitUsage;
      return false;
    }
  }
  if (!out->nodes.empty() && !out->sentinels.empty()) {
    std::fprintf(stderr,
                 "frontier-worker: --nodes and --sentinels exclude each other "
                 "(try --help)\n");
    *exit_code = kExitUsage;
    return false;
  }
  return true;
}

}  // namespace worker
