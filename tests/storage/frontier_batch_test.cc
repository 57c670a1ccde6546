// Storage-layer tests of the batched check, SeenMany (MSEEN).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "storage/frontier.h"

namespace frontier {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;

class FrontierBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/frontier_batch_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    FrontierOptions opts;
    opts.dir = dir_;
    opts.cache_bytes = 8 << 20;
    auto f = Frontier::Open(opts);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fr_ = std::move(f).value();
  }
  void TearDown() override {
    fr_.reset();
    std::filesystem::remove_all(dir_);
  }

  // SeenMany's answers as ints: 1 known, 0 unknown, -1 an error element
  // (whose message must be the one Seen() gives for that URL).
  std::vector<int> SeenMany(const std::vector<std::string>& urls) {
    std::vector<std::string_view> views(urls.begin(), urls.end());
    auto r = fr_->SeenMany(views);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<int> out;
    if (!r.ok()) return out;
    EXPECT_EQ(r->size(), urls.size());
    for (size_t i = 0; i < r->size(); ++i) {
      const StatusOr<bool>& one = (*r)[i];
      StatusOr<bool> single = fr_->Seen(urls[i]);
      if (one.ok()) {
        EXPECT_TRUE(single.ok() && *single == *one) << urls[i];
        out.push_back(*one ? 1 : 0);
      } else {
        EXPECT_TRUE(one.status().IsInvalidArgument()) << urls[i];
        EXPECT_FALSE(single.ok()) << urls[i];
        if (!single.ok()) {
          EXPECT_EQ(one.status().message(), single.status().message());
        }
        out.push_back(-1);
      }
    }
    return out;
  }

  std::string dir_;
  std::unique_ptr<Frontier> fr_;
};

TEST_F(FrontierBatchTest, EmptyBatch) {
  auto r = fr_->SeenMany({});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

TEST_F(FrontierBatchTest, AnswersInRequestOrderAcrossManySites) {
  // 40 sites, 5 pages each; the even pages are known.
  std::vector<std::string> urls;
  std::vector<int> want;
  for (int site = 0; site < 40; ++site) {
    for (int page = 0; page < 5; ++page) {
      std::string u = "http://s" + std::to_string(site) + ".example/p" +
                      std::to_string(page);
      if (page % 2 == 0) {
        auto a = fr_->Add(u, "", AddOptions(), kT0);
        ASSERT_TRUE(a.ok() && *a == AddOutcome::kAdded) << u;
      }
      urls.push_back(u);
      want.push_back(page % 2 == 0 ? 1 : 0);
    }
  }
  // Interleave sites (the request order is not key order) and slip in
  // invalid URLs, a duplicate, and other spellings of known URLs.
  std::vector<std::string> asked;
  std::vector<int> expected;
  for (size_t i = 0; i < urls.size(); ++i) {
    size_t j = (i * 37) % urls.size();  // 37 is prime to 200: a permutation
    asked.push_back(urls[j]);
    expected.push_back(want[j]);
    if (i % 50 == 7) {
      asked.push_back("ftp://s1.example/");
      expected.push_back(-1);
      asked.push_back("");
      expected.push_back(-1);
    }
  }
  asked.push_back("HTTP://S3.Example:80/./x/../p2#frag");  // = s3/p2, known
  expected.push_back(1);
  asked.push_back("http://s3.example/p2");  // a duplicate
  expected.push_back(1);
  asked.push_back("http://s3.example/p2?");  // another URL
  expected.push_back(0);
  asked.push_back("http://[::1/");
  expected.push_back(-1);

  const FrontierStats before = fr_->Stats();
  const uint64_t seq = fr_->commit_seq();
  EXPECT_EQ(SeenMany(asked), expected);

  // Nothing was written: no commit, no counter moved, no back-link.
  const FrontierStats after = fr_->Stats();
  EXPECT_EQ(fr_->commit_seq(), seq);
  EXPECT_EQ(after.urls, before.urls);
  EXPECT_EQ(after.urls, 120u);
  EXPECT_EQ(after.added, before.added);
  EXPECT_EQ(after.duplicates, before.duplicates);
  EXPECT_EQ(after.refused, before.refused);
  auto info = fr_->Info("http://s3.example/p2");
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->backlinks, 0u);
}

TEST_F(FrontierBatchTest, OnlyInvalidUrls) {
  EXPECT_EQ(SeenMany({"ftp://a.example/", "a.example/page"}),
            (std::vector<int>{-1, -1}));
}

}  // namespace
}  // namespace frontier
