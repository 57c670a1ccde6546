// Command-line options of frontier-worker. Every option has a default that
// crawls: `frontier-worker` alone works against a frontierd on
// 127.0.0.1:7379. docs/worker.md describes each one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/tls_stream.h"

namespace worker {

struct Options {
  // frontierd
  std::string host = "127.0.0.1";
  int port = 7379;
  std::string password;  // -a: AUTH on connect when not empty
  bool tls = false;      // connect to a tls-port
  frontier_client::TlsOptions tls_options;
  double lease = 0;       // BPOP LEASE secs; 0 = the server's lease-timeout
  double reconnect = 60;  // seconds to retry a lost frontierd; 0 = exit
  // A replication group's sites ("host:port" each): the master is asked
  // of them (SENTINEL GET-MASTER-ADDR-BY-NAME repl_name) at every connect,
  // instead of -h/-p. Empty = connect to -h/-p.
  std::vector<std::string> sentinels;
  std::string repl_name = "frontierd";
  // A cluster's nodes ("host:port" each; docs/cluster.md): each connect
  // takes the first that answers, from a place that moves on with every
  // connect; BPOP asks ANYSHARD and --exit-when-done reads STATS CLUSTER.
  // Empty = connect to -h/-p.
  std::vector<std::string> nodes;

  // fetching
  int concurrency = 16;  // fetches in flight at once
  std::string user_agent = "frontier-worker/0.1";
  double connect_timeout = 10;  // seconds
  double timeout = 30;          // seconds for a whole fetch, redirects included
  int64_t max_bytes = 5 << 20;  // body bytes kept; the rest is not downloaded
  int max_redirects = 5;        // 0 = redirects are not followed

  // reporting
  double retry_delay = 60;     // FAIL DELAY for a transient error
  bool report_status = true;  // STATUS, FETCH-MS, RETRY-AFTER, BODY (issue 8)
  bool release = true;        // hand leases back with RELEASE (issue 8)
  std::string save_dir;        // empty = pages are not saved

  // stopping
  double grace = 10;   // seconds in-flight fetches get after SIGINT/SIGTERM
  // Stop once the frontier has nothing queued or leased (STATS), checked
  // each time a BPOP finds nothing while no fetch is in flight.
  bool exit_when_done = false;
  bool quiet = false;  // no line per fetch on stdout
};

// Parses argv into *out. Returns false after printing a message to stderr
// (or the usage text to stdout, *exit_code 0, for --help) when the process
// should exit with *exit_code.
bool ParseOptions(int argc, char** argv, Options* out, int* exit_code);

}  // namespace worker
