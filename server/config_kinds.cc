#include "server/config_kinds.h"

#include <arpa/inet.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "robots/agent_rules.h"

namespace frontier::config_kinds {
namespace {

// The shortest decimal that reads back as `v` ("0.4", not
// "0.40000000000000002"), so CONFIG GET and REWRITE print what was set.
std::string FormatDecimal(double v) {
  char buf[400];  // the longest fixed form of a double fits
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
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

bool IsIpLiteral(const std::string& text) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, text.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

}  // namespace

Directive Duration(std::string_view name, std::string_view def,
                   int64_t Config::*m, int64_t min_ms, int64_t max_ms) {
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

Directive Flagged(uint32_t flags, Directive d) {
  d.flags |= flags;
  return d;
}

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

}  // namespace frontier::config_kinds

namespace frontier::config_kinds {
namespace {

bool IsBlankText(std::string_view v) {
  return v.find_first_not_of(" \t\r\n,") == std::string_view::npos;
}

}  // namespace

// A list directive of the crawl scope: `T` reads space-separated text with
// AddText (all or nothing) and writes it back with ToText; "" empties it.
template <typename T>
Directive ScopeList(std::string_view name, std::string_view help,
                    const char* invalid, T Config::*m) {
  Directive d{name,
              "",
              std::string(help),
              [m](Config* c, std::string_view v) {
                if (IsBlankText(v)) {
                  c->*m = T();
                  return true;
                }
                std::string error;
                return (c->*m).AddText(v, &error);
              },
              [m](const Config& c) { return (c.*m).ToText(); },
              kDirRuntime | kDirRepeatable};
  d.explain = [m, invalid](const Config& c, std::string_view v) -> std::string {
    T copy = c.*m;
    std::string error;
    if (copy.AddText(v, &error)) return invalid;
    return error;
  };
  return d;
}

Directive ScopeHosts(std::string_view name, scope::HostSuffixes Config::*m) {
  return ScopeList(name,
                   "host or domain suffixes (example.com .edu) separated by "
                   "spaces or commas, or \"\" for any host",
                   "invalid host suffix", m);
}

Directive ScopePatterns(std::string_view name,
                        scope::UrlPatterns Config::*m) {
  return ScopeList(name, "RE2 patterns separated by spaces, or \"\" for none",
                   "invalid pattern", m);
}

}  // namespace frontier::config_kinds
