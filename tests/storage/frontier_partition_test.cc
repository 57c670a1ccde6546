// Partitions in the storage layer: POP limited to one partition, the
// per-partition counts, and re-mapping by UpdateOptions and at restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/frontier.h"
#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

partition::PartitionMap MapOf(std::string_view text) {
  partition::PartitionMap map;
  std::string error;
  EXPECT_TRUE(map.AddText(text, &error)) << error;
  return map;
}

class FrontierPartitionTest : public FrontierFixture {
 protected:
  void SetUp() override {
    FrontierFixture::SetUp();
    opts_.site_max_leases = 1;
    opts_.partitions = MapOf("edu edu, ex example.com");
  }
  std::vector<std::string> PopIn(std::string_view name, size_t n) {
    std::optional<size_t> p = fr_->options().partitions.Find(name);
    EXPECT_TRUE(p) << name;
    if (!p) return {};
    auto r = fr_->PopPartition(*p, n, 0, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<std::string>{};
  }
  PartitionStats InfoOf(std::string_view name) {
    std::optional<size_t> p = fr_->options().partitions.Find(name);
    EXPECT_TRUE(p) << name;
    return fr_->PartitionInfo(p.value_or(0));
  }
};

TEST_F(FrontierPartitionTest, PopPartitionHandsOutOnlyItsSites) {
  opts_.site_max_leases = 0;
  Open();
  for (const char* u : {"http://cs.mit.edu/1", "http://cs.mit.edu/2",
                        "http://www.example.com/1", "http://example.com/1",
                        "http://badexample.com/1", "http://other.org/1"}) {
    Add(u);
  }
  EXPECT_EQ(InfoOf("edu").sites, 1u);
  EXPECT_EQ(InfoOf("ex").sites, 2u);
  EXPECT_EQ(InfoOf("default").sites, 2u);
  EXPECT_EQ(InfoOf("ex").queued, 2u);

  std::vector<std::string> ex = PopIn("ex", 10);
  std::sort(ex.begin(), ex.end());
  EXPECT_EQ(ex, (std::vector<std::string>{"http://example.com/1",
                                          "http://www.example.com/1"}));
  EXPECT_TRUE(PopIn("ex", 10).empty());
  EXPECT_EQ(PopIn("edu", 10).size(), 2u);
  PartitionStats edu = InfoOf("edu");
  EXPECT_EQ(edu.leased, 2u);
  EXPECT_EQ(edu.queued, 0u);
  EXPECT_EQ(edu.popped, 2u);
  ASSERT_TRUE(fr_->Confirm("http://cs.mit.edu/1", {}, now_).ok());
  EXPECT_EQ(InfoOf("edu").done, 1u);
  EXPECT_EQ(InfoOf("edu").confirmed, 1u);
  EXPECT_EQ(InfoOf("edu").leased, 1u);
  // POP without a partition still takes any: what is left is default's.
  auto rest = fr_->Pop(10, 0, now_);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->size(), 2u);
  EXPECT_EQ(InfoOf("default").popped, 2u);
  EXPECT_FALSE(fr_->PopPartition(3, 1, 0, now_).ok());
}

TEST_F(FrontierPartitionTest, CapacityCountsReadyAndLeasedUpToTheCap) {
  opts_.site_max_leases = 2;
  Open();
  for (int i = 0; i < 3; ++i) Add("http://a.edu/" + std::to_string(i));
  Add("http://b.edu/1");
  // a.edu could run 2 at once (its cap), b.edu 1.
  EXPECT_EQ(InfoOf("edu").capacity, 3u);
  EXPECT_EQ(InfoOf("edu").ready_sites, 2u);
  EXPECT_EQ(PopIn("edu", 4).size(), 3u);  // a.edu twice, b.edu once
  PartitionStats s = InfoOf("edu");
  EXPECT_EQ(s.leased, 3u);
  EXPECT_EQ(s.capacity, 3u);
  EXPECT_EQ(s.ready_sites, 0u);
  ASSERT_TRUE(fr_->Confirm("http://b.edu/1", {}, now_).ok());
  EXPECT_EQ(InfoOf("edu").capacity, 2u);
  EXPECT_EQ(InfoOf("ex").capacity, 0u);
}

TEST_F(FrontierPartitionTest, NewMapReplacesSitesAndKeepsLeases) {
  Open();
  Add("http://cs.mit.edu/1");
  Add("http://cs.mit.edu/2");
  Add("http://www.example.com/1");
  const std::vector<std::string> first = PopIn("edu", 1);
  ASSERT_EQ(first.size(), 1u);
  const std::string other = first[0] == "http://cs.mit.edu/1"
                                ? "http://cs.mit.edu/2"
                                : "http://cs.mit.edu/1";
  auto leased = fr_->Info(first[0]);
  ASSERT_TRUE(leased.ok() && leased->has_value());
  const int64_t due = (*leased)->due_ms;

  FrontierOptions changed = fr_->options();
  changed.partitions = MapOf("mit mit.edu, ex example.com");
  ASSERT_TRUE(fr_->UpdateOptions(changed, now_).ok());
  EXPECT_FALSE(fr_->options().partitions.Find("edu"));
  PartitionStats mit = InfoOf("mit");
  EXPECT_EQ(mit.sites, 1u);
  EXPECT_EQ(mit.queued, 1u);
  EXPECT_EQ(mit.leased, 1u);
  EXPECT_EQ(mit.popped, 0u);  // a new partition counts from now
  EXPECT_EQ(InfoOf("ex").queued, 1u);
  auto after = fr_->Info(first[0]);
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->state, UrlState::kLeased);
  EXPECT_EQ((*after)->due_ms, due);
  // The lease cap still holds: cs.mit.edu is at its one lease.
  EXPECT_TRUE(PopIn("mit", 1).empty());
  ASSERT_TRUE(fr_->Confirm(first[0], {}, now_).ok());
  EXPECT_EQ(PopIn("mit", 1), std::vector<std::string>{other});

  // A restart with yet another map: counts are rebuilt from the sites.
  opts_.partitions = partition::PartitionMap();
  Open();
  PartitionStats all = InfoOf("default");
  EXPECT_EQ(all.sites, 2u);
  EXPECT_EQ(all.queued, 1u);
  EXPECT_EQ(all.leased, 1u);
  EXPECT_EQ(all.done, 1u);
  EXPECT_EQ(PopIn("default", 5),
            std::vector<std::string>{"http://www.example.com/1"});
}

}  // namespace
}  // namespace frontier
