// Tests for Retry-After: delay-seconds, the three HTTP-date formats, and
// values that must be ignored.
#include "policy/retry_after.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>

namespace frontier::policy {
namespace {

// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example date.
constexpr int64_t kExample = 784111777;
// 2026-01-01T00:00:00Z.
constexpr int64_t kNow2026 = 1767225600;

TEST(RetryAfter, DelaySeconds) {
  EXPECT_EQ(RetryAfterDelayMs("120", 0), 120000);
  EXPECT_EQ(RetryAfterDelayMs("0", 0), 0);
  EXPECT_EQ(RetryAfterDelayMs(" 5\t", 0), 5000) << "OWS around the value";
  EXPECT_EQ(RetryAfterDelayMs("007", 0), 7000);
  EXPECT_EQ(RetryAfterDelayMs("99999999999999999999999999", 0),
            std::numeric_limits<int64_t>::max() / 1000 * 1000)
      << "saturates";
}

TEST(RetryAfter, ThreeDateFormats) {
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT", kNow2026), kExample);
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT", kExample),
            kExample);
  EXPECT_EQ(ParseHttpDate("Sun Nov  6 08:49:37 1994", kNow2026), kExample);
  EXPECT_EQ(ParseHttpDate("Sun Nov 16 08:49:37 1994", kNow2026),
            kExample + 10 * 86400);
  EXPECT_EQ(ParseHttpDate("sun, 06 nov 1994 08:49:37 gmt", kNow2026), kExample)
      << "names case-insensitively";
}

TEST(RetryAfter, DateGivesTheDelayFromNow) {
  const int64_t now_ms = kExample * 1000 - 30000;
  EXPECT_EQ(RetryAfterDelayMs("Sun, 06 Nov 1994 08:49:37 GMT", now_ms), 30000);
  EXPECT_EQ(RetryAfterDelayMs("Sun, 06 Nov 1994 08:49:37 GMT",
                              kExample * 1000 + 5000),
            0)
      << "a date in the past means now";
  EXPECT_EQ(RetryAfterDelayMs("Thu, 01 Jan 2026 00:01:00 GMT", kNow2026 * 1000),
            60000);
}

TEST(RetryAfter, TwoDigitYearsStayWithinFiftyYears) {
  // Seen in 2026: "76" is 2076 (50 years on), "77" is 1977.
  EXPECT_EQ(ParseHttpDate("Friday, 01-Jan-76 00:00:00 GMT", kNow2026),
            3345062400);
  EXPECT_EQ(ParseHttpDate("Saturday, 01-Jan-77 00:00:00 GMT", kNow2026),
            220924800);
  EXPECT_EQ(ParseHttpDate("Thursday, 01-Jan-26 00:00:00 GMT", kNow2026),
            kNow2026);
}

TEST(RetryAfter, LeapDaysAndCalendar) {
  EXPECT_EQ(ParseHttpDate("Thu, 29 Feb 2024 12:00:00 GMT", kNow2026),
            1709208000);
  EXPECT_EQ(ParseHttpDate("Thu, 29 Feb 2023 12:00:00 GMT", kNow2026),
            std::nullopt);
  EXPECT_EQ(ParseHttpDate("Thu, 01 Jan 1970 00:00:00 GMT", kNow2026), 0);
  EXPECT_EQ(ParseHttpDate("Fri, 31 Dec 1999 23:59:59 GMT", kNow2026),
            946684799);
  EXPECT_EQ(ParseHttpDate("Tue, 29 Feb 2000 00:00:00 GMT", kNow2026),
            951782400);
}

TEST(RetryAfter, UnreadableValuesAreIgnored) {
  for (std::string_view bad : std::initializer_list<std::string_view>{
           "",
           "   ",
           "-5",
           "+5",
           "1.5",
           "5s",
           "soon",
           "0x10",
           "Sun, 06 Nov 1994 08:49:37 UTC",
           "Sun, 06 Nov 1994 08:49:37",
           "Sun, 06 Nov 1994 08:49:37 GMT junk",
           "Sun, 6 Nov 1994 08:49:37 GMT",
           "Sun, 31 Nov 1994 08:49:37 GMT",
           "Sun, 06 Nox 1994 08:49:37 GMT",
           "Sun, 06 Nov 1994 24:00:00 GMT",
           "Sun, 06 Nov 1994 08:60:00 GMT",
           "Sun, 06 Nov 1994 08:49:61 GMT",
           "Xyz, 06 Nov 1994 08:49:37 GMT",
           "Sun 06 Nov 1994 08:49:37 GMT",
           "Sunday, 06-Nov-1994 08:49:37 GMT",
           "Sun Nov 6 08:49:37 1994",
           "Sun Nov  6 08:49:37 94",
           std::string_view("1\0", 2),
       }) {
    EXPECT_EQ(RetryAfterDelayMs(bad, kNow2026 * 1000), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace frontier::policy
