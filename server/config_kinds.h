// The kinds of directive value (config.h's Directive). Each function
// returns a Directive bound to one Config member: its parser, its printer
// and the `expected` text that errors quote. config.cc builds the
// directive table from them; nothing else needs them.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/args.h"
#include "server/config.h"

namespace frontier::config_kinds {

// A base-10 integer min..max (ParseInt64), stored in a T member.
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
                   int64_t max_ms = std::numeric_limits<int64_t>::max());

// A finite decimal number ("0.4", "2", "1e-3") within [min, max].
Directive Decimal(std::string_view name, std::string_view def,
                  double Config::*m, double min, double max);

// One of the words of `choices` (case-insensitive), stored as its value;
// `get` prints the word of the current value.
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

// A size in bytes, or with one of Redis's units (k, kb, m, mb, g, gb), of
// at least `min`; printed in gb or mb when it is a whole number of them.
Directive Memory(std::string_view name, std::string_view def,
                 uint64_t Config::*m, uint64_t min);

// Any text (a path); the empty one only if `allow_empty`.
Directive Text(std::string_view name, std::string_view def,
               std::string Config::*m, bool allow_empty);

// HTTP status codes (100..599) separated by spaces; "" = none.
Directive StatusCodes(std::string_view name, std::string_view def,
                      std::vector<int> Config::*m);

// robots-agent: an RFC 9309 product token (robots/agent_rules.h), the only
// kind of name a robots.txt group can match.
Directive ProductToken(std::string_view name, std::string_view def,
                       std::string Config::*m);

// One or more IPv4 or IPv6 literals separated by spaces.
Directive AddressList(std::string_view name, std::string_view def,
                      std::vector<std::string> Config::*m);

// client-output-buffer-limit: one or more "<class> <hard> <soft>
// <soft-seconds>" groups, the sizes with Redis's units; each group sets its
// class and leaves the other alone, as in Redis. The classes are normal and
// pubsub; Redis's replica class has no clients here and is refused rather
// than ignored.
Directive OutputLimit(std::string_view name, std::string_view def,
                      OutputBufferLimit Config::*normal,
                      OutputBufferLimit Config::*pubsub);

// tls-protocols: "TLSv1.2", "TLSv1.3" or both, separated by spaces; "" is
// both, as in Redis. Older versions are not offered (RFC 8996).
Directive TlsProtocols(std::string_view name, std::string_view def,
                       uint32_t Config::*m);

// Adds DirectiveFlag bits to a directive.
Directive Flagged(uint32_t flags, Directive d);

// A password (any bytes; "" = none). Secret: never quoted in errors.
Directive Password(std::string_view name, std::string Config::*m);

// user NAME rules...: repeatable; see server/users.h for the rules. Only
// the SHA-256 of each password is kept in the Config.
Directive Users(std::string_view name);

// partition NAME SUFFIX [SUFFIX ...]: repeatable; a value may also hold
// several partitions separated by commas (CONFIG SET partition "a x.com,
// b y.org" replaces the whole map: see ConfigSet).
Directive Partitions(std::string_view name);

// scope-hosts: host or domain suffixes separated by spaces or commas;
// repeatable, each occurrence adds; "" = any host (scope/host_suffixes.h).
Directive ScopeHosts(std::string_view name, scope::HostSuffixes Config::*m);

// scope-deny, scope-allow: RE2 patterns separated by spaces; repeatable,
// each occurrence adds; "" = none. A pattern that does not compile is
// refused with RE2's reason (scope/url_patterns.h).
Directive ScopePatterns(std::string_view name, scope::UrlPatterns Config::*m);

}  // namespace frontier::config_kinds
