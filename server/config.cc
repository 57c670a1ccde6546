#include "server/config.h"

#include <arpa/inet.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "robots/agent_rules.h"
#include "server/args.h"

namespace frontier {
namespace {

// --- Value kinds. Each returns a Directive bound to one Config member. ---

template <typename T>
Directive Integer(std::string_view name, std::string_view def, T Config::*m,
                  int64_t min, int64_t max) {
  std::string expected =
      "an integer " + std::to_string(min) + ".." + std::to_string(max);
  if (max == std::numeric_limits<int64_t>::max()) {
    expected = "an integer >= " + std::to_string(min);
  }
  return Directive{name, def, std::move(expected),
                   [m, min, max](Config* c, std::string_view v) {
                     std::optional<int64_t> n = ParseInt64(v);
                     if (!n || *n < min || *n > max) return false;
                     c->*m = static_cast<T>(*n);
                     return true;
                   },
                   [m](const Config& c) { return std::to_string(c.*m); }};
}

// Seconds with decimals, stored as milliseconds, at least `min_ms` and at
// most `max_ms`.
Directive Duration(std::string_view name, std::string_view def,
                   int64_t Config::*m, int64_t min_ms,
                   int64_t max_ms = std::numeric_limits<int64_t>::max()) {
  std::string expected = min_ms > 0 ? "a positive number of seconds"
                                    : "a non-negative number of seconds";
  if (max_ms != std::numeric_limits<int64_t>::max()) {
    expected += ", at most " + FormatSeconds(max_ms);
  }
  return Directive{name, def, std::move(expected),
                   [m, min_ms, max_ms](Config* c, std::string_view v) {
                     std::optional<int64_t> ms = ParseDurationMs(v);
                     if (!ms || *ms < min_ms || *ms > max_ms) return false;
                     c->*m = *ms;
                     return true;
                   },
                   [m](const Config& c) { return FormatSeconds(c.*m); }};
}

// The shortest decimal that reads back as `v` ("0.4", not
// "0.40000000000000002"), so CONFIG GET and REWRITE print what was set.
std::string FormatDecimal(double v) {
  char buf[400];  // the longest fixed form of a double fits
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

// A finite decimal number ("0.4", "2", "1e-3") within [min, max].
Directive Decimal(std::string_view name, std::string_view def,
                  double Config::*m, double min, double max) {
  std::string expected =
      "a number " + FormatDecimal(min) + ".." + FormatDecimal(max);
  return Directive{
      name, def, std::move(expected),
      [m, min, max](Config* c, std::string_view v) {
        std::string text(v);
        char* end = nullptr;
        errno = 0;
        const double d = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || errno != 0 ||
            !std::isfinite(d) || d < min || d > max ||
            std::isspace(static_cast<unsigned char>(text.front()))) {
          return false;
        }
        c->*m = d;
        return true;
      },
      [m](const Config& c) { return FormatDecimal(c.*m); }};
}

template <typename E>
Directive Choice(std::string_view name, std::string_view def, E Config::*m,
                 std::vector<std::pair<std::string_view, E>> choices) {
  std::string expected;
  for (const auto& [word, value] : choices) {
    if (!expected.empty()) expected += '|';
    expected += word;
  }
  expected = "one of " + expected;
  return Directive{name, def, std::move(expected),
                   [m, choices](Config* c, std::string_view v) {
                     for (const auto& [word, value] : choices) {
                       if (EqualsIgnoreCase(v, word)) {
                         c->*m = value;
                         return true;
                       }
                     }
                     return false;
                   },
                   [m, choices](const Config& c) {
                     for (const auto& [word, value] : choices) {
                       if (c.*m == value) return std::string(word);
                     }
                     return std::string();
                   }};
}

// Redis's memory units: k=1000, kb=1024, m=10^6, mb=2^20, g=10^9, gb=2^30.
std::optional<uint64_t> ParseMemory(std::string_view v) {
  static const std::pair<std::string_view, uint64_t> kUnits[] = {
      {"kb", 1ull << 10},
      {"mb", 1ull << 20},
      {"gb", 1ull << 30},
      {"k", 1000},
      {"m", 1000000},
      {"g", 1000000000},
      {"b", 1}};
  uint64_t unit = 1;
  for (const auto& [suffix, mult] : kUnits) {
    if (v.size() > suffix.size() &&
        EqualsIgnoreCase(v.substr(v.size() - suffix.size()), suffix)) {
      unit = mult;
      v.remove_suffix(suffix.size());
      break;
    }
  }
  std::optional<int64_t> n = ParseInt64(v);
  if (!n || *n < 0) return std::nullopt;
  uint64_t count = static_cast<uint64_t>(*n);
  if (count > std::numeric_limits<uint64_t>::max() / unit) return std::nullopt;
  return count * unit;
}

std::string FormatMemory(uint64_t bytes) {
  if (bytes != 0 && bytes % (1ull << 30) == 0) {
    return std::to_string(bytes >> 30) + "gb";
  }
  if (bytes != 0 && bytes % (1ull << 20) == 0) {
    return std::to_string(bytes >> 20) + "mb";
  }
  return std::to_string(bytes);
}

Directive Memory(std::string_view name, std::string_view def,
                 uint64_t Config::*m, uint64_t min) {
  return Directive{name, def,
                   "a size in bytes, or with a k/kb/m/mb/g/gb suffix, of at "
                   "least " +
                       FormatMemory(min),
                   [m, min](Config* c, std::string_view v) {
                     std::optional<uint64_t> n = ParseMemory(v);
                     if (!n || *n < min) return false;
                     c->*m = *n;
                     return true;
                   },
                   [m](const Config& c) { return FormatMemory(c.*m); }};
}

Directive Text(std::string_view name, std::string_view def,
               std::string Config::*m, bool allow_empty) {
  return Directive{name, def,
                   allow_empty ? "a path, or \"\"" : "a non-empty path",
                   [m, allow_empty](Config* c, std::string_view v) {
                     if (v.empty() && !allow_empty) return false;
                     c->*m = std::string(v);
                     return true;
                   },
                   [m](const Config& c) { return c.*m; }};
}

// HTTP status codes (100..599) separated by spaces; "" = none.
Directive StatusCodes(std::string_view name, std::string_view def,
                      std::vector<int> Config::*m) {
  return Directive{name, def,
                   "HTTP status codes (100..599) separated by spaces, or \"\"",
                   [m](Config* c, std::string_view v) {
                     std::vector<int> codes;
                     std::istringstream words{std::string(v)};
                     for (std::string word; words >> word;) {
                       std::optional<int64_t> n = ParseInt64(word);
                       if (!n || *n < 100 || *n > 599) return false;
                       codes.push_back(static_cast<int>(*n));
                     }
                     c->*m = std::move(codes);
                     return true;
                   },
                   [m](const Config& c) {
                     std::string out;
                     for (int code : c.*m) {
                       if (!out.empty()) out += ' ';
                       out += std::to_string(code);
                     }
                     return out;
                   }};
}

// robots-agent: an RFC 9309 product token (robots/agent_rules.h), the only
// kind of name a robots.txt group can match.
Directive ProductToken(std::string_view name, std::string_view def,
                       std::string Config::*m) {
  return Directive{name, def,
                   "a product token: letters, '_' and '-' only",
                   [m](Config* c, std::string_view v) {
                     if (!robots::IsValidProductToken(v)) return false;
                     c->*m = std::string(v);
                     return true;
                   },
                   [m](const Config& c) { return c.*m; }};
}

bool IsIpLiteral(const std::string& text) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, text.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

Directive AddressList(std::string_view name, std::string_view def,
                      std::vector<std::string> Config::*m) {
  return Directive{name, def,
                   "one or more IPv4 or IPv6 addresses separated by spaces",
                   [m](Config* c, std::string_view v) {
                     std::vector<std::string> addresses;
                     std::istringstream words{std::string(v)};
                     for (std::string word; words >> word;) {
                       if (!IsIpLiteral(word)) return false;
                       addresses.push_back(word);
                     }
                     if (addresses.empty()) return false;
                     c->*m = std::move(addresses);
                     return true;
                   },
                   [m](const Config& c) {
                     std::string out;
                     for (const std::string& a : c.*m) {
                       if (!out.empty()) out += ' ';
                       out += a;
                     }
                     return out;
                   }};
}

// client-output-buffer-limit: one or more "<class> <hard> <soft>
// <soft-seconds>" groups, the sizes with Redis's units; each group sets its
// class and leaves the other alone, as in Redis. The classes are normal and
// pubsub; Redis's replica class has no clients here and is refused rather
// than ignored.
Directive OutputLimit(std::string_view name, std::string_view def,
                      OutputBufferLimit Config::*normal,
                      OutputBufferLimit Config::*pubsub) {
  return Directive{
      name, def,
      "normal|pubsub <hard> <soft> <soft-seconds> (repeatable), sizes in "
      "bytes or with a k/kb/m/mb/g/gb suffix, 0 = no limit",
      [normal, pubsub](Config* c, std::string_view v) {
        std::istringstream words{std::string(v)};
        Config updated = *c;
        bool any = false;
        for (std::string cls; words >> cls;) {
          std::string hard, soft, seconds;
          if (!(words >> hard >> soft >> seconds)) return false;
          OutputBufferLimit Config::*m = nullptr;
          if (EqualsIgnoreCase(cls, "normal")) m = normal;
          if (EqualsIgnoreCase(cls, "pubsub")) m = pubsub;
          std::optional<uint64_t> h = ParseMemory(hard);
          std::optional<uint64_t> s = ParseMemory(soft);
          std::optional<int64_t> secs = ParseInt64(seconds);
          if (m == nullptr || !h || !s || !secs || *secs < 0 ||
              *secs > std::numeric_limits<int>::max()) {
            return false;
          }
          updated.*m = OutputBufferLimit{*h, *s, *secs};
          any = true;
        }
        if (!any) return false;
        *c = std::move(updated);
        return true;
      },
      [normal, pubsub](const Config& c) {
        auto group = [&c](std::string_view cls, OutputBufferLimit Config::*m) {
          const OutputBufferLimit& l = c.*m;
          return std::string(cls) + " " + FormatMemory(l.hard_bytes) + " " +
                 FormatMemory(l.soft_bytes) + " " +
                 std::to_string(l.soft_seconds);
        };
        return group("normal", normal) + " " + group("pubsub", pubsub);
      }};
}

// tls-protocols: "TLSv1.2", "TLSv1.3" or both, separated by spaces; "" is
// both, as in Redis. Older versions are not offered (RFC 8996).
Directive TlsProtocols(std::string_view name, std::string_view def,
                       uint32_t Config::*m) {
  static constexpr std::pair<std::string_view, uint32_t> kNames[] = {
      {"TLSv1.2", kTlsV12}, {"TLSv1.3", kTlsV13}};
  return Directive{name, def, "TLSv1.2, TLSv1.3 or both, separated by spaces",
                   [m](Config* c, std::string_view v) {
                     uint32_t bits = 0;
                     std::istringstream words{std::string(v)};
                     for (std::string word; words >> word;) {
                       uint32_t bit = 0;
                       for (const auto& [text, value] : kNames) {
                         if (EqualsIgnoreCase(word, text)) bit = value;
                       }
                       if (bit == 0) return false;
                       bits |= bit;
                     }
                     c->*m = bits == 0 ? (kTlsV12 | kTlsV13) : bits;
                     return true;
                   },
                   [m](const Config& c) {
                     std::string out;
                     for (const auto& [text, value] : kNames) {
                       if ((c.*m & value) == 0) continue;
                       if (!out.empty()) out += ' ';
                       out += text;
                     }
                     return out;
                   }};
}

// Adds DirectiveFlag bits to a directive.
Directive Flagged(uint32_t flags, Directive d) {
  d.flags |= flags;
  return d;
}

// A password (any bytes; "" = none). Secret: never quoted in errors.
Directive Password(std::string_view name, std::string Config::*m) {
  return Directive{name,
                   "",
                   "a password, or \"\" for none",
                   [m](Config* c, std::string_view v) {
                     c->*m = std::string(v);
                     return true;
                   },
                   [m](const Config& c) { return c.*m; },
                   kDirSecret};
}

// user NAME rules...: repeatable; see server/users.h for the rules. Only
// the SHA-256 of each password is kept in the Config.
Directive Users(std::string_view name) {
  Directive d{name,
              "",
              "NAME on|off >password|#sha256hex... +@worker|+@admin, each "
              "NAME once",
              [](Config* c, std::string_view v) {
                if (v.empty()) {
                  c->users.clear();
                  return true;
                }
                StatusOr<UserSpec> user = ParseUserSpec(v);
                if (!user.ok()) return false;
                for (const UserSpec& other : c->users) {
                  if (other.name == user->name) return false;
                }
                c->users.push_back(std::move(user).value());
                return true;
              },
              [](const Config& c) {
                std::string out;
                for (const UserSpec& user : c.users) {
                  if (!out.empty()) out += '\n';
                  out += FormatUserSpec(user);
                }
                return out;
              },
              kDirSecret | kDirRepeatable};
  d.explain = [](const Config&, std::string_view v) -> std::string {
    StatusOr<UserSpec> user = ParseUserSpec(v);
    if (!user.ok()) return user.status().message();
    return "user " + user->name + " is declared twice";
  };
  return d;
}

// partition NAME SUFFIX [SUFFIX ...]: repeatable; a value may also hold
// several partitions separated by commas (CONFIG SET partition "a x.com,
// b y.org" replaces the whole map: see ConfigSet).
Directive Partitions(std::string_view name) {
  Directive d{name,
              "",
              "NAME SUFFIX [SUFFIX ...], partitions separated by commas, "
              "each NAME and SUFFIX once",
              [](Config* c, std::string_view v) {
                if (v.find_first_not_of(" \t") == std::string_view::npos) {
                  c->partitions = partition::PartitionMap();
                  return true;
                }
                std::string error;
                return c->partitions.AddText(v, &error);
              },
              [](const Config& c) { return c.partitions.ToText(); },
              kDirRuntime | kDirRepeatable};
  d.explain = [](const Config& c, std::string_view v) -> std::string {
    partition::PartitionMap copy = c.partitions;
    std::string error;
    if (copy.AddText(v, &error)) return "invalid partition";
    return error;
  };
  return d;
}

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
                          {"popularity", QueueOrder::kPopularity}}),
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
  };
  return kTable;
}

Status ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::InvalidArgument("cannot open config file '" + path +
                                   "': " + std::strerror(errno));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return Status::OK();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
         c == '\f';
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

bool SplitConfigLine(std::string_view line, std::vector<std::string>* words) {
  words->clear();
  size_t i = 0;
  while (true) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (i == line.size()) return true;
    std::string word;
    if (line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        char c = line[i];
        if (c == '"') {
          closed = true;
          ++i;
          break;
        }
        if (c == '\\' && i + 3 < line.size() && line[i + 1] == 'x' &&
            HexValue(line[i + 2]) >= 0 && HexValue(line[i + 3]) >= 0) {
          word += static_cast<char>(HexValue(line[i + 2]) * 16 +
                                    HexValue(line[i + 3]));
          i += 4;
          continue;
        }
        if (c == '\\' && i + 1 < line.size()) {
          char e = line[i + 1];
          word += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
          i += 2;
          continue;
        }
        word += c;
        ++i;
      }
      if (!closed || (i < line.size() && !IsSpace(line[i]))) return false;
    } else if (line[i] == '\'') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '\'') {
          word += '\'';
          i += 2;
          continue;
        }
        if (line[i] == '\'') {
          closed = true;
          ++i;
          break;
        }
        word += line[i++];
      }
      if (!closed || (i < line.size() && !IsSpace(line[i]))) return false;
    } else {
      while (i < line.size() && !IsSpace(line[i])) word += line[i++];
    }
    words->push_back(std::move(word));
  }
}

Status ApplyConfigText(Config* config, std::string_view text,
                       std::string_view source) {
  size_t line_no = 0;
  std::vector<std::string> words;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_no;

    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    std::string where = std::string(source) + ":" + std::to_string(line_no);
    if (!SplitConfigLine(line, &words)) {
      // Never quote a line that may hold a password.
      std::string_view first_word = line.substr(first);
      first_word = first_word.substr(0, first_word.find_first_of(" \t\r"));
      const Directive* d = FindDirective(first_word);
      if (d != nullptr && (d->flags & kDirSecret)) {
        return Status::InvalidArgument(where + ": unbalanced quotes in a '" +
                                       std::string(d->name) + "' line");
      }
      return Status::InvalidArgument(where + ": unbalanced quotes in '" +
                                     std::string(line) + "'");
    }
    std::string value;
    for (size_t i = 1; i < words.size(); ++i) {
      if (i > 1) value += ' ';
      value += words[i];
    }
    Status s = SetDirective(config, words[0], value);
    if (!s.ok()) return Status::InvalidArgument(where + ": " + s.message());
  }
  return Status::OK();
}

StatusOr<Config> LoadConfig(std::span<const std::string> args) {
  Config config = DefaultConfig();
  size_t i = 0;
  if (!args.empty() && !args[0].starts_with("--")) {
    std::string text;
    Status s = ReadFile(args[0], &text);
    if (!s.ok()) return s;
    s = ApplyConfigText(&config, text, args[0]);
    if (!s.ok()) return s;
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(args[0], ec);
    config.config_file = ec ? args[0] : abs.string();
    i = 1;
  }
  while (i < args.size()) {
    if (!args[i].starts_with("--") || args[i].size() == 2) {
      return Status::InvalidArgument("unexpected argument '" + args[i] +
                                     "' (expected --directive value)");
    }
    std::string name = args[i].substr(2);
    std::string value;
    for (++i; i < args.size() && !args[i].starts_with("--"); ++i) {
      if (!value.empty()) value += ' ';
      value += args[i];
    }
    Status s = SetDirective(&config, name, value);
    if (!s.ok()) return s;
  }
  return config;
}

Status PrepareDirectories(const Config& config) {
  std::error_code ec;
  std::filesystem::create_directories(config.dir, ec);
  if (ec) {
    return Status::IOError("cannot create dir '" + config.dir +
                           "': " + ec.message());
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
  o.backoff_status_codes = config.backoff_status_codes;
  o.backoff_initial_ms = config.backoff_initial_ms;
  o.backoff_max_ms = config.backoff_max_ms;
  o.robots = config.robots;
  o.robots_agent = config.robots_agent;
  o.robots_ttl_ms = config.robots_ttl_ms;
  o.robots_max_bytes = config.robots_max_bytes;
  o.robots_max_crawl_delay_ms = config.robots_max_crawl_delay_ms;
  o.partitions = config.partitions;
  // fsync no: hand each commit to the OS at once and never fsync it.
  // always/everysec: keep commits in the log buffer until FlushLog().
  o.write_log_at_commit = config.fsync == FsyncPolicy::kNo;
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
