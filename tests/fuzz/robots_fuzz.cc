// libFuzzer target for the robots.txt library (robots/).
//
// The input is a robots.txt body; its first byte picks the agent and now
// and then a small parse limit. Checked, for every input:
//   - RulesForAgent never crashes, whatever the bytes;
//   - every kept rule is a non-empty canonical pattern starting with '/' or
//     '*', and the rules are in matching order (longest first, allow first
//     on a tie);
//   - Serialize/Parse gives back equal Rules that answer every probe path
//     the same way, and so does AllowedStored on the serialized bytes;
//   - "/robots.txt" is always allowed;
//   - a probe path and its spelling with every unreserved byte
//     percent-encoded get the same answer;
//   - CanonicalPath and CanonicalPattern are idempotent;
//   - reading with a limit never reads more than the limit: the result is
//     the same as reading the body cut at the limit's last line end.
//
// Run longer: docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "robots/agent_rules.h"
#include "robots/matcher.h"
#include "robots/path_encoding.h"

namespace {

using frontier::robots::Allowed;
using frontier::robots::AllowedStored;
using frontier::robots::CanonicalPath;
using frontier::robots::CanonicalPattern;
using frontier::robots::ParseOptions;
using frontier::robots::Rules;
using frontier::robots::RulesForAgent;

[[noreturn]] void Die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "robots_fuzz: invariant broken: %s\n  '%.*s'\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

bool IsUnreservedByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

// `path` (canonical, so every '%' starts an escape) with every unreserved
// byte outside the escapes percent-encoded.
std::string EncodeUnreserved(std::string_view path) {
  static constexpr char kHex[] = "0123456789abcdef";  // lower case on purpose
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '%') {
      out += path.substr(i, 3);
      i += 2;
    } else if (IsUnreservedByte(c)) {
      const auto u = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// Paths worth asking about: fixed ones, and each pattern with its
// wildcards dropped or filled (so that rules actually match).
std::vector<std::string> Probes(const Rules& rules) {
  std::vector<std::string> probes = {"/",        "",        "/robots.txt", "/a",
                                     "/a/b?c=d", "/%41%2F", "/\xC3\xA4"};
  for (const auto& rule : rules.rules) {
    if (probes.size() > 64) break;
    std::string dropped;
    std::string filled;
    for (char c : rule.pattern) {
      if (c == '*') {
        filled += "xy/";
      } else if (c != '$') {
        dropped += c;
        filled += c;
      }
    }
    probes.push_back(dropped);
    probes.push_back(filled);
    probes.push_back(filled + "/z");
  }
  return probes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kAgents[] = {"frontierd", "FooBot", "a",
                                                 "x-y_z"};
  const std::string_view agent = kAgents[bytes[0] & 3];
  ParseOptions options;
  if ((bytes[0] & 0xF0) == 0xF0) options.max_bytes = (bytes[0] & 0x0C) * 8;
  const std::string_view body(reinterpret_cast<const char*>(bytes) + 1,
                              size - 1);

  const Rules rules = RulesForAgent(body, agent, options);

  for (size_t i = 0; i < rules.rules.size(); ++i) {
    const std::string& p = rules.rules[i].pattern;
    if (p.empty() || (p[0] != '/' && p[0] != '*')) Die("bad pattern", p);
    if (CanonicalPattern(p) != p) Die("pattern not canonical", p);
    if (i > 0) {
      const auto& prev = rules.rules[i - 1];
      if (prev.pattern.size() < p.size() ||
          (prev.pattern.size() == p.size() && !prev.allow &&
           rules.rules[i].allow)) {
        Die("rules out of order", p);
      }
    }
  }

  const std::string stored = rules.Serialize();
  const std::optional<Rules> back = Rules::Parse(stored);
  if (!back) Die("serialized rules refused", stored);
  if (!(*back == rules)) Die("round trip changed the rules", stored);

  if (!Allowed(rules, "/robots.txt")) Die("/robots.txt disallowed", body);

  for (const std::string& probe : Probes(rules)) {
    const bool allowed = Allowed(rules, probe);
    if (Allowed(*back, probe) != allowed) Die("stored rules disagree", probe);
    if (AllowedStored(stored, probe) != allowed) {
      Die("AllowedStored disagrees", probe);
    }
    if (Allowed(rules, EncodeUnreserved(CanonicalPath(probe))) != allowed) {
      Die("encoded spelling disagrees", probe);
    }
    const std::string once = CanonicalPath(probe);
    if (CanonicalPath(once) != once) Die("CanonicalPath not idempotent", probe);
  }

  // The body itself as a path and as a pattern, for the encoders.
  const std::string as_path = CanonicalPath(body);
  if (CanonicalPath(as_path) != as_path) Die("not idempotent", body);
  const std::string as_pattern = CanonicalPattern(body);
  if (CanonicalPattern(as_pattern) != as_pattern) Die("not idempotent", body);

  if (body.size() > options.max_bytes) {
    if (!rules.truncated) Die("long body not marked truncated", body);
    std::string_view cut = body.substr(0, options.max_bytes);
    const size_t end = cut.find_last_of("\r\n");
    cut = end == std::string_view::npos ? std::string_view()
                                        : cut.substr(0, end + 1);
    ParseOptions unlimited;
    Rules direct = RulesForAgent(cut, agent, unlimited);
    direct.truncated = true;
    if (!(direct == rules)) Die("limit read past the cut", body);
  }
  return 0;
}
