// `order date` (URL Frontier's order, issue 23): a site's queue, and the
// choice between sites, goes by the URL's date in seconds: a new URL's
// creation, a recrawl's or retry's due date; a URL whose lease ran out
// keeps its place. Kept across a reopen; a directory of another order is
// refused, and the other way round.
#include <string>
#include <vector>

#include "storage/frontier_fixture.h"
#include "storage/import_records.h"

namespace frontier {
namespace {

class DateOrderTest : public FrontierFixture {
 protected:
  void SetUp() override {
    FrontierFixture::SetUp();
    opts_.order = QueueOrder::kDate;
  }
  void AddAt(int64_t at_ms, const std::string& url, AddOptions o = {}) {
    now_ = at_ms;
    Add(url, "", o);
  }
};

TEST_F(DateOrderTest, UrlsComeOutByTheirDates) {
  Open();
  // Stored out of date order across two sites; hashes do not matter.
  AddAt(kT0 + 40'000, "http://a.com/40");
  AddAt(kT0 + 10'000, "http://b.com/10");
  AddAt(kT0 + 30'000, "http://b.com/30");
  AddAt(kT0 + 20'000, "http://a.com/20");
  AddAt(kT0, "http://a.com/r", Every(25'000));
  now_ = kT0;
  ASSERT_EQ(PopOne(), "http://a.com/r");
  ASSERT_TRUE(Confirm("http://a.com/r"));  // due again at kT0 + 25 s
  now_ = kT0 + 60'000;
  Tick();  // the recrawl is queued with its date
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();  // the order is in the keys: a reopen keeps it
  std::vector<std::string> popped;
  for (int i = 0; i < 5; ++i) popped.push_back(PopOne());
  EXPECT_EQ(popped, (std::vector<std::string>{
                        "http://b.com/10", "http://a.com/20",
                        "http://a.com/r", "http://b.com/30",
                        "http://a.com/40"}));
}

TEST_F(DateOrderTest, ALeaseThatRunsOutKeepsItsPlace) {
  Open();
  AddAt(kT0, "http://a.com/first");
  AddAt(kT0 + 5'000, "http://a.com/second");
  now_ = kT0 + 10'000;
  ASSERT_EQ(Pop(1, 1'000), std::vector<std::string>{"http://a.com/first"});
  AddAt(kT0 + 10'500, "http://a.com/third");
  now_ = kT0 + 12'000;
  Tick();  // the lease ran out
  EXPECT_EQ(Pop(3), (std::vector<std::string>{"http://a.com/first",
                                              "http://a.com/second",
                                              "http://a.com/third"}));
}

TEST_F(DateOrderTest, AnImportedQueuedUrlKeepsItsDate) {
  // An export of an `order date` frontier gives a queued URL's date as
  // its due date (URLINFO's `due`); without one, its creation date.
  Open();
  ImportBatch batch;
  auto queued = [](std::string url, int64_t created_ms, int64_t due_ms) {
    ImportUrl u;
    u.url = std::move(url);
    u.state = StoredState::kQueued;
    u.created_ms = created_ms;
    u.due_ms = due_ms;
    return u;
  };
  batch.items = {queued("http://a.com/late", kT0 - 9'000, kT0 - 1'000),
                 queued("http://a.com/early", kT0 - 5'000, kT0 - 3'000),
                 queued("http://a.com/created", kT0 - 2'000, 0)};
  auto out = fr_->Import(batch, now_);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Pop(3), (std::vector<std::string>{"http://a.com/early",
                                              "http://a.com/created",
                                              "http://a.com/late"}));
}

TEST_F(DateOrderTest, ADirectoryOfAnotherOrderIsRefused) {
  // Opens the directory with `order` after a URL was stored with the
  // order in opts_; the refusal's message.
  auto refusal = [this](QueueOrder order) {
    Open();
    Add("http://a.com/");
    fr_.reset();
    opts_.order = order;
    auto f = Frontier::Open(opts_);
    return f.ok() ? std::string("opened") : f.status().ToString();
  };
  EXPECT_NE(refusal(QueueOrder::kBfs).find("order=date"), std::string::npos);
  // And a bfs directory is refused to `order date`.
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  EXPECT_NE(refusal(QueueOrder::kDate).find("order=bfs"), std::string::npos);
}

}  // namespace
}  // namespace frontier
