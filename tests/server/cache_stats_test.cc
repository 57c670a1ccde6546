// End to end: INFO's Berkeley DB cache counters (# Memory: cache_misses,
// cache_pages_read, cache_misses_per_command) move when the cache is too
// small for the data and stay still when it holds it all.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

// 40,000 URLs over 100 sites: about 3 MB of B-tree pages (U, Q, sites).
constexpr int kUrls = 40'000;
constexpr int kBatch = 100;

std::string UrlOf(int i) {
  return "http://s" + std::to_string(i % 100) + ".example/page/" +
         std::to_string(i);
}

class CacheStatsTest : public FrontierdTest {
 protected:
  // MADD of every URL, pipelined, each reply checked.
  void Load() {
    std::unique_ptr<Client> conn = Connect(std::chrono::seconds(60));
    Client& c = *conn;
    for (int i = 0; i < kUrls; i += kBatch) {
      std::vector<std::string> args = {"MADD", ""};
      for (int j = i; j < i + kBatch; ++j) args.push_back(UrlOf(j));
      c.Append(args);
    }
    for (int i = 0; i < kUrls; i += kBatch) {
      Reply r = c.GetReply();
      ASSERT_TRUE(r.IsArray()) << r;
      ASSERT_EQ(r.elements.size(), static_cast<size_t>(kBatch));
      ASSERT_EQ(r.elements[0], Int(1)) << "batch at " << i;
    }
  }
  // MSEEN of every URL, in an order that jumps about U (a stride prime to
  // kUrls), so that each batch touches pages all over the tree.
  void ReadAll() {
    std::unique_ptr<Client> conn = Connect(std::chrono::seconds(60));
    Client& c = *conn;
    int k = 0;
    for (int i = 0; i < kUrls; i += kBatch) {
      std::vector<std::string> args = {"MSEEN"};
      for (int j = 0; j < kBatch; ++j) {
        args.push_back(UrlOf(k));
        k = (k + 7919) % kUrls;
      }
      c.Append(args);
    }
    for (int i = 0; i < kUrls; i += kBatch) {
      Reply r = c.GetReply();
      ASSERT_TRUE(r.IsArray()) << r;
      ASSERT_EQ(r.elements.size(), static_cast<size_t>(kBatch));
      ASSERT_EQ(r.elements[0], Int(1));
    }
  }
  std::map<std::string, std::string> Info() {
    return InfoMap(Cmd({"INFO", "all"}).str);
  }
  static double Num(std::map<std::string, std::string>& info,
                    const std::string& key) {
    EXPECT_TRUE(info.count(key)) << key;
    return info.count(key) ? std::stod(info[key]) : -1;
  }
};

class SmallCacheTest : public CacheStatsTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--cache-size", "1mb", "--fsync", "no"});
    return args;
  }
};

class LargeCacheTest : public CacheStatsTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--cache-size", "64mb", "--fsync", "no"});
    return args;
  }
};

TEST_F(SmallCacheTest, ReadsMissTheCacheAndInfoCountsThemPerCommand) {
  ASSERT_NO_FATAL_FAILURE(Load());
  ASSERT_EQ(Cmd({"CONFIG", "RESETSTAT"}), StatusReply("OK"));
  auto before = Info();
  ASSERT_NO_FATAL_FAILURE(ReadAll());
  auto after = Info();
  const double misses =
      Num(after, "cache_misses") - Num(before, "cache_misses");
  EXPECT_GT(misses, kUrls / kBatch) << "a 1 MB cache holds ~3 MB of pages";
  EXPECT_GE(Num(after, "cache_pages_read") - Num(before, "cache_pages_read"),
            misses * 0.9);
  // Commands since the reset: RESETSTAT, the first INFO and the MSEENs
  // (an INFO does not count itself). The misses since the reset: the
  // MSEENs', plus any between the reset and the first INFO, which that
  // INFO's ratio shows (over its one command). The load's are left out.
  const double commands = Num(after, "total_commands_processed");
  ASSERT_EQ(commands, 2 + kUrls / kBatch);
  const double since_reset = misses + Num(before, "cache_misses_per_command");
  EXPECT_NEAR(Num(after, "cache_misses_per_command"), since_reset / commands,
              1e-6);
  EXPECT_GT(Num(after, "cache_misses_per_command"), 1.0)
      << "each MSEEN of 100 URLs spread over U reads pages";
}

TEST_F(LargeCacheTest, ReadsOfDataInTheCacheMissNothing) {
  ASSERT_NO_FATAL_FAILURE(Load());
  ASSERT_EQ(Cmd({"CONFIG", "RESETSTAT"}), StatusReply("OK"));
  auto before = Info();
  ASSERT_NO_FATAL_FAILURE(ReadAll());
  auto after = Info();
  EXPECT_EQ(Num(after, "cache_misses"), Num(before, "cache_misses"));
  EXPECT_EQ(Num(after, "cache_misses_per_command"), 0);
  EXPECT_GT(Num(after, "cache_hits"), Num(before, "cache_hits") + kUrls);
}

}  // namespace
}  // namespace frontier::itest
