// The storage tests' fixture: the Frontier verbs against a temporary
// Berkeley DB environment (removed after the test), with the clock (now_)
// in the test's hands and no politeness unless the test sets opts_ before
// Open().
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/frontier.h"

namespace frontier {

// A fixed "now" in ms: Tue, 14 Nov 2023 22:13:20 GMT.
inline constexpr int64_t kT0 = 1'700'000'000'000;

inline AddOptions Prio(int p) {
  AddOptions o;
  o.priority = p;
  return o;
}
inline AddOptions Every(int64_t ms) {
  AddOptions o;
  o.recrawl_ms = ms;
  return o;
}

class FrontierFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/frontier_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    opts_.dir = dir_;
    opts_.cache_bytes = 8 << 20;
    opts_.politeness_delay_ms = 0;
    opts_.site_max_leases = 0;
  }
  void TearDown() override {
    fr_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    fr_.reset();
    auto f = Frontier::Open(opts_);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fr_ = std::move(f).value();
  }
  // Crash: the environment goes without a checkpoint or a write-back of
  // the journal (Close(skip_checkpoint) commits and flushes no more than a
  // kill -9 after the last FlushLog would have left), and comes back with
  // recovery and the journal's replay.
  void CrashAndReopen() {
    ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
    Open();
  }
  // A crash right after a write-back slice (a second later: at most one
  // a second).
  void SliceAndCrash() {
    now_ += 1000;
    ASSERT_TRUE(fr_->WriteBehind(now_, now_ + 3'600'000).ok());
    CrashAndReopen();
  }
  // A crash right after the recovery of a crash.
  void CrashTwice() {
    CrashAndReopen();
    if (!::testing::Test::HasFatalFailure()) CrashAndReopen();
  }
  AddOutcome Add(std::string_view url, std::string_view ref = "",
                 AddOptions o = {}) {
    auto r = fr_->Add(url, ref, o, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AddOutcome::kRefused;
  }
  std::vector<std::string> Pop(size_t n, int64_t lease_ms = 0) {
    auto r = fr_->Pop(n, lease_ms, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<std::string>{};
  }
  std::string PopOne() {
    auto v = Pop(1);
    return v.empty() ? "" : v[0];
  }
  UrlInfo Info(std::string_view url) {
    auto r = fr_->Info(url);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r.ok() && r->has_value()) << url;
    return r.ok() && r->has_value() ? **r : UrlInfo{};
  }
  bool Confirm(std::string_view url) {
    auto r = fr_->Confirm(url, {}, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  bool Fail(std::string_view url, int64_t delay_ms = 0) {
    FailOptions options;
    options.delay_ms = delay_ms;
    auto r = fr_->Fail(url, options, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  void Tick() {
    auto r = fr_->Tick(now_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::string dir_;
  FrontierOptions opts_;
  std::unique_ptr<Frontier> fr_;
  int64_t now_ = kT0;
};

}  // namespace frontier
