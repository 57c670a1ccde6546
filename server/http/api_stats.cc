#include "server/http/api_stats.h"

#include <cstdio>
#include <optional>
#include <span>
#include <string>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/replication_view.h"
#include "server/stats_report.h"
#include "server/version.h"

namespace frontier {
namespace {

// Writes one JSON object or array, member by member, with commas.
class Json {
 public:
  explicit Json(std::string* out) : out_(*out) {}

  void Open(char bracket) {
    Comma();
    out_ += bracket;
    first_ = true;
  }
  void Close(char bracket) {
    out_ += bracket;
    first_ = false;
  }
  // A key of the enclosing object; the value follows.
  void Key(std::string_view key) {
    Comma();
    out_ += JsonString(key);
    out_ += ':';
    first_ = true;  // no comma between the key and its value
  }
  void Value(uint64_t v) { Raw(std::to_string(v)); }
  void Value(int64_t v) { Raw(std::to_string(v)); }
  void Value(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.6g", v);
    Raw(buf);
  }
  void Value(bool v) { Raw(v ? "true" : "false"); }
  void Value(std::string_view v) { Raw(JsonString(v)); }
  void Value(const char* v) { Value(std::string_view(v)); }

  template <typename T>
  void Member(std::string_view key, T value) {
    Key(key);
    Value(value);
  }

 private:
  void Comma() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  void Raw(std::string_view text) {
    Comma();
    out_ += text;
  }
  std::string& out_;
  bool first_ = true;
};

void WriteFrontier(Json& j, const StatsSources& src) {
  j.Key("frontier");
  j.Open('{');
  // The default crawl's (between passes the current one is, but a
  // request may come within a pass that switched).
  for (const auto& [name, value] : commands::FrontierStatsFields(
           src.frontier.CrawlStats(Frontier::kDefaultCrawl)
               .value_or(src.frontier.Stats()))) {
    j.Member(name, value);
  }
  const SiteStateCounts sites = src.frontier.SiteStates();
  j.Member("waiting_sites", sites.waiting);
  j.Member("busy_sites", sites.busy);
  j.Close('}');

  // Every crawl's STATS: [{"name": ..., "urls": ..., ...}], DEFAULT first.
  j.Key("crawls");
  j.Open('[');
  for (const std::string& name : src.frontier.ListCrawls()) {
    std::optional<FrontierStats> stats = src.frontier.CrawlStats(name);
    if (!stats) continue;
    j.Open('{');
    j.Member("name", std::string_view(name));
    for (const auto& [field, value] : commands::FrontierStatsFields(*stats)) {
      j.Member(field, value);
    }
    j.Close('}');
  }
  j.Close(']');

  j.Key("largest_sites");
  j.Open('[');
  for (const SiteSize& site : src.frontier.LargestSites(kApiLargestSites)) {
    j.Open('{');
    j.Member("name", std::string_view(site.name));
    j.Member("urls", site.urls);
    j.Member("queued", site.queued);
    j.Member("leased", site.leased);
    j.Close('}');
  }
  j.Close(']');
}

void WriteServer(Json& j, const StatsSources& src, int64_t now_ms) {
  const ServerStats& s = src.stats;
  j.Key("server");
  j.Open('{');
  j.Member("version", kFrontierdVersion);
  j.Member("uptime_ms", now_ms - s.start_ms);
  j.Member("connected_clients", s.connected_clients);
  j.Member("blocked_clients", s.blocked_clients);
  j.Member("maxclients", src.config.maxclients);
  for (const auto& [name, value] : ServerCounters(s)) j.Member(name, value);
  j.Close('}');

  j.Key("clients");
  j.Open('[');
  size_t listed = 0;
  for (const ClientSnapshot& c : src.control.Clients()) {
    if (++listed > kApiMaxClients) break;
    j.Open('{');
    j.Member("id", c.info.id);
    j.Member("addr", std::string_view(c.info.address));
    j.Member("name", std::string_view(c.info.name));
    j.Member("user", std::string_view(c.info.user));
    j.Member("age_ms", now_ms - c.info.created_ms);
    j.Member("idle_ms", now_ms - c.info.last_interaction_ms);
    j.Member("cmd", std::string_view(c.info.last_command));
    j.Member("blocked", c.blocked);
    j.Close('}');
  }
  j.Close(']');
}

void WriteMemory(Json& j, const StatsSources& src) {
  j.Key("memory");
  j.Open('{');
  j.Member("rss_bytes", ProcessRssBytes());
  j.Member("data_bytes", src.frontier.DataBytes());
  j.Member("cache_size_bytes", src.config.cache_bytes);
  auto cache = ReadCacheReport(src.frontier, src.stats);
  if (cache.ok()) {
    j.Member("cache_hits", cache->counters.hits);
    j.Member("cache_misses", cache->counters.misses);
    j.Member("cache_pages_read", cache->counters.pages_in);
    j.Member("cache_pages_written", cache->counters.pages_out);
    j.Member("cache_hit_ratio", cache->hit_ratio);
    j.Member("cache_misses_per_command", cache->misses_per_command);
  }
  j.Close('}');
}

void WritePersistence(Json& j, const StatsSources& src) {
  const ServerStats& s = src.stats;
  const Status writes = src.frontier.WriteStatus();
  j.Key("persistence");
  j.Open('{');
  j.Member("fsync", FsyncPolicyName(src.config.fsync));
  j.Member("log_flushes", s.log_flushes);
  j.Member("last_log_flush_ok", s.last_flush_ok);
  j.Member("log_flush_ns_sum", s.log_flush_ns.sum());
  j.Member("commits_flushed", s.commits_per_flush.sum());
  j.Member("checkpoints", s.checkpoints);
  j.Member("last_checkpoint_ms", s.last_checkpoint_ms);
  j.Member("last_checkpoint_ok", s.last_checkpoint_ok);
  j.Member("last_checkpoint_duration_ms", s.last_checkpoint_duration_ms);
  j.Member("checkpoint_interval_ms", src.config.checkpoint_interval_ms);
  j.Member("recovery_ms", s.recovery_ms);
  j.Member("writes_refused", !writes.ok());
  j.Member(
      "last_write_error",
      std::string_view(writes.ok() ? std::string_view() : writes.message()));
  j.Close('}');
}

void WriteCommands(Json& j, const StatsSources& src) {
  j.Key("commands");
  j.Open('[');
  std::span<const CommandSpec> all = Commands();
  for (size_t i = 0; i < all.size(); ++i) {
    const CommandStat* stat = src.stats.commands.Find(i);
    if (stat == nullptr) continue;
    j.Open('{');
    j.Member("name", all[i].name);
    j.Member("calls", stat->calls);
    j.Member("usec", stat->latency_ns.sum() / 1000);
    j.Close('}');
  }
  j.Close(']');
}

// The replication group as this site sees it (GroupView, as ROLE, INFO and
// SENTINEL report it): the master first, then the replicas.
void WriteReplication(Json& j, const StatsSources& src) {
  const GroupView group = ViewGroup(src.frontier, src.config, src.control);
  const ReplicationRole role = group.state.role;
  j.Key("replication");
  j.Open('{');
  j.Member("role", role == ReplicationRole::kMaster    ? "master"
                   : role == ReplicationRole::kReplica ? "replica"
                                                       : "none");
  j.Member("group_sites", uint64_t{group.state.sites});
  j.Key("sites");
  j.Open('[');
  // offset: the site's log end in bytes (a replica's as it reported it,
  // on a master; lag_seconds -1 before its first report); lag_bytes: what
  // it lacked of the master's log then.
  const bool master = role == ReplicationRole::kMaster;
  auto site = [&j, master](const GroupSite& s, const char* site_role) {
    j.Open('{');
    j.Member("site", std::string_view(s.repl));
    j.Member("role", site_role);
    j.Member("link", s.up ? "up" : "down");
    j.Member("client", s.known() ? s.address() : std::string());
    j.Member("self", s.self);
    if (s.self || master) {
      j.Member("offset", s.lag.offset);
      j.Member("lag_bytes", s.lag.lag_bytes);
      j.Member("lag_seconds", s.lag.lag_seconds);
    }
    j.Close('}');
  };
  if (group.master) site(*group.master, "master");
  for (const GroupSite& s : group.replicas) site(s, "replica");
  j.Close(']');
  j.Close('}');
}

}  // namespace

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      // Keep a well-formed UTF-8 sequence whole; replace anything else.
      size_t len = c >= 0xF0 && c < 0xF5 ? 4
                   : c >= 0xE0           ? 3
                   : c >= 0xC2           ? 2
                                         : 0;
      bool ok = len > 0 && i + len <= s.size();
      for (size_t k = 1; ok && k < len; ++k) {
        ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
      }
      if (ok) {
        out.append(s.substr(i, len));
        i += len - 1;
      } else {
        out += "\xEF\xBF\xBD";
      }
    }
  }
  out += '"';
  return out;
}

std::string RenderApiStats(const StatsSources& src, int64_t now_ms) {
  std::string out;
  Json j(&out);
  j.Open('{');
  j.Member("time_ms", now_ms);
  WriteServer(j, src, now_ms);
  WriteFrontier(j, src);
  WriteMemory(j, src);
  WritePersistence(j, src);
  WriteCommands(j, src);
  WriteReplication(j, src);
  j.Close('}');
  return out;
}

}  // namespace frontier
