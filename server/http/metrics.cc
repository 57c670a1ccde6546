#include "server/http/metrics.h"

#include <cinttypes>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/histogram.h"
#include "server/partitions.h"
#include "server/replication_view.h"
#include "server/stats_report.h"
#include "server/version.h"
#include "urlfrontier/rpc_stats.h"

namespace frontier {
namespace {

// A number as Prometheus reads it: integers exactly, fractions without
// trailing zeros ("0.000005", not "5e-06", so le labels read naturally).
std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  if (std::string_view(buf).find('e') == std::string_view::npos) return buf;
  std::snprintf(buf, sizeof(buf), "%.9f", v);
  std::string s(buf);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}
std::string Number(uint64_t v) { return std::to_string(v); }

// Appends metric families: a HELP and a TYPE line, then samples.
class Exposition {
 public:
  explicit Exposition(std::string* out) : out_(*out) {}

  void Family(std::string_view name, std::string_view type,
              std::string_view help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }
  // `labels` is "" or `key="value",...` (values already safe).
  void Sample(std::string_view name, std::string_view labels,
              const std::string& value) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      out_ += labels;
      out_ += '}';
    }
    out_ += ' ';
    out_ += value;
    out_ += '\n';
  }
  void One(std::string_view name, std::string_view type, std::string_view help,
           const std::string& value) {
    Family(name, type, help);
    Sample(name, "", value);
  }
  // The _bucket/_sum/_count series of `h`; `scale` turns its integer
  // observations into the metric's unit (1e-9 for nanoseconds).
  void HistogramSamples(std::string_view name, std::string_view labels,
                        const Histogram& h, double scale) {
    const std::string bucket = std::string(name) + "_bucket";
    const std::string prefix =
        labels.empty() ? std::string() : std::string(labels) + ",";
    uint64_t cumulative = 0;
    std::span<const uint64_t> bounds = h.bounds();
    for (size_t i = 0; i < bounds.size(); ++i) {
      cumulative += h.bucket(i);
      Sample(bucket, prefix + "le=\"" + Number(bounds[i] * scale) + "\"",
             Number(cumulative));
    }
    cumulative += h.bucket(bounds.size());
    Sample(bucket, prefix + "le=\"+Inf\"", Number(cumulative));
    Sample(std::string(name) + "_sum", labels,
           Number(static_cast<double>(h.sum()) * scale));
    Sample(std::string(name) + "_count", labels, Number(h.count()));
  }

 private:
  std::string& out_;
};

// STATS fields as metrics. Fields that are one state of several share a
// family with a label, so that sum() over it means something.
struct FieldMetric {
  std::string_view field;  // FrontierStatsFields / ServerCounters name
  std::string_view metric;
  std::string_view type;
  std::string_view help;
  std::string_view label = {};  // `state="queued"`, for a labelled family
};

constexpr FieldMetric kFrontierMetrics[] = {
    {"urls", "frontierd_urls", "gauge", "URLs known to the frontier."},
    {"queued", "frontierd_urls_by_state", "gauge",
     "URLs by state (queued, leased, done, scheduled, dead, excluded).",
     "state=\"queued\""},
    {"leased", "frontierd_urls_by_state", "", "", "state=\"leased\""},
    {"done", "frontierd_urls_by_state", "", "", "state=\"done\""},
    {"scheduled", "frontierd_urls_by_state", "", "", "state=\"scheduled\""},
    {"dead", "frontierd_urls_by_state", "", "", "state=\"dead\""},
    {"excluded", "frontierd_urls_by_state", "", "", "state=\"excluded\""},
    {"sites", "frontierd_sites", "gauge", "Sites known to the frontier."},
    // ready_sites is rendered with the other site states below.
    {"added", "frontierd_urls_added_total", "counter",
     "URLs added (new to the frontier)."},
    {"duplicates", "frontierd_urls_duplicate_total", "counter",
     "URLs added that were known already."},
    {"refused", "frontierd_urls_refused_total", "counter",
     "URLs refused (depth, per-site limit, invalid); out of scope is "
     "counted apart."},
    {"popped", "frontierd_urls_popped_total", "counter",
     "URLs handed out by POP and BPOP."},
    {"confirmed", "frontierd_urls_confirmed_total", "counter",
     "URLs confirmed as fetched."},
    {"failed", "frontierd_urls_failed_total", "counter",
     "URL fetches reported as failed."},
    {"expired", "frontierd_leases_expired_total", "counter",
     "Leases that ran out before a CONFIRM or FAIL."},
    {"recrawled", "frontierd_urls_recrawled_total", "counter",
     "URLs queued again for a recrawl."},
    {"confirmed_2xx", "frontierd_urls_confirmed_by_status_total", "counter",
     "CONFIRMs that reported a STATUS, by status class.", "class=\"2xx\""},
    {"confirmed_3xx", "frontierd_urls_confirmed_by_status_total", "", "",
     "class=\"3xx\""},
    {"confirmed_4xx", "frontierd_urls_confirmed_by_status_total", "", "",
     "class=\"4xx\""},
    {"confirmed_5xx", "frontierd_urls_confirmed_by_status_total", "", "",
     "class=\"5xx\""},
    {"blocked_sites", "frontierd_sites_blocked", "gauge",
     "Sites blocked by SITE BLOCK or a back-off (429/503) right now."},
    {"backoffs", "frontierd_backoffs_total", "counter",
     "FAILs whose STATUS blocked their site (backoff-status-codes)."},
    {"scope_refused_host", "frontierd_urls_out_of_scope_total", "counter",
     "Links ADD and MADD refused as out of scope, by the rule that refused "
     "them.",
     "reason=\"host\""},
    {"scope_refused_ref", "frontierd_urls_out_of_scope_total", "", "",
     "reason=\"ref\""},
    {"scope_refused_query", "frontierd_urls_out_of_scope_total", "", "",
     "reason=\"query\""},
    {"scope_refused_path", "frontierd_urls_out_of_scope_total", "", "",
     "reason=\"path\""},
    {"scope_refused_deny", "frontierd_urls_out_of_scope_total", "", "",
     "reason=\"deny\""},
    {"scope_refused_allow", "frontierd_urls_out_of_scope_total", "", "",
     "reason=\"allow\""},
    {"scope_removed", "frontierd_urls_scope_removed_total", "counter",
     "Queued URLs a SCOPE RECHECK removed as out of scope."},
};

constexpr FieldMetric kServerMetrics[] = {
    {"total_connections_received", "frontierd_connections_received_total",
     "counter", "RESP connections accepted."},
    {"total_commands_processed", "frontierd_commands_processed_total",
     "counter", "RESP commands processed."},
    {"rejected_connections", "frontierd_rejected_connections_total", "counter",
     "Connections refused because maxclients was reached."},
    {"protocol_errors", "frontierd_protocol_errors_total", "counter",
     "Clients closed for a RESP protocol error."},
    {"client_query_buffer_limit_disconnections",
     "frontierd_client_query_buffer_limit_disconnections_total", "counter",
     "Clients closed by client-query-buffer-limit."},
    {"client_output_buffer_limit_disconnections",
     "frontierd_client_output_buffer_limit_disconnections_total", "counter",
     "Clients closed by client-output-buffer-limit."},
    {"bpop_timeouts", "frontierd_bpop_timeouts_total", "counter",
     "BPOP calls that timed out without a URL."},
    {"event_loop_passes", "frontierd_event_loop_passes_total", "counter",
     "Event loop passes (group commit opportunities)."},
    {"failed_passes", "frontierd_failed_passes_total", "counter",
     "Passes whose one transaction failed; their commands got the error."},
};

template <typename Fields>
void RenderFields(Exposition& x, std::span<const FieldMetric> metrics,
                  const Fields& fields) {
  for (const FieldMetric& m : metrics) {
    for (const auto& [name, value] : fields) {
      if (name != m.field) continue;
      if (!m.type.empty()) x.Family(m.metric, m.type, m.help);
      x.Sample(m.metric, m.label, Number(value));
    }
  }
}

void RenderServer(Exposition& x, const StatsSources& src, int64_t now_ms) {
  const ServerStats& s = src.stats;
  x.Family("frontierd_build_info", "gauge",
           "Always 1; the version is in the label.");
  x.Sample("frontierd_build_info",
           std::string("version=\"") + kFrontierdVersion + "\"", "1");
  x.One("frontierd_start_time_seconds", "gauge",
        "When the server started, in seconds since the Unix epoch.",
        Number(s.start_ms / 1000.0));
  x.One("frontierd_uptime_seconds", "gauge",
        "Seconds since the server started.",
        Number((now_ms - s.start_ms) / 1000.0));
  x.One("frontierd_connected_clients", "gauge", "RESP clients connected.",
        Number(s.connected_clients));
  x.One("frontierd_blocked_clients", "gauge", "RESP clients waiting in BPOP.",
        Number(s.blocked_clients));
  x.One("frontierd_max_clients", "gauge", "The maxclients directive.",
        Number(src.config.maxclients));
  x.One("frontierd_pubsub_channels", "gauge",
        "Channels with at least one subscriber.",
        Number(src.pubsub.NumChannels()));
  x.One("frontierd_pubsub_patterns", "gauge",
        "Patterns subscribed to (PSUBSCRIBE), counted once per pattern.",
        Number(src.pubsub.NumPatterns()));
  RenderFields(x, kServerMetrics, ServerCounters(s));
}

void RenderMemory(Exposition& x, const StatsSources& src) {
  x.One("frontierd_resident_memory_bytes", "gauge",
        "Resident set size of the server process.", Number(ProcessRssBytes()));
  x.One("frontierd_data_bytes", "gauge",
        "Bytes of data files on disk (approximate).",
        Number(src.frontier.DataBytes()));
  x.One("frontierd_cache_size_bytes", "gauge",
        "The Berkeley DB cache size (cache-size).",
        Number(src.config.cache_bytes));
  auto cache = ReadCacheReport(src.frontier, src.stats);
  if (!cache.ok()) return;
  x.One("frontierd_db_cache_hits_total", "counter",
        "Berkeley DB cache lookups that found the page in memory.",
        Number(cache->counters.hits));
  x.One("frontierd_db_cache_misses_total", "counter",
        "Berkeley DB cache lookups that read the page from disk.",
        Number(cache->counters.misses));
  x.One("frontierd_db_cache_pages_read_total", "counter",
        "Pages Berkeley DB read from the data files into its cache.",
        Number(cache->counters.pages_in));
  x.One("frontierd_db_cache_pages_written_total", "counter",
        "Pages Berkeley DB wrote from its cache to the data files.",
        Number(cache->counters.pages_out));
  x.One("frontierd_db_cache_hit_ratio", "gauge",
        "Cache hits / lookups since start (0 before the first lookup).",
        Number(cache->hit_ratio));
  x.One("frontierd_db_cache_misses_per_command", "gauge",
        "Cache misses since the last CONFIG RESETSTAT / commands processed "
        "since then (0 before the first command).",
        Number(cache->misses_per_command));
}

// A crawl name as a label value: `\` and `"` escaped (a name holds no
// control character, so no newline).
std::string CrawlLabel(std::string_view name) {
  std::string out = "crawl=\"";
  for (char c : name) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + '"';
}

// With more than one crawl: each crawl's URLs by state and its main
// counters, labelled crawl="name" (docs/commands.md#crawls). The
// unlabelled families above are the default crawl's.
void RenderCrawls(Exposition& x, const StatsSources& src) {
  const std::vector<std::string> names = src.frontier.ListCrawls();
  if (names.size() < 2) return;
  std::vector<std::pair<std::string, FrontierStats>> crawls;
  for (const std::string& name : names) {
    std::optional<FrontierStats> s = src.frontier.CrawlStats(name);
    if (s) crawls.emplace_back(CrawlLabel(name), *s);
  }
  struct Family {
    const char* name;
    const char* type;
    const char* help;
    uint64_t FrontierStats::*field;
    const char* state;  // a state label, or nullptr
  };
  static constexpr Family kFamilies[] = {
      {"frontierd_crawl_urls", "gauge", "URLs known, per crawl.",
       &FrontierStats::urls, nullptr},
      {"frontierd_crawl_urls_by_state", "gauge",
       "URLs by state (queued, leased, done, scheduled, dead), per crawl.",
       &FrontierStats::queued, "queued"},
      {"frontierd_crawl_urls_by_state", "", "", &FrontierStats::leased,
       "leased"},
      {"frontierd_crawl_urls_by_state", "", "", &FrontierStats::done, "done"},
      {"frontierd_crawl_urls_by_state", "", "", &FrontierStats::scheduled,
       "scheduled"},
      {"frontierd_crawl_urls_by_state", "", "", &FrontierStats::dead, "dead"},
      {"frontierd_crawl_urls_added_total", "counter",
       "URLs added (new to the crawl), per crawl.", &FrontierStats::added,
       nullptr},
      {"frontierd_crawl_urls_popped_total", "counter",
       "URLs handed out by POP and BPOP, per crawl.", &FrontierStats::popped,
       nullptr},
      {"frontierd_crawl_urls_confirmed_total", "counter",
       "URLs confirmed as fetched, per crawl.", &FrontierStats::confirmed,
       nullptr},
  };
  for (const Family& f : kFamilies) {
    if (*f.type != '\0') x.Family(f.name, f.type, f.help);
    for (const auto& [label, stats] : crawls) {
      std::string labels = label;
      if (f.state != nullptr)
        labels += std::string(",state=\"") + f.state + '"';
      x.Sample(f.name, labels, Number(stats.*f.field));
    }
  }
}

void RenderFrontier(Exposition& x, const StatsSources& src) {
  const FrontierStats stats = src.frontier.CrawlStats(Frontier::kDefaultCrawl)
                                  .value_or(src.frontier.Stats());
  RenderFields(x, kFrontierMetrics, commands::FrontierStatsFields(stats));
  const SiteStateCounts sites = src.frontier.SiteStates();
  x.Family("frontierd_sites_by_state", "gauge",
           "Sites with queued URLs by scheduler state: ready (may be popped "
           "now), waiting (politeness delay), busy (at site-max-leases).");
  x.Sample("frontierd_sites_by_state", "state=\"ready\"",
           Number(stats.ready_sites));
  x.Sample("frontierd_sites_by_state", "state=\"waiting\"",
           Number(sites.waiting));
  x.Sample("frontierd_sites_by_state", "state=\"busy\"",
           Number(sites.busy));
}

// One sample per partition of each family (docs/commands.md#partitions),
// the same numbers as PARTITION INFO and HINT. Partition names hold no
// character a label value must escape.
void RenderPartitions(Exposition& x, const StatsSources& src) {
  const partition::PartitionMap& map = src.frontier.options().partitions;
  std::vector<PartitionStats> parts;
  for (size_t i = 0; i < map.size(); ++i) {
    parts.push_back(src.frontier.PartitionInfo(i));
  }
  auto label = [&map](size_t i) { return "partition=\"" + map.name(i) + "\""; };
  struct Family {
    const char* name;
    const char* type;
    const char* help;
    uint64_t PartitionStats::*field;
  };
  static constexpr Family kFamilies[] = {
      {"frontierd_partition_sites", "gauge", "Sites known, per partition.",
       &PartitionStats::sites},
      {"frontierd_partition_ready_sites", "gauge",
       "Sites a POP could take a URL from now, per partition.",
       &PartitionStats::ready_sites},
      {"frontierd_partition_queued_urls", "gauge",
       "URLs queued, per partition.", &PartitionStats::queued},
      {"frontierd_partition_leased_urls", "gauge",
       "URLs leased to workers, per partition.", &PartitionStats::leased},
      {"frontierd_partition_capacity", "gauge",
       "Fetches the partition could run at once under politeness now (the "
       "n of its hints).",
       &PartitionStats::capacity},
      {"frontierd_partition_popped_total", "counter",
       "URLs handed out since start, per partition.", &PartitionStats::popped},
      {"frontierd_partition_confirmed_total", "counter",
       "URLs confirmed since start, per partition.",
       &PartitionStats::confirmed},
  };
  for (const Family& f : kFamilies) {
    x.Family(f.name, f.type, f.help);
    for (size_t i = 0; i < parts.size(); ++i) {
      x.Sample(f.name, label(i), Number(parts[i].*f.field));
    }
  }
  x.Family("frontierd_partition_waiting_clients", "gauge",
           "BPOP clients waiting on the partition.");
  for (size_t i = 0; i < parts.size(); ++i) {
    const uint64_t waiting = WaitersOf(
        src.frontier, i,
        [&src](std::string_view name) { return src.control.WaitingOn(name); });
    x.Sample("frontierd_partition_waiting_clients", label(i), Number(waiting));
  }
}

void RenderPersistence(Exposition& x, const StatsSources& src, int64_t now_ms) {
  const ServerStats& s = src.stats;
  x.One("frontierd_log_flushes_total", "counter",
        "Transaction log flushes (fsyncs).", Number(s.log_flushes));
  x.One("frontierd_last_log_flush_success", "gauge",
        "1 if the last log flush succeeded.", s.last_flush_ok ? "1" : "0");
  x.Family("frontierd_log_flush_duration_seconds", "histogram",
           "How long each transaction log flush (fsync) took.");
  x.HistogramSamples("frontierd_log_flush_duration_seconds", "", s.log_flush_ns,
                     1e-9);
  x.Family("frontierd_log_flush_commits", "histogram",
           "Transactions made durable by one log flush (group commit "
           "batch size).");
  x.HistogramSamples("frontierd_log_flush_commits", "", s.commits_per_flush,
                     1.0);
  x.One("frontierd_checkpoints_total", "counter", "Checkpoints done.",
        Number(s.checkpoints));
  x.One("frontierd_last_checkpoint_success", "gauge",
        "1 if the last checkpoint succeeded.",
        s.last_checkpoint_ok ? "1" : "0");
  x.One("frontierd_last_checkpoint_timestamp_seconds", "gauge",
        "When the last checkpoint finished (0: none since start).",
        Number(s.last_checkpoint_ms / 1000.0));
  if (s.last_checkpoint_ms > 0) {
    x.One("frontierd_last_checkpoint_age_seconds", "gauge",
          "Seconds since the last checkpoint.",
          Number((now_ms - s.last_checkpoint_ms) / 1000.0));
  }
  x.One("frontierd_last_checkpoint_duration_seconds", "gauge",
        "How long the last checkpoint took.",
        Number(s.last_checkpoint_duration_ms / 1000.0));
  x.One("frontierd_pages_written_behind_total", "counter",
        "Cache pages written ahead of a checkpoint, so that the "
        "checkpoint itself has little left to write.",
        Number(src.frontier.pages_written_behind()));
  x.One("frontierd_recovery_duration_seconds", "gauge",
        "How long opening the data (recovery included) took at start.",
        Number(s.recovery_ms / 1000.0));
  x.One("frontierd_writes_refused", "gauge",
        "1 while the data directory refuses writes (a full disk): write "
        "commands get -MISCONF.",
        src.frontier.WriteStatus().ok() ? "0" : "1");
}

void RenderCommands(Exposition& x, const StatsSources& src) {
  std::span<const CommandSpec> all = Commands();
  x.Family("frontierd_command_calls_total", "counter",
           "Calls of each command (that passed the arity and auth checks).");
  for (size_t i = 0; i < all.size(); ++i) {
    const CommandStat* stat = src.stats.commands.Find(i);
    x.Sample("frontierd_command_calls_total",
             "command=\"" + std::string(all[i].name) + "\"",
             Number(stat ? stat->calls : 0));
  }
  x.Family("frontierd_command_duration_seconds", "histogram",
           "How long each command took to execute in the event loop (not "
           "counting the wait for a log flush).");
  for (size_t i = 0; i < all.size(); ++i) {
    if (const CommandStat* stat = src.stats.commands.Find(i)) {
      x.HistogramSamples("frontierd_command_duration_seconds",
                         "command=\"" + std::string(all[i].name) + "\"",
                         stat->latency_ns, 1e-9);
    }
  }
}

// With replication (docs/replication.md): this site's role and its group
// as it sees it; nothing with replication no.
void RenderReplication(Exposition& x, const StatsSources& src) {
  const GroupView group = ViewGroup(src.frontier, src.config, src.control);
  const ReplicationState& st = group.state;
  if (st.role == ReplicationRole::kNone) return;
  x.One("frontierd_replication_is_master", "gauge",
        "1 if this site is its replication group's master, else 0.",
        Number(uint64_t{st.role == ReplicationRole::kMaster}));
  x.One("frontierd_replication_master_link_up", "gauge",
        "1 while this site has a master it reaches (itself, on a master).",
        Number(uint64_t{group.master && group.master->up}));
  x.One("frontierd_replication_sites", "gauge",
        "Sites in the replication group, this one included, as it knows it.",
        Number(uint64_t{st.sites}));
  x.One("frontierd_replication_connected_peers", "gauge",
        "Other sites of the group with a live connection to this one.",
        Number(uint64_t{st.connected_peers}));
  x.One("frontierd_replication_perm_failed_total", "counter",
        "Commits a quorum did not acknowledge within repl-ack-timeout "
        "(their pass answered NOQUORUM).",
        Number(st.perm_failed));
  x.One("frontierd_replication_elections_won_total", "counter",
        "Elections this site won.", Number(st.elections_won));
  x.One("frontierd_replication_log_offset", "gauge",
        "The end of this site's transaction log, in bytes (the same on "
        "every site once it has every record).",
        Number(st.log_offset));
  x.Family("frontierd_replication_peer_up", "gauge",
           "1 while the peer's replication connection is up; labelled with "
           "its replication address, where clients reach it and its role.");
  for (const GroupSite& peer : group.peers) {
    const bool master = group.master && group.master->repl == peer.repl;
    // Addresses hold no `"` or `\`: host names, IP literals and ports.
    x.Sample("frontierd_replication_peer_up",
             "peer=\"" + peer.repl + "\",client=\"" +
                 (peer.known() ? peer.address() : "") + "\",role=\"" +
                 (master ? "master" : "replica") + "\"",
             Number(uint64_t{peer.up}));
  }
  if (st.role != ReplicationRole::kMaster) return;
  // On the master: each replica's position, as it reports it once a
  // second (docs/replication.md, "Replica offsets and lag").
  struct PeerFamily {
    const char* name;
    const char* help;
    int64_t (*value)(const ReplicaLag&);
  };
  static constexpr PeerFamily kPeerFamilies[] = {
      {"frontierd_replication_peer_offset",
       "A replica's log end in bytes, as it last reported it (0 before).",
       [](const ReplicaLag& l) { return static_cast<int64_t>(l.offset); }},
      {"frontierd_replication_peer_lag_bytes",
       "Bytes of the master's log a replica lacked at its last report.",
       [](const ReplicaLag& l) { return static_cast<int64_t>(l.lag_bytes); }},
      {"frontierd_replication_peer_report_age_seconds",
       "Whole seconds since a replica's last report (-1: none yet).",
       [](const ReplicaLag& l) { return l.lag_seconds; }},
  };
  for (const PeerFamily& f : kPeerFamilies) {
    x.Family(f.name, "gauge", f.help);
    for (const GroupSite& peer : group.replicas) {
      if (peer.self) continue;
      x.Sample(f.name, "peer=\"" + peer.repl + "\"",
               std::to_string(f.value(peer.lag)));
    }
  }
}

// The URL Frontier gRPC door's counters, per rpc (INFO's # URLFrontier).
void RenderUrlFrontier(Exposition& x, const StatsSources& src) {
  const urlfrontier::RpcStats* stats = src.stats.urlfrontier;
  if (stats == nullptr) return;
  struct Family {
    const char* name;
    const char* type;
    const char* help;
    uint64_t urlfrontier::RpcStats::Counts::*field;
  };
  static constexpr Family kFamilies[] = {
      {"frontierd_urlfrontier_calls_total", "counter",
       "URL Frontier gRPC calls started, per rpc.",
       &urlfrontier::RpcStats::Counts::calls},
      {"frontierd_urlfrontier_errors_total", "counter",
       "URL Frontier gRPC calls that ended with an error status, per rpc.",
       &urlfrontier::RpcStats::Counts::errors},
      {"frontierd_urlfrontier_open_calls", "gauge",
       "URL Frontier gRPC calls (streams included) open now, per rpc.",
       &urlfrontier::RpcStats::Counts::open},
  };
  for (const Family& f : kFamilies) {
    x.Family(f.name, f.type, f.help);
    for (size_t i = 0; i < urlfrontier::kRpcCount; ++i) {
      const auto rpc = static_cast<urlfrontier::Rpc>(i);
      x.Sample(f.name, "rpc=\"" + std::string(urlfrontier::RpcName(rpc)) + "\"",
               Number(stats->Read(rpc).*f.field));
    }
  }
}

}  // namespace

std::string RenderMetrics(const StatsSources& src, int64_t now_ms) {
  std::string out;
  out.reserve(32 * 1024);
  Exposition x(&out);
  RenderServer(x, src, now_ms);
  RenderMemory(x, src);
  RenderFrontier(x, src);
  RenderCrawls(x, src);
  RenderPartitions(x, src);
  RenderPersistence(x, src, now_ms);
  RenderCommands(x, src);
  RenderReplication(x, src);
  RenderUrlFrontier(x, src);
  return out;
}

}  // namespace frontier
