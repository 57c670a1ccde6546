// The per-origin robots.txt records of the `policy` database and the keys of
// the `excluded` index (issue 8 §1; docs/robots.md, "The server's robots
// policy").
//
//   policy   (P): origin fp -> PolicyRecord   one per origin the frontier
//                                             met with `robots yes`
//   excluded (X): origin fp + UrlKey -> ""    the URLs its rules excluded,
//                                             for the re-check when the
//                                             origin's rules change
//
// An origin is RFC 9309's scope of a robots.txt: scheme, host and port,
// spelled as the normalised URL spells them ("https://example.com",
// "http://example.com:8080"; default ports omitted, no userinfo).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/records.h"

namespace frontier {

enum class RobotsState : uint8_t {
  kUnknown = 0,      // never fetched (or ROBOTS SET had no effect yet)
  kFetching = 1,     // its robots.txt is leased to a worker
  kOk = 2,           // rules from a 2xx
  kAllowAll = 3,     // 4xx, a CONFIRM without STATUS: no restrictions
  kUnreachable = 4,  // 5xx, 429 or FAIL: retried with back-off
};
const char* RobotsStateName(RobotsState state);  // "unknown", ...

struct PolicyRecord {
  std::string origin;
  RobotsState state = RobotsState::kUnknown;
  int status = 0;            // HTTP status of the last report; 0 = none
  int64_t fetched_ms = 0;    // when the rules in force were fetched
  int64_t expires_ms = 0;    // when they stop being fresh (robots-ttl)
  // kFetching: the robots lease's end; kUnreachable: when the retry is due.
  int64_t until_ms = 0;
  uint32_t failures = 0;     // unreachable reports in a row (back-off)
  // robots::Rules::Serialize() of the rules in force; empty = none yet
  // (the origin is disallowed while unreachable). Allow-all stores the
  // serialized empty Rules.
  std::string rules;
  // A re-check of the excluded URLs is under way: it resumes after
  // `recheck_after` (the UrlKey last kept), or from the start.
  bool recheck = false;
  bool recheck_started = false;
  UrlKey recheck_after;
};
std::string EncodePolicyRecord(const PolicyRecord& r);
bool DecodePolicyRecord(std::string_view in, PolicyRecord* r);

KeyBytes<8> EncodePolicyKey(uint64_t origin_fp);
inline constexpr size_t kExcludedKeySize = 8 + kUrlKeySize;
KeyBytes<kExcludedKeySize> EncodeExcludedKey(uint64_t origin_fp,
                                             const UrlKey& url);
bool DecodeExcludedKey(std::string_view in, uint64_t* origin_fp, UrlKey* url);

}  // namespace frontier
