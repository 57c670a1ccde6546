// Reading an HTTP Retry-After header value (RFC 9110 §10.2.3).
//
// Retry-After = HTTP-date / delay-seconds. A crawler that is told to come
// back later reports the value as the server sent it; these functions turn
// it into a delay. Like an HTTP client, they treat a value they cannot
// read as absent (nullopt), never as an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace frontier::policy {

// The delay in milliseconds that `value` asks for, counted from
// `now_unix_ms`: delay-seconds (1*DIGIT, huge values saturate) or an
// HTTP-date, in the past giving 0. Surrounding spaces and tabs are
// ignored. nullopt if `value` is neither (empty, negative, "1.5",
// a date with a field out of range, trailing junk).
std::optional<int64_t> RetryAfterDelayMs(std::string_view value,
                                         int64_t now_unix_ms);

// An HTTP-date in any of the three formats of RFC 9110 §5.6.7, as Unix
// seconds:
//   IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"
//   rfc850-date  "Sunday, 06-Nov-94 08:49:37 GMT"
//   asctime      "Sun Nov  6 08:49:37 1994"
// Names compare case-insensitively; the weekday must be a weekday name but
// is not checked against the date. A two-digit year is the one in the
// century that puts it at most 50 years after `now_unix_s` (§5.6.7).
// nullopt if `value` is not such a date (no OWS trimming here).
std::optional<int64_t> ParseHttpDate(std::string_view value,
                                     int64_t now_unix_s);

}  // namespace frontier::policy
