// `order popularity` (issue 9 section 1): the Q keys of the back-link
// classes, and the order the storage layer pops in as back-links arrive.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/frontier.h"
#include "storage/records.h"

namespace frontier {
namespace {

QueuePos Pos(uint64_t backlinks, uint16_t depth, uint16_t priority,
             uint64_t url_fp = 1) {
  QueuePos pos;
  pos.major = PopularityMajor(backlinks, depth);
  pos.minor = priority;
  pos.url = UrlKey{7, url_fp};
  return pos;
}

TEST(PopularityKeyTest, ClassIsFloorLog2OfOnePlusBacklinks) {
  EXPECT_EQ(PopularityClass(0), 0);
  EXPECT_EQ(PopularityClass(1), 1);
  EXPECT_EQ(PopularityClass(2), 1);
  EXPECT_EQ(PopularityClass(3), 2);
  EXPECT_EQ(PopularityClass(6), 2);
  EXPECT_EQ(PopularityClass(7), 3);
  EXPECT_EQ(PopularityClass(1022), 9);
  EXPECT_EQ(PopularityClass(1023), 10);
  EXPECT_EQ(PopularityClass((uint64_t{1} << 62) - 1), 62);
  EXPECT_EQ(PopularityClass((uint64_t{1} << 63) - 2), 62);
  EXPECT_EQ(PopularityClass((uint64_t{1} << 63) - 1), kMaxPopularityClass);
  EXPECT_EQ(PopularityClass(std::numeric_limits<uint64_t>::max()),
            kMaxPopularityClass);
}

// The rule: with at least one back-link and at least four times
// another URL's, a URL comes first whatever the depths and priorities.
TEST(PopularityKeyTest, FourTimesTheBacklinksAlwaysComesFirst) {
  std::vector<uint64_t> counts;
  for (uint64_t b = 0; b <= 5000; ++b) counts.push_back(b);
  for (int shift = 13; shift < 62; ++shift) {
    counts.push_back((uint64_t{1} << shift) - 1);
    counts.push_back(uint64_t{1} << shift);
    counts.push_back((uint64_t{1} << shift) + 3);
  }
  for (uint64_t b : counts) {
    const uint64_t more = b == 0 ? 1 : 4 * b;
    // The worst case for the popular URL: deepest, least urgent, larger
    // fingerprint; the best case for the other.
    const QueuePos popular =
        Pos(more, std::numeric_limits<uint16_t>::max(), 9999, ~uint64_t{0});
    const QueuePos other = Pos(b, 1, 0, 0);
    ASSERT_LT(popular, other) << b << " vs " << more;
    // The same holds for the bytes of the Q keys (B-tree order).
    ASSERT_LT(std::string_view(EncodeQueueKey(3, popular)),
              std::string_view(EncodeQueueKey(3, other)))
        << b;
  }
}

TEST(PopularityKeyTest, MoreBacklinksNeverComeLater) {
  for (uint64_t b = 0; b < 100000; ++b) {
    ASSERT_LE(PopularityMajor(b + 1, 5), PopularityMajor(b, 5)) << b;
  }
  EXPECT_LT(PopularityMajor(std::numeric_limits<uint64_t>::max(), 65535),
            PopularityMajor(uint64_t{1} << 61, 1));
}

TEST(PopularityKeyTest, WithinAClassLowerDepthThenPriority) {
  // 4 and 6 back-links share class 2.
  EXPECT_LT(Pos(4, 2, 9999), Pos(6, 3, 0));
  EXPECT_LT(Pos(6, 2, 9999), Pos(4, 3, 0));
  EXPECT_LT(Pos(6, 3, 10), Pos(4, 3, 11));
  EXPECT_LT(Pos(4, 3, 10, 1), Pos(6, 3, 10, 2));  // then h(K)
  // Depths up to kMaxPopularityDepth are told apart exactly; deeper ones
  // tie on depth and go by priority.
  EXPECT_LT(Pos(0, kMaxPopularityDepth - 1, 9999),
            Pos(0, kMaxPopularityDepth, 0));
  EXPECT_EQ(PopularityMajor(0, kMaxPopularityDepth),
            PopularityMajor(0, std::numeric_limits<uint16_t>::max()));
  EXPECT_LT(Pos(0, 60000, 1), Pos(0, kMaxPopularityDepth, 2));
  // A class above always wins over depth.
  EXPECT_LT(Pos(1, std::numeric_limits<uint16_t>::max(), 9999), Pos(0, 1, 0));
}

constexpr int64_t kNow = 1'700'000'000'000;

class PopularityFrontierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/popularity_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    opts_.dir = tmpl;
    opts_.cache_bytes = 8 << 20;
    opts_.politeness_delay_ms = 0;
    opts_.site_max_leases = 0;
    opts_.order = QueueOrder::kPopularity;
    Open();
  }
  void TearDown() override {
    fr_.reset();
    std::filesystem::remove_all(opts_.dir);
  }
  void Open() {
    fr_.reset();
    auto f = Frontier::Open(opts_);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fr_ = std::move(f).value();
  }
  // MADD ref links...; every element must be an outcome.
  std::vector<AddOutcome> Links(std::string_view ref,
                                const std::vector<std::string_view>& urls) {
    auto r = fr_->AddMany(ref, urls, kNow);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<AddOutcome> out;
    if (!r.ok()) return out;
    for (const auto& e : *r) {
      EXPECT_TRUE(e.ok()) << e.status().ToString();
      out.push_back(e.ok() ? *e : AddOutcome::kRefused);
    }
    return out;
  }
  std::vector<std::string> PopAll() {
    auto r = fr_->Pop(1000, 0, kNow);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<std::string>{};
  }

  FrontierOptions opts_;
  std::unique_ptr<Frontier> fr_;
};

TEST_F(PopularityFrontierTest, QueuedUrlsMoveUpAsBacklinksArrive) {
  Links("", {"http://a.com/1", "http://a.com/2", "http://a.com/3",
             "http://b.com/1"});
  // a.com/3 gets 1 back-link (class 1), b.com/1 gets 3 (class 2): b.com/1
  // overtakes across sites, a.com/3 within its site.
  Links("", {"http://a.com/3", "http://b.com/1", "http://b.com/1"});
  Links("", {"http://b.com/1"});
  const std::vector<std::string> popped = PopAll();
  ASSERT_EQ(popped.size(), 4u);
  EXPECT_EQ(popped[0], "http://b.com/1");
  EXPECT_EQ(popped[1], "http://a.com/3");
  // The rest tie (class 0, depth 1, default priority): hash order.
  FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.queued, 0u);
  EXPECT_EQ(st.leased, 4u);
  EXPECT_EQ(st.duplicates, 4u);
}

TEST_F(PopularityFrontierTest, MaddAnswersInArgumentOrder) {
  // Links in an order unlike U key order, one given twice, one invalid.
  auto r = fr_->AddMany("",
                        {"http://z.com/9", "http://a.com/1", "ftp://x/",
                         "http://m.com/5", "http://a.com/1"},
                        kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 5u);
  EXPECT_EQ((*r)[0].value(), AddOutcome::kAdded);
  EXPECT_EQ((*r)[1].value(), AddOutcome::kAdded);  // first given: added
  EXPECT_TRUE((*r)[2].status().IsInvalidArgument());
  EXPECT_EQ((*r)[3].value(), AddOutcome::kAdded);
  EXPECT_EQ((*r)[4].value(), AddOutcome::kKnown);
  auto info = fr_->Info("http://a.com/1");
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->backlinks, 1u);
  // a.com/1 moved to class 1 in the same transaction it was queued in.
  const std::vector<std::string> popped = PopAll();
  ASSERT_EQ(popped.size(), 3u);
  EXPECT_EQ(popped[0], "http://a.com/1");
}

TEST_F(PopularityFrontierTest,
       OrderSurvivesRestartAndOtherStatesKeepTheirCount) {
  Links("", {"http://a.com/1", "http://a.com/2", "http://b.com/1"});
  auto leased = fr_->Pop(1, 0, kNow);
  ASSERT_TRUE(leased.ok() && leased->size() == 1u);
  const std::string out = (*leased)[0];
  // Back-links of a leased URL are counted without touching Q.
  Links("", {out, out, out});
  std::string favourite =
      out == "http://a.com/2" ? "http://b.com/1" : "http://a.com/2";
  Links("", {favourite});
  Open();  // a restart
  // Back to the queue, at class 2.
  auto fail = fr_->Fail(out, FailOptions(), kNow);
  ASSERT_TRUE(fail.ok() && *fail);
  const std::vector<std::string> popped = PopAll();
  ASSERT_EQ(popped.size(), 3u);
  EXPECT_EQ(popped[0], out);
  EXPECT_EQ(popped[1], favourite);
}

TEST_F(PopularityFrontierTest, ADirectoryOfAnotherOrderIsRefused) {
  fr_.reset();
  opts_.order = QueueOrder::kBfs;
  auto f = Frontier::Open(opts_);
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(f.status().IsInvalidArgument()) << f.status().ToString();
  EXPECT_NE(f.status().ToString().find("order=popularity"), std::string::npos)
      << f.status().ToString();
}

}  // namespace
}  // namespace frontier
