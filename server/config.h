// The server's configuration: one table of directives (name, default,
// parser, printer), read like redis-server's
//   frontierd [config-file] [--directive value ...]
// where the file holds "directive value" lines ('#' comments, blank lines,
// "double" or 'single' quoted values) and the command line overrides it.
//
// The same table serves the defaults, the file, the command line, CONFIG
// GET/SET and CONFIG REWRITE: a directive is declared once, in config.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scope/scope.h"
#include "server/log.h"
#include "server/users.h"
#include "storage/frontier.h"
#include "util/status.h"
#include "url/url.h"

namespace frontier {

enum class FsyncPolicy { kAlways, kEverySec, kNo };

// tls-auth-clients: whether a TLS client must present a certificate signed
// by tls-ca-cert-file (yes), may present one (optional: verified if given),
// or is not asked for one (no).
enum class TlsAuthClients { kNo, kYes, kOptional };

// tls-protocols, as bits.
enum TlsProtocol : uint32_t { kTlsV12 = 1u << 0, kTlsV13 = 1u << 1 };

// client-output-buffer-limit for one class of clients (normal, pubsub), in
// Redis's terms: a client whose unsent reply bytes exceed `hard_bytes`, or
// stay above `soft_bytes` for more than `soft_seconds`, is disconnected.
// 0 = no such limit.
struct OutputBufferLimit {
  uint64_t hard_bytes = 0;
  uint64_t soft_bytes = 0;
  int64_t soft_seconds = 0;
};

// Every field is set by DefaultConfig() from the directive table; a
// value-initialised Config is not a usable configuration.
struct Config {
  int port = 0;
  std::vector<std::string> bind;  // IPv4/IPv6 literals
  std::string dir;
  int64_t lease_timeout_ms = 0;
  int max_depth = 0;  // 0 = unlimited
  SiteScope depth_scope = SiteScope::kDomain;
  uint64_t site_max_urls = 0;  // 0 = unlimited
  int64_t politeness_delay_ms = 0;
  uint32_t site_max_leases = 0;  // 0 = unlimited
  SiteScope politeness_scope = SiteScope::kHost;
  // Adaptive politeness and recrawl (issue 8 §3; FrontierOptions).
  double politeness_delay_factor = 0;  // 0 = off
  int64_t politeness_max_delay_ms = 0;
  bool recrawl_adaptive = false;
  double recrawl_inc_rate = 0;
  double recrawl_dec_rate = 0;
  int64_t recrawl_min_ms = 0;
  int64_t recrawl_max_ms = 0;
  int default_priority = 0;
  QueueOrder order = QueueOrder::kBfs;
  int max_attempts = 0;
  // Back-off (issue 8 §2; FrontierOptions says what they do).
  std::vector<int> backoff_status_codes;  // HTTP codes, 100..599
  int64_t backoff_initial_ms = 0;
  int64_t backoff_max_ms = 0;
  // robots.txt (issue 8 §1).
  bool robots = false;
  std::string robots_agent;
  int64_t robots_ttl_ms = 0;
  uint64_t robots_max_bytes = 0;
  int64_t robots_max_crawl_delay_ms = 0;
  int64_t timer_ms = 0;
  int64_t checkpoint_interval_ms = 0;  // 0 = only at shutdown
  FsyncPolicy fsync = FsyncPolicy::kAlways;
  uint64_t cache_bytes = 0;
  uint64_t max_url_length = 0;
  uint64_t max_url_data = 0;  // bytes of one URL's value (DATA)
  uint64_t maxclients = 0;
  uint64_t proto_max_bulk_len = 0;       // bytes of one argument
  uint64_t proto_max_multibulk_len = 0;  // arguments of one command
  uint64_t client_query_buffer_limit = 0;
  OutputBufferLimit client_output_buffer_limit;  // normal clients
  // Clients in subscribed mode (ClientInfo::subscribed).
  OutputBufferLimit client_output_buffer_limit_pubsub;
  int64_t timeout_s = 0;        // idle seconds before closing; 0 = never
  int64_t tcp_keepalive_s = 0;  // SO_KEEPALIVE idle seconds; 0 = off
  // TLS (tls-port 0 = no TLS listener).
  int tls_port = 0;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_ca_cert_file;
  TlsAuthClients tls_auth_clients = TlsAuthClients::kYes;
  uint32_t tls_protocols = 0;  // TlsProtocol bits, never 0
  // HTTP (/metrics, the dashboard; docs/operations.md): 0 = off.
  int http_port = 0;
  bool http_tls = false;  // HTTPS with the tls-* certificate
  // URL Frontier's gRPC API (docs/urlfrontier.md): 0 = off.
  int urlfrontier_port = 0;
  // TLS on it with the tls-* files (server/urlfrontier_credentials.h).
  bool urlfrontier_tls = false;
  LogLevel loglevel = LogLevel::kNotice;
  std::string logfile;  // "" = stderr
  // Security (docs/security.md). The default user's password, kept as
  // given because CONFIG REWRITE writes it back; "" = none.
  std::string requirepass;
  std::vector<UserSpec> users;  // `user` lines, in order; digests only
  bool protected_mode = true;
  // Slow log (docs/operations.md): commands that ran at least this many
  // microseconds are kept (negative: none); at most max_len of them.
  int64_t slowlog_log_slower_than_us = 0;
  uint64_t slowlog_max_len = 0;
  // Partitions (docs/commands.md#partitions): `partition` lines, and how
  // often the frontier reconsiders the hints it publishes.
  partition::PartitionMap partitions;
  int64_t hint_interval_ms = 0;
  // Crawl scope (docs/operations.md, "Crawl scope"); ToFrontierOptions
  // joins them into a scope::Scope.
  scope::HostSuffixes scope_hosts;  // empty: any host
  scope::RefRule scope_ref = scope::RefRule::kAny;
  scope::UrlPatterns scope_deny;
  scope::UrlPatterns scope_allow;  // empty: no allow rule
  uint64_t scope_max_query_params = 0;   // 0 = no limit
  uint64_t scope_max_path_segments = 0;  // 0 = no limit
  // Replication (docs/replication.md; server/replication_config.h checks
  // them together and ToReplicationOptions gives storage its view).
  bool replication = false;
  std::string repl_listen;              // "host:port", "" = none
  std::vector<std::string> repl_peers;  // "host:port" each
  bool repl_group_creator = false;
  int64_t repl_priority = 0;  // 0 = never master
  int64_t repl_ack_timeout_ms = 0;
  int64_t repl_heartbeat_ms = 0;
  int64_t repl_election_timeout_ms = 0;
  uint64_t repl_log_retain = 0;  // bytes
  bool repl_listen_any = false;  // allow repl-listen on 0.0.0.0 / ::
  // The group's name for Sentinel clients (SENTINEL MASTERS, master_for).
  std::string repl_name = "frontierd";
  // The client address this site gives its peers (docs/replication.md,
  // "Finding the master"): "" / 0 = the first bind address that is not a
  // wildcard (else repl-listen's host) and `port`.
  std::string replica_announce_ip;
  int64_t replica_announce_port = 0;
  // Cluster (docs/cluster.md): the cluster file ("" = not in a cluster),
  // how long a forwarded command may wait for its reply, the bytes of
  // forwarded commands in flight to one peer, and the credentials the
  // internal connections log in with ("" pass = requirepass, if any).
  std::string cluster_config_file;
  int64_t cluster_forward_timeout_ms = 0;
  uint64_t cluster_forward_max_bytes = 0;
  int64_t cluster_failover_hold_ms = 0;
  // tls-cluster: internal links over TLS, to the peers' tls-port.
  bool tls_cluster = false;
  std::string cluster_auth_user;
  std::string cluster_auth_pass;
  // The cluster's directory in etcd (docs/cluster.md, "The directory in
  // etcd"): its gateway endpoints ("" = none: the cluster file, if any)
  // and the cluster's name, the prefix of its keys.
  std::string cluster_etcd;
  std::string cluster_name = "frontierd";

  std::string config_file;  // absolute path of the file read, if any
};

// Directive::flags.
enum DirectiveFlag : uint32_t {
  // CONFIG SET may change it while the server runs; the new value takes
  // effect at once (Server::ApplyConfig).
  kDirRuntime = 1u << 0,
  // Its value may hold a password: error messages never quote it, logs
  // and the slow log redact it.
  kDirSecret = 1u << 1,
  // May be given several times ("user"): each occurrence adds one value,
  // the empty value (the default) clears them all, and `get` prints one
  // value per line ('\n'-separated).
  kDirRepeatable = 1u << 2,
};

// One configuration directive. `set` parses a value into a Config and
// returns false (leaving the Config unchanged) if the value is not valid;
// `get` prints the current value in a form `set` accepts.
struct Directive {
  std::string_view name;           // lower-case, e.g. "lease-timeout"
  std::string_view default_value;  // as written in a config file
  std::string expected;            // for errors: "an integer 0..65535"
  std::function<bool(Config*, std::string_view)> set;
  std::function<std::string(const Config&)> get;
  uint32_t flags = 0;  // DirectiveFlag bits
  // Optional: why `set` refused `value`, when `expected` cannot say it
  // (e.g. a duplicate user). Never quotes a secret.
  std::function<std::string(const Config&, std::string_view)> explain = {};
};

// All directives, in the order conf/frontierd.conf lists them.
std::span<const Directive> Directives();
// Case-insensitive lookup; nullptr if there is no such directive.
const Directive* FindDirective(std::string_view name);

// Every directive at its default.
Config DefaultConfig();

// Sets one directive. Returns InvalidArgument naming the problem:
// "unknown directive 'foo'" or
// "bad value for 'port': 'abc' (expected an integer 0..65535)"; for a
// kDirSecret directive the value is not quoted.
Status SetDirective(Config* config, std::string_view name,
                    std::string_view value);

// Applies a config file's text. `source` names it in errors, which read
// "<source>:<line>: <SetDirective's message>"; stops at the first error.
Status ApplyConfigText(Config* config, std::string_view text,
                       std::string_view source);

// Builds the configuration from the command line (without the program
// name): defaults, then the optional config file (first argument, if it
// does not start with "--"), then "--name value..." pairs in order (several
// value words are joined with spaces, as "--bind 127.0.0.1 ::1").
// Returns InvalidArgument with a message for the user on any problem,
// including the replication directives' joint checks
// (CheckReplicationConfig). Does not create `dir`; see PrepareDirectories.
StatusOr<Config> LoadConfig(std::span<const std::string> args);

// Creates config.dir (and its parents) if missing. IOError if it fails.
Status PrepareDirectories(const Config& config);

// The storage layer's view of the configuration.
FrontierOptions ToFrontierOptions(const Config& config);

// Splits a config line into words: spaces separate, "..." (with \" \\ \n
// \t \r and \xHH escapes) and '...' (with \') quote. Returns false on
// unbalanced quotes or a quote not followed by a space.
bool SplitConfigLine(std::string_view line, std::vector<std::string>* words);

const char* FsyncPolicyName(FsyncPolicy policy);

}  // namespace frontier
