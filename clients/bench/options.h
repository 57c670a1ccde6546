// Command-line options of frontier-bench, in the spirit of redis-benchmark.
#pragma once

#include <cstdint>
#include <string>

namespace bench {

enum class Workload { kAdd, kPopConfirm, kCrawl, kPop, kConfirm };
enum class Target { kFrontierd, kRedis };

struct Options {
  std::string host = "127.0.0.1";
  int port = 7379;
  int connections = 50;
  int pipeline =
      1;  // URLs (or pages) per round trip; 1 = one command at a time
  int64_t ops = 100000;    // add: ADD commands; crawl: pages; pop-confirm: cap
                           // on pops; pop, confirm: URLs loaded, then measured
  bool ops_given = false;  // pop-confirm drains everything unless -n is given
  uint32_t sites = 10000;
  double dup_ratio = 0.2;    // add: share of ADDs that repeat an earlier URL
  int links = 50;            // crawl: links per page
  double local_share = 0.7;  // crawl: share of a page's links on its own site
  double known_share =
      0.8;            // crawl: share of links that pick an already known page
  double zipf = 1.0;  // crawl: exponent of the site-size power law
  uint64_t seed = 1;  // random streams, and a path tag that keeps runs apart
  int pop_count = 0;  // URLs asked per POP; 0 = the pipeline depth
  double idle_wait =
      -1;               // seconds to retry an empty POP; <0 = workload default
  double duration = 0;  // stop after this many seconds; 0 = no limit
  Target target = Target::kFrontierd;
  Workload workload = Workload::kAdd;
  bool json = false;
  bool tls = false;
  bool robots = false;  // crawl: ROBOTS SET every site before the clock
  std::string auth;
};

// Parses argv into *out. Returns false after printing a message to stderr
// (or the usage text, *exit_code 0 for --help) when the process should exit
// with *exit_code.
bool ParseOptions(int argc, char** argv, Options* out, int* exit_code);

const char* WorkloadName(Workload w);
const char* TargetName(Target t);

}  // namespace bench
