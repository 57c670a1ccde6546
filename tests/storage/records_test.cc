// The on-disk encodings: records survive a round trip at their extremes,
// and truncated or foreign bytes are refused (they mean corruption).
#include "storage/records.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "storage/coding.h"

namespace frontier {
namespace {

TEST(CodingTest, VarintsRoundTripAtTheirBoundaries) {
  for (uint64_t v : {uint64_t{0}, uint64_t{127}, uint64_t{128},
                     uint64_t{16383}, uint64_t{16384}, uint64_t{1} << 63,
                     std::numeric_limits<uint64_t>::max()}) {
    std::string buf;
    coding::PutVarint(&buf, v);
    std::string_view in = buf;
    uint64_t got = 1;
    ASSERT_TRUE(coding::GetVarint(&in, &got)) << v;
    EXPECT_EQ(got, v);
    EXPECT_TRUE(in.empty());
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-64},
                    int64_t{1'700'000'000'000},
                    std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    std::string buf;
    coding::PutSignedVarint(&buf, v);
    std::string_view in = buf;
    int64_t got = 1;
    ASSERT_TRUE(coding::GetSignedVarint(&in, &got)) << v;
    EXPECT_EQ(got, v);
  }
  std::string small;
  coding::PutSignedVarint(&small, -1);
  EXPECT_EQ(small.size(), 1u);  // the common "default delay" costs a byte
}

TEST(CodingTest, TruncatedAndOversizedVarintsAreRefused) {
  std::string buf;
  coding::PutVarint(&buf, uint64_t{1} << 40);
  std::string_view cut = std::string_view(buf).substr(0, buf.size() - 1);
  uint64_t v = 0;
  EXPECT_FALSE(coding::GetVarint(&cut, &v));
  std::string big;
  coding::PutVarint(&big, 70000);
  std::string_view in = big;
  uint16_t narrow = 0;
  EXPECT_FALSE(coding::GetVarintAs(&in, &narrow));  // does not fit 16 bits
}

TEST(RecordsTest, UrlRecordRoundTrips) {
  UrlRecord r;
  r.state = StoredState::kScheduledRecrawl;
  r.depth = std::numeric_limits<uint16_t>::max();
  r.priority = 9999;
  r.attempts = 3;
  r.backlinks = uint64_t{1} << 40;
  r.site_fp = 0xfedcba9876543210ULL;
  r.recrawl_ms = 86'400'000;
  r.due_ms = 1'700'000'123'456;
  r.last_fetch_ms = 1'699'999'999'999;
  r.created_ms = 1'699'999'000'001;
  r.has_data = true;
  r.url = "http://example.com/a?b=c";
  std::string bytes = EncodeUrlRecord(r);
  UrlRecord back;
  ASSERT_TRUE(DecodeUrlRecord(bytes, &back));
  EXPECT_EQ(back.state, r.state);
  EXPECT_EQ(back.depth, r.depth);
  EXPECT_EQ(back.priority, r.priority);
  EXPECT_EQ(back.attempts, r.attempts);
  EXPECT_EQ(back.backlinks, r.backlinks);
  EXPECT_EQ(back.site_fp, r.site_fp);
  EXPECT_EQ(back.recrawl_ms, r.recrawl_ms);
  EXPECT_EQ(back.due_ms, r.due_ms);
  EXPECT_EQ(back.last_fetch_ms, r.last_fetch_ms);
  EXPECT_EQ(back.created_ms, r.created_ms);
  EXPECT_TRUE(back.has_data);
  EXPECT_EQ(back.url, r.url);
  r.has_data = false;
  ASSERT_TRUE(DecodeUrlRecord(EncodeUrlRecord(r), &back));
  EXPECT_FALSE(back.has_data);
  EXPECT_EQ(back.state, r.state);
  // A fresh URL's record is small: every byte is logged, often twice.
  UrlRecord fresh;
  fresh.url = "http://example.com/";
  // (2 bytes of version and state, 8 of site fingerprint, 8 varints, and
  // the creation time, 6 bytes for a time of this century.)
  fresh.created_ms = 1'700'000'000'000;
  EXPECT_LE(EncodeUrlRecord(fresh).size(), 24 + fresh.url.size());
  // Having a value costs the record nothing: a bit of the state byte.
  fresh.has_data = true;
  EXPECT_LE(EncodeUrlRecord(fresh).size(), 24 + fresh.url.size());
}

TEST(RecordsTest, VersionTwoUrlRecordsStillDecode) {
  // A record written before per-URL data: version 2, no creation time.
  std::string v2;
  v2.push_back(2);
  v2.push_back(static_cast<char>(StoredState::kDone));
  for (int i = 0; i < 4; ++i) coding::PutVarint(&v2, 3);  // depth..backlinks
  coding::PutU64(&v2, 0x1122334455667788ULL);
  coding::PutSignedVarint(&v2, 0);
  coding::PutSignedVarint(&v2, 0);
  coding::PutSignedVarint(&v2, 1'700'000'000'000);
  v2 += "http://example.com/old";
  UrlRecord back;
  ASSERT_TRUE(DecodeUrlRecord(v2, &back));
  EXPECT_EQ(back.state, StoredState::kDone);
  EXPECT_EQ(back.site_fp, 0x1122334455667788ULL);
  EXPECT_EQ(back.last_fetch_ms, 1'700'000'000'000);
  EXPECT_EQ(back.created_ms, 0);
  EXPECT_FALSE(back.has_data);
  EXPECT_EQ(back.url, "http://example.com/old");
  // Version 2 knew no data bit: a state byte with it is refused.
  v2[1] = static_cast<char>(0x80 | 2);
  EXPECT_FALSE(DecodeUrlRecord(v2, &back));
}

TEST(RecordsTest, UrlDataRoundTrips) {
  std::string bytes;
  const std::string value("any\0bytes\xff", 11);
  EncodeUrlData(value, &bytes);
  std::string_view back;
  ASSERT_TRUE(DecodeUrlData(bytes, &back));
  EXPECT_EQ(back, value);
  EncodeUrlData("", &bytes);
  ASSERT_TRUE(DecodeUrlData(bytes, &back));
  EXPECT_EQ(back, "");
  EXPECT_FALSE(DecodeUrlData("", &back));
  EXPECT_FALSE(DecodeUrlData(std::string_view("\x07x", 2), &back));
}

TEST(RecordsTest, BadUrlRecordsAreRefused) {
  UrlRecord r;
  r.url = "http://example.com/";
  std::string bytes = EncodeUrlRecord(r);
  UrlRecord back;
  EXPECT_FALSE(DecodeUrlRecord(bytes.substr(0, 5), &back));  // truncated
  std::string other_version = bytes;
  other_version[0] = 1;
  EXPECT_FALSE(DecodeUrlRecord(other_version, &back));
  std::string bad_state = bytes;
  bad_state[1] = 9;
  EXPECT_FALSE(DecodeUrlRecord(bad_state, &back));
  r.url.clear();
  EXPECT_FALSE(DecodeUrlRecord(EncodeUrlRecord(r), &back));  // no URL
}

TEST(RecordsTest, SiteRecordRoundTrips) {
  SiteRecord s;
  s.name = "example.com";
  s.delay_ms = -1;
  s.next_allowed_ms = 1'700'000'000'000;
  s.urls = 5;
  s.queued = 1;
  s.leases = 2;
  s.done = 300;
  s.scheduled = 4;
  s.dead = 1;
  SiteRecord back;
  ASSERT_TRUE(DecodeSiteRecord(EncodeSiteRecord(s), &back));
  EXPECT_EQ(back.name, s.name);
  EXPECT_EQ(back.delay_ms, s.delay_ms);
  EXPECT_EQ(back.next_allowed_ms, s.next_allowed_ms);
  EXPECT_EQ(back.urls, s.urls);
  EXPECT_EQ(back.queued, s.queued);
  EXPECT_EQ(back.leases, s.leases);
  EXPECT_EQ(back.done, s.done);
  EXPECT_EQ(back.scheduled, s.scheduled);
  EXPECT_EQ(back.dead, s.dead);
  EXPECT_FALSE(DecodeSiteRecord(EncodeSiteRecord(s).substr(0, 4), &back));
}

TEST(RecordsTest, SitePolicyFieldsRoundTripAndCostNothingWhenUnset) {
  SiteRecord plain;
  plain.name = "example.com";
  plain.urls = 3;
  SiteRecord s = plain;
  s.delay_ms = 2500;
  s.block_until_ms = 1'800'000'000'000;
  s.backoffs = 7;
  s.max_urls = 1'000'000;
  s.robots_delay_ms = 10'000;
  s.adaptive_delay_ms = 0;  // 0 is a value, not "none"
  s.excluded = 4;
  s.done_limit = 250;
  SiteRecord back;
  ASSERT_TRUE(DecodeSiteRecord(EncodeSiteRecord(s), &back));
  EXPECT_EQ(back.delay_ms, 2500);
  EXPECT_EQ(back.block_until_ms, s.block_until_ms);
  EXPECT_EQ(back.backoffs, 7u);
  EXPECT_EQ(back.max_urls, 1'000'000u);
  EXPECT_EQ(back.robots_delay_ms, 10'000);
  EXPECT_EQ(back.adaptive_delay_ms, 0);
  EXPECT_EQ(back.excluded, 4u);
  EXPECT_EQ(back.done_limit, 250u);
  EXPECT_EQ(back.name, "example.com");
  EXPECT_EQ(back.urls, 3u);
  // Unset fields take no bytes beyond the mask: version + mask + 7 counts.
  EXPECT_EQ(EncodeSiteRecord(plain).size(), 2 + 7 + plain.name.size());
  ASSERT_TRUE(DecodeSiteRecord(EncodeSiteRecord(plain), &back));
  EXPECT_EQ(back.delay_ms, -1);
  EXPECT_EQ(back.block_until_ms, 0);
  EXPECT_EQ(back.robots_delay_ms, -1);
  EXPECT_EQ(back.adaptive_delay_ms, -1);
  EXPECT_EQ(back.excluded, 0u);
  EXPECT_EQ(back.done_limit, 0u);
}

TEST(RecordsTest, SiteHeadRoundTripsAndAbsentMeansNotStored) {
  SiteRecord s;
  s.name = "example.com";
  s.queued = 3;
  QueuePos head;
  head.major = 1023;
  head.minor = 7;
  head.url.url_fp = 0xfedcba9876543210;
  head.url.host_fp = 0x0123456789abcdef;
  s.head = head;
  SiteRecord back;
  ASSERT_TRUE(DecodeSiteRecord(EncodeSiteRecord(s), &back));
  ASSERT_TRUE(back.head.has_value());
  EXPECT_EQ(*back.head, head);
  EXPECT_EQ(back.name, "example.com");
  EXPECT_EQ(back.queued, 3u);
  // Cut inside the head: refused, never read as a shorter name.
  const std::string whole = EncodeSiteRecord(s);
  const size_t name_at = whole.size() - s.name.size();
  EXPECT_FALSE(DecodeSiteRecord(whole.substr(0, name_at - 3), &back));
  s.head.reset();
  back.head = head;  // must be reset, not kept from before
  ASSERT_TRUE(DecodeSiteRecord(EncodeSiteRecord(s), &back));
  EXPECT_FALSE(back.head.has_value());
}

TEST(RecordsTest, VersionTwoSiteRecordsStillDecode) {
  // The layout written before the policy fields: a directory upgrades in
  // place as its sites are rewritten.
  std::string v2(1, '\x02');
  coding::PutSignedVarint(&v2, 1500);               // delay_ms
  coding::PutSignedVarint(&v2, 1'700'000'000'000);  // next_allowed_ms
  for (uint64_t count : {9, 1, 2, 3, 2, 1}) coding::PutVarint(&v2, count);
  v2 += "old.example";
  SiteRecord back;
  back.backoffs = 99;  // must be reset, not kept from before
  ASSERT_TRUE(DecodeSiteRecord(v2, &back));
  EXPECT_EQ(back.delay_ms, 1500);
  EXPECT_EQ(back.next_allowed_ms, 1'700'000'000'000);
  EXPECT_EQ(back.urls, 9u);
  EXPECT_EQ(back.dead, 1u);
  EXPECT_EQ(back.backoffs, 0u);
  EXPECT_EQ(back.name, "old.example");
}

TEST(RecordsTest, UnknownSiteFieldsAreRefused) {
  // A field this version does not know must not be dropped on rewrite.
  std::string rec(1, '\x03');
  coding::PutVarint(&rec, uint64_t{1} << 20);
  for (int i = 0; i < 7; ++i) coding::PutVarint(&rec, 0);
  SiteRecord back;
  EXPECT_FALSE(DecodeSiteRecord(rec, &back));
  EXPECT_FALSE(DecodeSiteRecord(std::string(1, '\x04') + "x", &back));
}

TEST(RecordsTest, KeysSortAsTheirFields) {
  // Berkeley DB compares keys as bytes: that must be the numeric order.
  QueuePos a, b;
  a.major = 1;
  a.minor = 300;
  b.major = 2;
  b.minor = 0;
  EXPECT_LT(std::string_view(EncodeQueueKey(7, a)),
            std::string_view(EncodeQueueKey(7, b)));
  EXPECT_LT(std::string_view(EncodeQueueKey(7, b)),
            std::string_view(EncodeQueueKey(8, a)));
  UrlKey u{1, 2};
  EXPECT_LT(std::string_view(EncodeTimerKey(255, u)),
            std::string_view(EncodeTimerKey(256, u)));
  uint64_t site = 0;
  QueuePos back;
  ASSERT_TRUE(DecodeQueueKey(EncodeQueueKey(7, a), &site, &back));
  EXPECT_EQ(site, 7u);
  EXPECT_EQ(back, a);
}

// The counters record grew the status classes (version 2): a version 1
// record, as the previous release wrote it, still reads, with them at 0.
TEST(RecordsTest, StatsOfVersionOneReadWithTheNewCountersAtZero) {
  std::string v1(1, '\x01');
  for (uint64_t i = 1; i <= 15; ++i) coding::PutU64(&v1, i * 10);
  FrontierStats s;
  s.confirmed_4xx = 99;
  ASSERT_TRUE(DecodeStats(v1, &s));
  EXPECT_EQ(s.urls, 10u);
  EXPECT_EQ(s.sites, 70u);
  EXPECT_EQ(s.added, 80u);
  EXPECT_EQ(s.recrawled, 150u);
  EXPECT_EQ(
      s.confirmed_2xx + s.confirmed_3xx + s.confirmed_4xx + s.confirmed_5xx,
      0u);
  // A version 1 record of another length is corrupt.
  std::string longer = v1;
  coding::PutU64(&longer, 1);
  EXPECT_FALSE(DecodeStats(longer, &s));
  EXPECT_FALSE(DecodeStats(v1.substr(0, v1.size() - 8), &s));
}

TEST(RecordsTest, StatsRoundTripAndRefuseUnknownCounters) {
  FrontierStats s;
  s.urls = 5;
  s.recrawled = 6;
  s.confirmed_2xx = 7;
  s.confirmed_5xx = 8;
  const std::string bytes = EncodeStats(s);
  FrontierStats back;
  ASSERT_TRUE(DecodeStats(bytes, &back));
  EXPECT_EQ(back.urls, 5u);
  EXPECT_EQ(back.recrawled, 6u);
  EXPECT_EQ(back.confirmed_2xx, 7u);
  EXPECT_EQ(back.confirmed_5xx, 8u);
  // Trailing bytes beyond the counters the record names are refused.
  std::string trailing = bytes;
  coding::PutU64(&trailing, 1);
  EXPECT_FALSE(DecodeStats(trailing, &back));
  // A version 2 record names its count of cumulative counters: one with
  // fewer (an older binary's) reads the rest as 0; one with more (a newer
  // binary's) is refused, so that rewriting it never drops a counter.
  auto with_cumulative = [&](size_t n) {
    std::string rec(1, '\x02');
    for (int i = 0; i < 7; ++i) coding::PutU64(&rec, i == 0 ? 5 : 0);
    coding::PutVarint(&rec, n);
    for (size_t i = 0; i < n; ++i) coding::PutU64(&rec, 100 + i);
    return rec;
  };
  FrontierStats partial;
  partial.confirmed_5xx = 99;  // must be reset, not kept
  ASSERT_TRUE(DecodeStats(with_cumulative(9), &partial));
  EXPECT_EQ(partial.urls, 5u);
  EXPECT_EQ(partial.added, 100u);
  EXPECT_EQ(partial.confirmed_2xx, 108u);  // the ninth counter
  EXPECT_EQ(partial.confirmed_5xx, 0u);
  EXPECT_FALSE(DecodeStats(with_cumulative(64), &back));
  EXPECT_FALSE(DecodeStats(bytes.substr(0, bytes.size() - 3), &back));
  EXPECT_FALSE(DecodeStats(std::string(1, '\x03') + bytes.substr(1), &back));
}

}  // namespace
}  // namespace frontier
