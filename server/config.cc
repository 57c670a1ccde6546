// The directive table and the lookups on it (config.h). The kinds of value
// are in config_kinds.cc, reading a config file and the command line in
// config_file.cc, CONFIG REWRITE in config_rewrite.cc.
#include "server/config.h"

#include <limits>
#include <vector>

#include "server/args.h"
#include "server/config_kinds.h"
#include "server/replication_config.h"

namespace frontier {
namespace {

using config_kinds::AddressList;
using config_kinds::Choice;
using config_kinds::Decimal;
using config_kinds::Duration;
using config_kinds::Flagged;
using config_kinds::Integer;
using config_kinds::Memory;
using config_kinds::OutputLimit;
using config_kinds::Partitions;
using config_kinds::Password;
using config_kinds::ProductToken;
using config_kinds::ReplicationAddress;
using config_kinds::ReplicationAddressList;
using config_kinds::ScopeHosts;
using config_kinds::ScopePatterns;
using config_kinds::StatusCodes;
using config_kinds::Text;
using config_kinds::TlsProtocols;
using config_kinds::Users;

constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

const std::vector<Directive>& Table() {
  using S = SiteScope;
  static const std::vector<Directive> kTable = {
      Integer("port", "7379", &Config::port, 0, 65535),
      AddressList("bind", "127.0.0.1", &Config::bind),
      Integer("tls-port", "0", &Config::tls_port, 0, 65535),
      Text("tls-cert-file", "", &Config::tls_cert_file, /*allow_empty=*/true),
      Text("tls-key-file", "", &Config::tls_key_file, /*allow_empty=*/true),
      Text("tls-ca-cert-file", "", &Config::tls_ca_cert_file,
           /*allow_empty=*/true),
      Choice<TlsAuthClients>("tls-auth-clients", "yes",
                             &Config::tls_auth_clients,
                             {{"yes", TlsAuthClients::kYes},
                              {"no", TlsAuthClients::kNo},
                              {"optional", TlsAuthClients::kOptional}}),
      TlsProtocols("tls-protocols", "TLSv1.2 TLSv1.3", &Config::tls_protocols),
      // HTTP: /metrics, /api/stats and the dashboard (docs/operations.md).
      Integer("http-port", "0", &Config::http_port, 0, 65535),
      Choice<bool>("http-tls", "no", &Config::http_tls,
                   {{"yes", true}, {"no", false}}),
      // URL Frontier's gRPC API (docs/urlfrontier.md).
      Integer("urlfrontier-port", "0", &Config::urlfrontier_port, 0, 65535),
      Choice<bool>("urlfrontier-tls", "no", &Config::urlfrontier_tls,
                   {{"yes", true}, {"no", false}}),
      Flagged(kDirRuntime,
              Integer("timeout", "0", &Config::timeout_s, 0, kMaxInt)),
      // Linux refuses TCP_KEEPIDLE above 32767 seconds. A new value applies
      // to the connections accepted after it.
      Flagged(kDirRuntime, Integer("tcp-keepalive", "300",
                                   &Config::tcp_keepalive_s, 0, 32767)),
      Text("dir", "./data", &Config::dir, /*allow_empty=*/false),
      // kDirRuntime: CONFIG SET may change it (Server::ApplyConfig).
      Flagged(kDirRuntime,
              Duration("lease-timeout", "300", &Config::lease_timeout_ms, 1)),
      Flagged(kDirRuntime,
              Integer("max-depth", "16", &Config::max_depth, 0, kMaxInt)),
      Flagged(kDirRuntime,
              Choice<S>("depth-scope", "domain", &Config::depth_scope,
                        {{"host", S::kHost}, {"domain", S::kDomain}})),
      Flagged(kDirRuntime, Integer("site-max-urls", "0", &Config::site_max_urls,
                                   0, kMaxInt64)),
      Flagged(kDirRuntime, Duration("politeness-delay", "1",
                                    &Config::politeness_delay_ms, 0)),
      Flagged(kDirRuntime,
              Integer("site-max-leases", "1", &Config::site_max_leases, 0,
                      std::numeric_limits<uint32_t>::max())),
      Choice<S>("politeness-scope", "host", &Config::politeness_scope,
                {{"host", S::kHost}, {"domain", S::kDomain}}),
      // Adaptive politeness and recrawl (issue 8 §3).
      Flagged(kDirRuntime, Decimal("politeness-delay-factor", "0",
                                   &Config::politeness_delay_factor, 0, 1e6)),
      Flagged(kDirRuntime, Duration("politeness-max-delay", "30",
                                    &Config::politeness_max_delay_ms, 0)),
      Flagged(kDirRuntime,
              Choice<bool>("recrawl-adaptive", "no", &Config::recrawl_adaptive,
                           {{"yes", true}, {"no", false}})),
      Flagged(kDirRuntime, Decimal("recrawl-inc-rate", "0.4",
                                   &Config::recrawl_inc_rate, 0, 1000)),
      Flagged(kDirRuntime, Decimal("recrawl-dec-rate", "0.2",
                                   &Config::recrawl_dec_rate, 0, 1)),
      Flagged(kDirRuntime,
              Duration("recrawl-min", "60", &Config::recrawl_min_ms, 1)),
      Flagged(kDirRuntime,
              Duration("recrawl-max", "31536000", &Config::recrawl_max_ms, 1)),
      Flagged(kDirRuntime, Integer("default-priority", "5000",
                                   &Config::default_priority, 0, 9999)),
      Choice<QueueOrder>("order", "bfs", &Config::order,
                         {{"bfs", QueueOrder::kBfs},
                          {"priority", QueueOrder::kPriority},
                          {"popularity", QueueOrder::kPopularity},
                          {"date", QueueOrder::kDate}}),
      Flagged(kDirRuntime,
              Integer("max-attempts", "5", &Config::max_attempts, 1, kMaxInt)),
      // Back-off from sites that answer 429/503 (docs/commands.md#fail).
      Flagged(kDirRuntime, StatusCodes("backoff-status-codes", "429 503",
                                       &Config::backoff_status_codes)),
      Flagged(kDirRuntime, Duration("backoff-initial", "60",
                                    &Config::backoff_initial_ms, 0)),
      Flagged(kDirRuntime, Duration("backoff-max", "86400",
                                    &Config::backoff_max_ms, 0)),
      Flagged(kDirRuntime,
              Integer("timer-ms", "100", &Config::timer_ms, 1, 3'600'000)),
      // robots.txt (docs/robots.md, "The server's robots policy").
      Flagged(kDirRuntime, Choice<bool>("robots", "no", &Config::robots,
                                        {{"yes", true}, {"no", false}})),
      Flagged(kDirRuntime, ProductToken("robots-agent", "frontierd",
                                        &Config::robots_agent)),
      // RFC 9309 §2.4: a cached robots.txt is used 24 hours at most.
      Flagged(kDirRuntime, Duration("robots-ttl", "86400",
                                    &Config::robots_ttl_ms, 1, 86'400'000)),
      // RFC 9309 §2.5: at least 500 KiB of the file are read.
      Flagged(kDirRuntime,
              Memory("robots-max-bytes", "512kb", &Config::robots_max_bytes,
                     500 << 10)),
      Flagged(kDirRuntime,
              Duration("robots-max-crawl-delay", "300",
                       &Config::robots_max_crawl_delay_ms, 0, 86'400'000)),
      Flagged(kDirRuntime, Duration("checkpoint-interval", "60",
                                    &Config::checkpoint_interval_ms, 0)),
      Choice<FsyncPolicy>("fsync", "always", &Config::fsync,
                          {{"always", FsyncPolicy::kAlways},
                           {"everysec", FsyncPolicy::kEverySec},
                           {"no", FsyncPolicy::kNo}}),
      Memory("cache-size", "256mb", &Config::cache_bytes, 1ull << 20),
      Flagged(kDirRuntime, Integer("max-url-length", "8192",
                                   &Config::max_url_length, 16, 64 << 20)),
      // Bytes of one URL's value, ADD ... DATA (docs/commands.md#add).
      Flagged(kDirRuntime, Memory("max-url-data", "64kb",
                                  &Config::max_url_data, 0)),
      Flagged(kDirRuntime, Integer("maxclients", "10000", &Config::maxclients,
                                   1, 1'000'000)),
      Memory("proto-max-bulk-len", "512mb", &Config::proto_max_bulk_len,
             1ull << 20),
      Integer("proto-max-multibulk-len", "1048576",
              &Config::proto_max_multibulk_len, 1, kMaxInt),
      Flagged(kDirRuntime,
              Memory("client-query-buffer-limit", "1gb",
                     &Config::client_query_buffer_limit, 1ull << 20)),
      Flagged(kDirRuntime,
              OutputLimit("client-output-buffer-limit",
                          "normal 0 0 0 pubsub 32mb 8mb 60",
                          &Config::client_output_buffer_limit,
                          &Config::client_output_buffer_limit_pubsub)),
      // Security (docs/security.md).
      Flagged(kDirRuntime, Password("requirepass", &Config::requirepass)),
      Users("user"),
      Flagged(kDirRuntime,
              Choice<bool>("protected-mode", "yes", &Config::protected_mode,
                           {{"yes", true}, {"no", false}})),
      Flagged(kDirRuntime,
              Choice<LogLevel>("loglevel", "notice", &Config::loglevel,
                               {{"debug", LogLevel::kDebug},
                                {"verbose", LogLevel::kVerbose},
                                {"notice", LogLevel::kNotice},
                                {"warning", LogLevel::kWarning}})),
      Text("logfile", "", &Config::logfile, /*allow_empty=*/true),
      Flagged(kDirRuntime,
              Integer("slowlog-log-slower-than", "10000",
                      &Config::slowlog_log_slower_than_us, -1, kMaxInt64)),
      Flagged(kDirRuntime, Integer("slowlog-max-len", "128",
                                   &Config::slowlog_max_len, 0, kMaxInt)),
      // Partitions and their hints (docs/commands.md#partitions).
      Partitions("partition"),
      Flagged(kDirRuntime,
              Duration("hint-interval", "1", &Config::hint_interval_ms, 10)),
      // Crawl scope (docs/operations.md, "Crawl scope").
      ScopeHosts("scope-hosts", &Config::scope_hosts),
      Flagged(kDirRuntime,
              Choice<scope::RefRule>(
                  "scope", "any", &Config::scope_ref,
                  {{"any", scope::RefRule::kAny},
                   {"same-site", scope::RefRule::kSameSite},
                   {"same-domain", scope::RefRule::kSameDomain}})),
      ScopePatterns("scope-deny", &Config::scope_deny),
      ScopePatterns("scope-allow", &Config::scope_allow),
      Flagged(kDirRuntime, Integer("scope-max-query-params", "0",
                                   &Config::scope_max_query_params, 0,
                                   kMaxInt)),
      Flagged(kDirRuntime, Integer("scope-max-path-segments", "0",
                                   &Config::scope_max_path_segments, 0,
                                   kMaxInt)),
      // Replication (docs/replication.md): fixed at start.
      Choice<bool>("replication", "no", &Config::replication,
                   {{"yes", true}, {"no", false}}),
      ReplicationAddress("repl-listen", "", &Config::repl_listen),
      Choice<bool>("repl-listen-any", "no", &Config::repl_listen_any,
                   {{"yes", true}, {"no", false}}),
      ReplicationAddressList("repl-peers", "", &Config::repl_peers),
      Choice<bool>("repl-group-creator", "no", &Config::repl_group_creator,
                   {{"yes", true}, {"no", false}}),
      Integer("repl-priority", "100", &Config::repl_priority, 0, 1'000'000),
      // Berkeley DB keeps these timeouts in microseconds, in 32 bits.
      Duration("repl-ack-timeout", "1", &Config::repl_ack_timeout_ms, 1,
               3'600'000),
      Duration("repl-heartbeat", "1", &Config::repl_heartbeat_ms, 1,
               3'600'000),
      Duration("repl-election-timeout", "2",
               &Config::repl_election_timeout_ms, 1, 3'600'000),
      Memory("repl-log-retain", "1gb", &Config::repl_log_retain, 0),
      Text("repl-name", "frontierd", &Config::repl_name,
           /*allow_empty=*/false),
      Text("replica-announce-ip", "", &Config::replica_announce_ip,
           /*allow_empty=*/true),
      Integer("replica-announce-port", "0", &Config::replica_announce_port, 0,
              65535),
      // Cluster (docs/cluster.md): the file is read at start and by
      // CLUSTER RELOAD.
      Text("cluster-config-file", "", &Config::cluster_config_file,
           /*allow_empty=*/true),
      Flagged(kDirRuntime, Duration("cluster-forward-timeout", "2",
                                    &Config::cluster_forward_timeout_ms, 1,
                                    3'600'000)),
      Flagged(kDirRuntime, Memory("cluster-forward-max-bytes", "4mb",
                                  &Config::cluster_forward_max_bytes, 1024)),
      // A forwarded command waits this long for its shard to have a
      // master again (a failover) before CLUSTERDOWN; 0: no wait.
      Flagged(kDirRuntime, Duration("cluster-failover-hold", "5",
                                    &Config::cluster_failover_hold_ms, 0,
                                    3'600'000)),
      // The nodes' internal connections over TLS: the map's addresses are
      // then their tls-port (docs/cluster.md).
      Choice<bool>("tls-cluster", "no", &Config::tls_cluster,
                   {{"yes", true}, {"no", false}}),
      Text("cluster-auth-user", "", &Config::cluster_auth_user,
           /*allow_empty=*/true),
      Password("cluster-auth-pass", &Config::cluster_auth_pass),
      // The map in etcd instead of a file: read at start, then followed.
      Text("cluster-etcd", "", &Config::cluster_etcd, /*allow_empty=*/true),
      Text("cluster-name", "frontierd", &Config::cluster_name,
           /*allow_empty=*/false),
  };
  return kTable;
}

}  // namespace

std::span<const Directive> Directives() { return Table(); }

const Directive* FindDirective(std::string_view name) {
  for (const Directive& d : Table()) {
    if (EqualsIgnoreCase(d.name, name)) return &d;
  }
  return nullptr;
}

Config DefaultConfig() {
  Config config;
  for (const Directive& d : Table()) {
    // The defaults are valid by construction; config_test checks it.
    d.set(&config, d.default_value);
  }
  return config;
}

Status SetDirective(Config* config, std::string_view name,
                    std::string_view value) {
  const Directive* d = FindDirective(name);
  if (d == nullptr) {
    return Status::InvalidArgument("unknown directive '" + std::string(name) +
                                   "'");
  }
  if (!d->set(config, value)) {
    std::string why =
        d->explain ? d->explain(*config, value) : "expected " + d->expected;
    if (d->flags & kDirSecret) {
      return Status::InvalidArgument("bad value for '" + std::string(d->name) +
                                     "' (" + why + ")");
    }
    return Status::InvalidArgument("bad value for '" + std::string(d->name) +
                                   "': '" + std::string(value) + "' (" + why +
                                   ")");
  }
  return Status::OK();
}

FrontierOptions ToFrontierOptions(const Config& config) {
  FrontierOptions o;
  o.dir = config.dir;
  o.cache_bytes = config.cache_bytes;
  o.lease_timeout_ms = config.lease_timeout_ms;
  o.max_depth = config.max_depth;
  o.depth_scope = config.depth_scope;
  o.site_max_urls = config.site_max_urls;
  o.politeness_delay_ms = config.politeness_delay_ms;
  o.site_max_leases = config.site_max_leases;
  o.politeness_scope = config.politeness_scope;
  o.politeness_delay_factor = config.politeness_delay_factor;
  o.politeness_max_delay_ms = config.politeness_max_delay_ms;
  o.recrawl_adaptive = config.recrawl_adaptive;
  o.recrawl_inc_rate = config.recrawl_inc_rate;
  o.recrawl_dec_rate = config.recrawl_dec_rate;
  o.recrawl_min_ms = config.recrawl_min_ms;
  o.recrawl_max_ms = config.recrawl_max_ms;
  o.default_priority = config.default_priority;
  o.order = config.order;
  o.max_attempts = config.max_attempts;
  o.max_url_length = config.max_url_length;
  o.max_url_data = config.max_url_data;
  o.backoff_status_codes = config.backoff_status_codes;
  o.backoff_initial_ms = config.backoff_initial_ms;
  o.backoff_max_ms = config.backoff_max_ms;
  o.robots = config.robots;
  o.robots_agent = config.robots_agent;
  o.robots_ttl_ms = config.robots_ttl_ms;
  o.robots_max_bytes = config.robots_max_bytes;
  o.robots_max_crawl_delay_ms = config.robots_max_crawl_delay_ms;
  o.partitions = config.partitions;
  o.scope.hosts = config.scope_hosts;
  o.scope.ref_rule = config.scope_ref;
  o.scope.deny = config.scope_deny;
  o.scope.allow = config.scope_allow;
  o.scope.max_query_params = config.scope_max_query_params;
  o.scope.max_path_segments = config.scope_max_path_segments;
  // fsync no: hand each commit to the OS at once and never fsync it.
  // always/everysec: keep commits in the log buffer until FlushLog().
  o.write_log_at_commit = config.fsync == FsyncPolicy::kNo;
  o.replication = ToReplicationOptions(config);
  return o;
}

const char* FsyncPolicyName(FsyncPolicy policy) {
  switch (policy) {
    case FsyncPolicy::kAlways:
      return "always";
    case FsyncPolicy::kEverySec:
      return "everysec";
    case FsyncPolicy::kNo:
      return "no";
  }
  return "?";
}

}  // namespace frontier
