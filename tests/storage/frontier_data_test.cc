// Per-URL data (issue 22): a value stored with ADD/MADD ... DATA in
// data.db, handed back by PopWithData and Info, kept across every state
// change and a reopen, replaced only when asked, and removed with its URL.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "storage/frontier_fixture.h"
#include "storage/frontier_impl.h"

namespace frontier {
namespace {

AddOptions With(std::string_view data, bool replace = false) {
  AddOptions o;
  o.data = data;
  o.replace_data = replace;
  return o;
}

class FrontierDataTest : public FrontierFixture {
 protected:
  std::vector<PoppedUrl> PopData(size_t n, int64_t lease_ms = 0) {
    auto r = fr_->PopWithData(std::nullopt, n, lease_ms, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<PoppedUrl>{};
  }
  std::optional<std::string> DataOf(std::string_view url) {
    return Info(url).data;
  }
  uint64_t DataRecords() {
    auto n = static_cast<FrontierImpl&>(*fr_).DataRecordsForTesting();
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : ~0ull;
  }
};

TEST_F(FrontierDataTest, ValueRoundTripsThroughPopAndInfo) {
  Open();
  const std::string binary("a\0b\r\n\xff", 6);
  EXPECT_EQ(Add("http://a.com/1", "", With(binary)), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://a.com/2"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://a.com/3", "", With("")), AddOutcome::kAdded);
  EXPECT_EQ(DataOf("http://a.com/1"), binary);
  EXPECT_EQ(DataOf("http://a.com/2"), std::nullopt);
  EXPECT_EQ(DataOf("http://a.com/3"), std::string());  // empty, not none
  EXPECT_EQ(Info("http://a.com/1").created_ms, kT0);
  std::vector<PoppedUrl> popped = PopData(10);
  ASSERT_EQ(popped.size(), 3u);
  for (const PoppedUrl& p : popped) {
    const std::optional<std::string> want =
        p.url == "http://a.com/1"   ? std::optional<std::string>(binary)
        : p.url == "http://a.com/3" ? std::optional<std::string>("")
                                    : std::nullopt;
    EXPECT_EQ(p.data, want) << p.url;
  }
  EXPECT_EQ(DataRecords(), 2u);  // a URL without a value has no record
}

TEST_F(FrontierDataTest, KnownUrlKeepsItsValueUnlessReplaced) {
  Open();
  Add("http://a.com/", "", With("first"));
  now_ += 5000;
  EXPECT_EQ(Add("http://a.com/", "", With("second")), AddOutcome::kKnown);
  EXPECT_EQ(DataOf("http://a.com/"), "first");
  EXPECT_EQ(Add("http://a.com/"), AddOutcome::kKnown);
  EXPECT_EQ(DataOf("http://a.com/"), "first");
  EXPECT_EQ(Add("http://a.com/", "", With("third", true)), AddOutcome::kKnown);
  EXPECT_EQ(DataOf("http://a.com/"), "third");
  // REPLACE without DATA: the URL has no value any more.
  AddOptions clear;
  clear.replace_data = true;
  EXPECT_EQ(Add("http://a.com/", "", clear), AddOutcome::kKnown);
  EXPECT_EQ(DataOf("http://a.com/"), std::nullopt);
  EXPECT_EQ(DataRecords(), 0u);
  // A URL added without a value gets one only with REPLACE.
  Add("http://b.com/");
  Add("http://b.com/", "", With("ignored"));
  EXPECT_EQ(DataOf("http://b.com/"), std::nullopt);
  Add("http://b.com/", "", With("set", true));
  EXPECT_EQ(DataOf("http://b.com/"), "set");
  // The creation time is the first ADD's, whatever came after.
  EXPECT_EQ(Info("http://a.com/").created_ms, kT0);
}

TEST_F(FrontierDataTest, ValueOverTheLimitIsRefusedAndNothingStored) {
  opts_.max_url_data = 8;
  Open();
  auto r = fr_->Add("http://a.com/", "", With("123456789"), now_);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("max-url-data"), std::string::npos);
  EXPECT_FALSE(*fr_->Seen("http://a.com/"));
  EXPECT_EQ(Add("http://a.com/", "", With("12345678")), AddOutcome::kAdded);
  // A replacement over the limit leaves the old value.
  r = fr_->Add("http://a.com/", "", With("123456789", true), now_);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(DataOf("http://a.com/"), "12345678");
  // MADD: one value too long refuses the whole call.
  std::vector<std::string_view> urls = {"http://b.com/1", "http://b.com/2"};
  std::vector<std::string_view> data = {"ok", "much too long"};
  auto many = fr_->AddManyWithData("", urls, data, now_);
  ASSERT_FALSE(many.ok());
  EXPECT_TRUE(many.status().IsInvalidArgument());
  EXPECT_FALSE(*fr_->Seen("http://b.com/1"));
  EXPECT_EQ(fr_->Stats().urls, 1u);
  EXPECT_EQ(DataRecords(), 1u);
  // The limit is runtime-tunable.
  FrontierOptions bigger = fr_->options();
  bigger.max_url_data = 64;
  ASSERT_TRUE(fr_->UpdateOptions(bigger, now_).ok());
  EXPECT_EQ(Add("http://c.com/", "", With("123456789")), AddOutcome::kAdded);
}

TEST_F(FrontierDataTest, MaddCarriesAValuePerLink) {
  Open();
  Add("http://a.com/known", "", With("old"));
  std::vector<std::string_view> urls = {"http://a.com/x", "http://a.com/known",
                                        "not a url", "http://a.com/x"};
  std::vector<std::string_view> data = {"x1", "new", "bad", "x2"};
  auto r = fr_->AddManyWithData("http://a.com/known", urls, data, now_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].value(), AddOutcome::kAdded);
  EXPECT_EQ((*r)[1].value(), AddOutcome::kKnown);
  EXPECT_FALSE((*r)[2].ok());
  EXPECT_EQ((*r)[3].value(), AddOutcome::kKnown);
  EXPECT_EQ(DataOf("http://a.com/x"), "x1");  // the first given wins
  EXPECT_EQ(DataOf("http://a.com/known"), "old");
  EXPECT_EQ(Info("http://a.com/x").depth, 2);  // the ref still counts
  std::vector<std::string_view> short_data = {"only one"};
  EXPECT_FALSE(fr_->AddManyWithData("", urls, short_data, now_).ok());
  // The old form stores no value.
  std::vector<std::string_view> plain = {"http://a.com/plain"};
  ASSERT_TRUE(fr_->AddMany("", plain, now_).ok());
  EXPECT_EQ(DataOf("http://a.com/plain"), std::nullopt);
}

TEST_F(FrontierDataTest, ValueSurvivesFailExpiryRecrawlAndReopen) {
  Open();
  Add("http://a.com/f", "", With("f"));
  Add("http://b.com/e", "", With("e"));
  Add("http://c.com/r", "", Every(60'000));
  ASSERT_TRUE(fr_->Add("http://c.com/r", "", With("r", true), now_).ok());
  ASSERT_EQ(PopData(10, 1000).size(), 3u);
  EXPECT_TRUE(Fail("http://a.com/f"));          // back to the queue
  EXPECT_TRUE(Confirm("http://c.com/r"));       // recrawl in a minute
  now_ += 2000;                                 // b.com/e's lease expires
  Tick();
  std::vector<PoppedUrl> again = PopData(10);
  ASSERT_EQ(again.size(), 2u);
  for (const PoppedUrl& p : again) {
    EXPECT_EQ(p.data, p.url == "http://a.com/f" ? "f" : "e") << p.url;
  }
  now_ += 60'000;
  Open();  // closes and reopens the directory
  std::vector<PoppedUrl> recrawled = PopData(10);
  ASSERT_EQ(recrawled.size(), 1u);
  EXPECT_EQ(recrawled[0].url, "http://c.com/r");
  EXPECT_EQ(recrawled[0].data, "r");
  EXPECT_EQ(DataOf("http://a.com/f"), "f");
  EXPECT_EQ(Info("http://a.com/f").created_ms, kT0);
}

TEST_F(FrontierDataTest, SiteDeleteRemovesTheValues) {
  Open();
  for (int i = 0; i < 5; ++i) {
    Add("http://gone.com/" + std::to_string(i), "", With("v"));
  }
  Add("http://kept.com/", "", With("k"));
  PopData(2);  // some leased: the values go whatever the state
  ASSERT_EQ(DataRecords(), 6u);
  auto removed = fr_->DeleteSite("gone.com", now_);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 5u);
  EXPECT_EQ(DataRecords(), 1u);
  EXPECT_EQ(DataOf("http://kept.com/"), "k");
  // Added again, the URL starts without a value.
  Add("http://gone.com/0");
  EXPECT_EQ(DataOf("http://gone.com/0"), std::nullopt);
}

TEST_F(FrontierDataTest, LargeSiteDeleteRemovesTheValuesInTheBackground) {
  Open();
  static_cast<FrontierImpl&>(*fr_).SetDeleteSiteBoundForTesting(10);
  std::vector<std::string> urls;
  for (int i = 0; i < 600; ++i) {
    urls.push_back("http://big.com/" + std::to_string(i));
  }
  std::vector<std::string_view> views(urls.begin(), urls.end());
  std::vector<std::string_view> data(urls.size(), "payload");
  ASSERT_TRUE(fr_->AddManyWithData("", views, data, now_).ok());
  Add("http://kept.com/", "", With("k"));
  ASSERT_EQ(DataRecords(), 601u);
  ASSERT_TRUE(fr_->DeleteSite("big.com", now_).ok());
  // A restart in the middle resumes the removal.
  ASSERT_TRUE(fr_->Tick(now_).ok());
  Open();
  for (int i = 0; i < 100; ++i) {
    auto t = fr_->Tick(now_);
    ASSERT_TRUE(t.ok());
    if (!t->more_due) break;
  }
  EXPECT_EQ(DataRecords(), 1u);
  EXPECT_EQ(DataOf("http://kept.com/"), "k");
}

}  // namespace
}  // namespace frontier
