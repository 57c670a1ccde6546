#include "options.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string_view>
#include <utility>

#include "common/parse_number.h"

namespace bench {
namespace {

constexpr const char* kUsage =
    R"(Usage: frontier-bench [options] add|pop-confirm|crawl|pop|confirm

Load generator for frontierd (or the Redis Functions peer) over RESP.
pop and confirm time one verb alone: -n new URLs are added first (and for
confirm popped) unmeasured; what a run leased it confirms before it exits.

Connection:
  -h <host>            server host (default 127.0.0.1)
  -p <port>            server port (default 7379)
  --auth <password>    send AUTH <password> on connect
  --tls                TLS (not supported yet: hiredis 0.14 has no TLS)
  --target <t>         frontierd (default) or redis: the peer library
                       clients/bench/redis_frontier.lua called with FCALL
Load:
  -c <connections>     parallel connections, one thread each (default 50)
  -P <pipeline>        URLs (pages for crawl) per round trip (default 1:
                       one command at a time)
  -n <ops>             add: ADD commands (default 100000); crawl: pages;
                       pop-confirm: stop after this many URLs (default: all);
                       pop, confirm: URLs loaded, then popped or confirmed
                       (default 100000)
  --pop-count <k>      URLs asked per POP (default: the pipeline depth)
  --duration <secs>    stop after this long (default: no limit)
  --idle-wait <secs>   keep retrying an empty POP this long before a
                       connection stops (crawl 2, the others 0)
Data:
  --sites <n>          number of sites (default 10000)
  --dup-ratio <r>      add: share of ADDs repeating an earlier URL (0.2)
  --links <n>          crawl: links per page (50)
  --local-share <r>    crawl: share of links on the page's own site (0.7)
  --known-share <r>    crawl: share of links to already known pages (0.8)
  --zipf <s>           crawl: power-law exponent of site sizes (1.0)
  --seed <n>           random seed, also tags the URLs of a run (1)
  --robots             crawl: store a robots.txt (4 rules, 1/64 of the
                       pages disallowed) for every site with ROBOTS SET
                       before the clock; run the server with `robots yes`
Output:
  --json               print one JSON line after the table
  --help               this text

Exit status: 0 ok, 1 a correctness check failed, 2 usage, 3 connection error.
)";

bool Fail(const char* what, std::string_view value, int* exit_code) {
  std::fprintf(stderr,
               "frontier-bench: bad value for %s: '%.*s' (try --help)\n", what,
               static_cast<int>(value.size()), value.data());
  *exit_code = 2;
  return false;
}

using frontier_client::ParseDouble;
using frontier_client::ParseInt;

// Options that take a value: name, and how the value lands in Options.
struct ValueOption {
  std::string_view name;
  bool (*set)(std::string_view value, Options& o);
};

constexpr ValueOption kValueOptions[] = {
    {"-h",
     [](std::string_view v, Options& o) {
       o.host = std::string(v);
       return !v.empty();
     }},
    {"-p", [](std::string_view v,
              Options& o) { return ParseInt(v, 1, 65535, &o.port); }},
    {"-c", [](std::string_view v,
              Options& o) { return ParseInt(v, 1, 10000, &o.connections); }},
    {"-P", [](std::string_view v,
              Options& o) { return ParseInt(v, 1, 100000, &o.pipeline); }},
    {"-n",
     [](std::string_view v, Options& o) {
       o.ops_given = true;
       return ParseInt<int64_t>(v, 1, int64_t{1} << 40, &o.ops);
     }},
    {"--sites",
     [](std::string_view v, Options& o) {
       return ParseInt<uint32_t>(v, 1, 100'000'000, &o.sites);
     }},
    {"--dup-ratio",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 0.99, &o.dup_ratio);
     }},
    {"--links", [](std::string_view v,
                   Options& o) { return ParseInt(v, 0, 100000, &o.links); }},
    {"--local-share",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 1, &o.local_share);
     }},
    {"--known-share",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 1, &o.known_share);
     }},
    {"--zipf", [](std::string_view v,
                  Options& o) { return ParseDouble(v, 0, 10, &o.zipf); }},
    {"--seed",
     [](std::string_view v, Options& o) {
       return ParseInt<uint64_t>(v, 0, UINT64_MAX, &o.seed);
     }},
    {"--pop-count",
     [](std::string_view v, Options& o) {
       return ParseInt(v, 1, 100000, &o.pop_count);
     }},
    {"--idle-wait",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 3600, &o.idle_wait);
     }},
    {"--duration",
     [](std::string_view v, Options& o) {
       return ParseDouble(v, 0, 86400, &o.duration);
     }},
    {"--auth",
     [](std::string_view v, Options& o) {
       o.auth = std::string(v);
       return true;
     }},
    {"--target",
     [](std::string_view v, Options& o) {
       if (v == "frontierd") {
         o.target = Target::kFrontierd;
       } else if (v == "redis") {
         o.target = Target::kRedis;
       } else {
         return false;
       }
       return true;
     }},
};

constexpr std::pair<std::string_view, Workload> kWorkloads[] = {
    {"add", Workload::kAdd},         {"pop-confirm", Workload::kPopConfirm},
    {"crawl", Workload::kCrawl},     {"pop", Workload::kPop},
    {"confirm", Workload::kConfirm},
};

}  // namespace

const char* WorkloadName(Workload w) {
  for (const auto& [name, workload] : kWorkloads) {
    if (workload == w) return name.data();
  }
  return "?";
}

const char* TargetName(Target t) {
  return t == Target::kFrontierd ? "frontierd" : "redis";
}

bool ParseOptions(int argc, char** argv, Options* out, int* exit_code) {
  Options& o = *out;
  bool have_workload = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help") {
      std::fputs(kUsage, stdout);
      *exit_code = 0;
      return false;
    }
    if (arg == "--json" || arg == "--tls") {
      (arg == "--json" ? o.json : o.tls) = true;
      continue;
    }
    if (arg == "--robots") {
      o.robots = true;
      continue;
    }
    if (!arg.starts_with("-")) {
      auto it = std::find_if(std::begin(kWorkloads), std::end(kWorkloads),
                             [&](const auto& w) { return w.first == arg; });
      if (have_workload || it == std::end(kWorkloads)) {
        return Fail("workload (add, pop-confirm, crawl, pop or confirm, once)",
                    arg, exit_code);
      }
      o.workload = it->second;
      have_workload = true;
      continue;
    }
    auto opt =
        std::find_if(std::begin(kValueOptions), std::end(kValueOptions),
                     [&](const ValueOption& v) { return v.name == arg; });
    if (opt == std::end(kValueOptions)) {
      std::fprintf(stderr, "frontier-bench: unknown option '%s' (try --help)\n",
                   argv[i]);
      *exit_code = 2;
      return false;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "frontier-bench: %s needs a value (try --help)\n",
                   argv[i]);
      *exit_code = 2;
      return false;
    }
    std::string_view value = argv[++i];
    if (!opt->set(value, o)) return Fail(argv[i - 1], value, exit_code);
  }
  if (!have_workload) {
    std::fputs(kUsage, stderr);
    *exit_code = 2;
    return false;
  }
  if (o.idle_wait < 0) {
    o.idle_wait = o.workload == Workload::kCrawl ? 2.0 : 0.0;
  }
  if (o.pop_count == 0) o.pop_count = o.pipeline;
  return true;
}

}  // namespace bench
