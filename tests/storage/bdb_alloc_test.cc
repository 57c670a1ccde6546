// The allocator behind Berkeley DB's cache (storage/bdb_alloc.h): page-
// shaped buffers at their exact size, reused, never overlapping, and a
// frontier's cache served from it. Each test runs in a process of its own
// (gtest_discover_tests), so the process-wide counts start at zero.
#include "storage/bdb_alloc.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "storage/frontier.h"

namespace frontier::bdb {
namespace {

// An 8 KiB page and a header: what Berkeley DB asks for a urls.db buffer.
constexpr size_t kBuffer = 8192 + 96;

TEST(BdbAlloc, AFreedBufferIsReusedForTheNextOfItsSize) {
  void* p = Allocate(kBuffer);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(GetAllocatorStats().pooled_in_use, 1u);
  Free(p);
  EXPECT_EQ(GetAllocatorStats().pooled_in_use, 0u);
  void* q = Allocate(kBuffer);
  EXPECT_EQ(q, p);
  Free(q);
  EXPECT_EQ(GetAllocatorStats().pools, 1u);
}

TEST(BdbAlloc, OtherSizesGoToMallocAndAreCounted) {
  void* small = Allocate(100);
  void* large = Allocate(200 * 1024);  // above the largest page
  void* odd = Allocate(8192 + 2000);   // a page, but too big a header
  void* bare = Allocate(8192);         // a page alone
  AllocatorStats st = GetAllocatorStats();
  EXPECT_EQ(st.other_in_use, 4u);
  EXPECT_EQ(st.pooled_in_use, 0u);
  EXPECT_EQ(st.pooled_bytes, 0u);
  Free(small);
  Free(large);
  Free(odd);
  Free(bare);
  EXPECT_EQ(GetAllocatorStats().other_in_use, 0u);
}

TEST(BdbAlloc, BuffersArePackedAtTheirSizeAndNeverOverlap) {
  // 16 + 8288 = 8,304 bytes a slot. 600 buffers take 4.75 MiB, and the
  // blocks hold at most one more partly used block; jemalloc's 10 KiB size
  // class would take 5.9 MiB.
  constexpr int kCount = 600;
  std::vector<unsigned char*> bufs;
  for (int i = 0; i < kCount; ++i) {
    auto* b = static_cast<unsigned char*>(Allocate(kBuffer));
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(b) % 16, 0u);
    std::memset(b, i & 0xff, kBuffer);
    bufs.push_back(b);
  }
  EXPECT_LE(GetAllocatorStats().pooled_bytes, kCount * 8304 + (1u << 20));
  EXPECT_LT(GetAllocatorStats().pooled_bytes, kCount * 10240);
  EXPECT_EQ(GetAllocatorStats().pooled_in_use, static_cast<uint64_t>(kCount));
  for (int i = 0; i < kCount; ++i) {
    for (size_t j = 0; j < kBuffer; j += 509) {
      ASSERT_EQ(bufs[i][j], i & 0xff) << "buffer " << i << " byte " << j;
    }
    ASSERT_EQ(bufs[i][kBuffer - 1], i & 0xff);
  }
  for (unsigned char* b : bufs) Free(b);
  EXPECT_EQ(GetAllocatorStats().pooled_in_use, 0u);
}

TEST(BdbAlloc, ReallocateKeepsTheContentsAcrossPoolsAndMalloc) {
  auto* p = static_cast<char*>(Allocate(64));
  std::strcpy(p, "frontier");
  p = static_cast<char*>(Reallocate(p, kBuffer));  // malloc -> pool
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "frontier");
  EXPECT_EQ(GetAllocatorStats().pooled_in_use, 1u);
  EXPECT_EQ(GetAllocatorStats().other_in_use, 0u);
  std::memset(p + 9, 'x', kBuffer - 9);
  p = static_cast<char*>(Reallocate(p, 4096 + 96));  // pool -> smaller pool
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "frontier");
  EXPECT_EQ(p[4096 + 95], 'x');
  p = static_cast<char*>(Reallocate(p, 100000));  // pool -> malloc
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "frontier");
  EXPECT_EQ(p[4096 + 95], 'x');
  EXPECT_EQ(GetAllocatorStats().pooled_in_use, 0u);
  p = static_cast<char*>(Reallocate(p, 200000));  // malloc -> malloc
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "frontier");
  Free(p);
  EXPECT_EQ(GetAllocatorStats().other_in_use, 0u);
  Free(nullptr);
}

TEST(BdbAllocDeathTest, FreeOfAForeignPointerAborts) {
  alignas(16) static unsigned char foreign[64] = {};
  EXPECT_DEATH(Free(foreign + 16), "did not hand out");
}

// A frontier's cache comes from the pools, and stays near the size asked
// for: what a deployment's RSS relies on.
TEST(BdbAlloc, AFrontiersCacheIsServedAtItsSize) {
  char tmpl[] = "/tmp/bdb_alloc_test_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  {
    FrontierOptions opts;
    opts.dir = dir;
    opts.cache_bytes = 4 << 20;
    opts.politeness_delay_ms = 0;
    auto f = Frontier::Open(opts);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    std::unique_ptr<Frontier> fr = std::move(f).value();
    // About 8 MB of records: more than the cache holds.
    for (int batch = 0; batch < 60; ++batch) {
      std::vector<std::string> urls;
      for (int i = 0; i < 500; ++i) {
        urls.push_back("http://site" + std::to_string(batch * 500 + i) +
                       ".example/a/long/enough/path/to/fill/pages?n=" +
                       std::to_string(i));
      }
      std::vector<std::string_view> views(urls.begin(), urls.end());
      auto r = fr->AddMany("", views, 1'700'000'000'000);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
    AllocatorStats st = GetAllocatorStats();
    // Berkeley DB grows a cache under 500 MB by 25% for its own overhead;
    // the pools hold no more than that, plus one partly used block a size.
    const uint64_t cache = opts.cache_bytes * 5 / 4;
    EXPECT_GE(st.pooled_in_use * 4096, cache / 2)
        << "the cache's buffers do not come from the pools";
    EXPECT_LE(st.pooled_bytes, cache * 21 / 20 + st.pools * (1u << 20));
    // memp_stat's memory comes from malloc and is free()d: still works.
    auto cs = fr->CacheStats();
    ASSERT_TRUE(cs.ok()) << cs.status().ToString();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace frontier::bdb
