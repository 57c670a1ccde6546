// End to end: what survives a restart. A clean stop (SIGTERM, SHUTDOWN)
// keeps everything; kill -9 after acknowledged writes with `fsync always`
// loses nothing that was acknowledged.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::string NumberedUrl(int i) {
  return "http://site" + std::to_string(i % 37) + ".example.com/page/" +
         std::to_string(i);
}

class DurabilityTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--max-attempts", "1", "--fsync", "always"});
    return args;
  }

  // Site readiness is refreshed by the timer (every timer-ms), so right
  // after a start ready_sites may lag for a tick: wait (bounded) for STATS
  // to match, then compare.
  void ExpectStatsRestored(const Counters& expected) {
    Stopwatch watch;
    auto now = Stats();
    while (now != expected && watch.Elapsed() < seconds(1)) {
      std::this_thread::sleep_for(milliseconds(10));
      now = Stats();
    }
    EXPECT_EQ(now, expected);
  }

  // URLINFO of each URL.
  std::map<std::string, std::map<std::string, std::string>> Snapshot(
      const std::vector<std::string>& urls) {
    std::map<std::string, std::map<std::string, std::string>> m;
    for (const std::string& u : urls) m[u] = UrlInfo(u);
    return m;
  }
};

TEST_F(DurabilityTest, CleanRestartKeepsEveryState) {
  const std::string kQueued1 = "http://a.com/q1", kQueued2 = "http://a.com/q2",
                    kLeased = "http://a.com/leased",
                    kDone = "http://b.com/done",
                    kScheduled = "http://c.com/scheduled",
                    kDead = "http://d.com/dead";
  ASSERT_EQ(Cmd({"MADD", "", kQueued1, kQueued2}), Array({Int(1), Int(1)}));
  ASSERT_EQ(Cmd({"RECRAWL", kQueued2, "7200"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", kLeased, "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", kDone, "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", kScheduled, "", "PRIORITY", "3", "RECRAWL", "3600"}),
            Int(1));
  ASSERT_EQ(Cmd({"ADD", kDead, "", "PRIORITY", "4"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/child", kQueued1, "PRIORITY", "9999"}),
            Int(1));
  ASSERT_EQ(Cmd({"ADD", kQueued1}), Int(0));  // a back-link and a duplicate
  ASSERT_EQ(Cmd({"POP", "LEASE", "100"}), Bulk(kLeased));
  ASSERT_EQ(Cmd({"POP"}), Bulk(kDone));
  ASSERT_EQ(Cmd({"CONFIRM", kDone}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk(kScheduled));
  ASSERT_EQ(Cmd({"CONFIRM", kScheduled}), Int(1));
  ASSERT_EQ(Cmd({"POP"}), Bulk(kDead));
  ASSERT_EQ(Cmd({"FAIL", kDead}), Int(1));
  ASSERT_EQ(Cmd({"DELAY", "e.com", "3600"}), StatusReply("OK"));

  const std::vector<std::string> urls = {kQueued1,
                                         kQueued2,
                                         kLeased,
                                         kDone,
                                         kScheduled,
                                         kDead,
                                         "http://a.com/child"};
  auto before = Snapshot(urls);
  ASSERT_EQ(before[kLeased]["state"], "leased");
  ASSERT_EQ(before[kDone]["state"], "done");
  ASSERT_EQ(before[kScheduled]["state"], "scheduled");
  ASSERT_EQ(before[kDead]["state"], "dead");
  auto stats_before = Stats();

  ASSERT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart());

  auto after = Snapshot(urls);
  for (const std::string& u : urls) {
    EXPECT_EQ(after[u], before[u]) << u << " changed across the restart";
  }
  ExpectStatsRestored(stats_before);

  // The restored frontier behaves as before: only the queued URLs pop,
  // and the lease still belongs to its holder.
  Reply popped = Cmd({"POP", "COUNT", "10"});
  ASSERT_TRUE(popped.IsArray()) << popped;
  ASSERT_EQ(popped.elements.size(), 3u) << popped;
  std::vector<std::string> first_two = {popped.elements[0].str,
                                        popped.elements[1].str};
  std::sort(first_two.begin(), first_two.end());
  EXPECT_EQ(first_two, (std::vector<std::string>{kQueued1, kQueued2}));
  EXPECT_EQ(popped.elements[2], Bulk("http://a.com/child"));
  EXPECT_EQ(Cmd({"CONFIRM", kLeased}), Int(1));
  EXPECT_EQ(Cmd({"CONFIRM", kDone}), Int(0));
  // The recrawl period set on a queued URL survived too.
  EXPECT_EQ(UrlInfo(kQueued2)["recrawl"], "7200");
  // So did the per-site delay: the second URL of e.com waits.
  ASSERT_EQ(Cmd({"MADD", "", "http://e.com/1", "http://e.com/2"}),
            Array({Int(1), Int(1)}));
  Reply e = Cmd({"POP", "COUNT", "10"});
  ASSERT_TRUE(e.IsArray()) << e;
  EXPECT_EQ(e.elements.size(), 1u) << "DELAY e.com 3600 was forgotten: " << e;
}

class DurabilityLeaseTest : public FrontierdTest {};

// Two leases cross a restart: a long one (an hour), which must still hold
// however slow the restart was, and a short one (1.5 s), which must run
// out at its stored deadline, not before and not never.
TEST_F(DurabilityLeaseTest, LeaseDeadlineSurvivesRestart) {
  const std::string kLong = "http://long.com/", kShort = "http://short.com/";
  ASSERT_EQ(Cmd({"ADD", kLong, "", "PRIORITY", "1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", kShort, "", "PRIORITY", "2"}), Int(1));
  ASSERT_EQ(Cmd({"POP", "LEASE", "3600"}), Bulk(kLong));
  Stopwatch watch;
  ASSERT_EQ(Cmd({"POP", "LEASE", "1.5"}), Bulk(kShort));
  const std::string long_due = UrlInfo(kLong)["due"];
  const std::string short_due = UrlInfo(kShort)["due"];
  ASSERT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(UrlInfo(kLong)["due"], long_due);
  EXPECT_EQ(UrlInfo(kShort)["due"], short_due);
  EXPECT_EQ(UrlInfo(kLong)["state"], "leased")
      << "the lease was dropped by the restart";
  // Only the short lease runs out (PopUntil fails if the long one comes
  // out instead), and not before its deadline.
  ASSERT_TRUE(PopUntil(kShort, seconds(5)));
  EXPECT_GE(watch.Elapsed(), milliseconds(1450));
  EXPECT_EQ(UrlInfo(kShort)["attempts"], "1");
  EXPECT_EQ(Cmd({"POP"}), Nil()) << "the hour-long lease did not hold";
  EXPECT_EQ(UrlInfo(kLong)["state"], "leased");
}

TEST_F(DurabilityTest, ShutdownCommandKeepsDataWithFsyncNo) {
  ASSERT_TRUE(server_->Stop() == 0);
  auto args = DefaultTestArgs();
  args.insert(args.end(), {"--fsync", "no"});
  ASSERT_TRUE(server_->Restart(args));
  auto c = Connect();
  for (int i = 0; i < 200; ++i) c->Append({"ADD", NumberedUrl(i)});
  for (int i = 0; i < 200; ++i) ASSERT_EQ(c->GetReply(), Int(1)) << i;
  ASSERT_EQ(Cmd({"POP", "COUNT", "50"}).elements.size(), 50u);
  Reply r = c->Cmd({"SHUTDOWN"});
  EXPECT_TRUE(r.IsIoError() || r == StatusReply("OK")) << r;
  ASSERT_EQ(server_->WaitForExit(seconds(10)), 0);
  ASSERT_TRUE(server_->Restart());
  auto s = Stats();
  EXPECT_EQ(s["urls"], 200);
  EXPECT_EQ(s["leased"], 50);
  EXPECT_EQ(s["queued"], 150);
  EXPECT_EQ(s["popped"], 50);
}

TEST_F(DurabilityTest, Kill9LosesNoAcknowledgedWrite) {
  constexpr int kUrls = 2000, kConfirmed = 500, kPopped = 100;
  auto c = Connect(seconds(30));
  for (int i = 0; i < kUrls; ++i) c->Append({"ADD", NumberedUrl(i)});
  for (int i = 0; i < kUrls; ++i) ASSERT_EQ(c->GetReply(), Int(1)) << i;
  for (int i = 0; i < kConfirmed; ++i) c->Append({"CONFIRM", NumberedUrl(i)});
  for (int i = 0; i < kConfirmed; ++i) ASSERT_EQ(c->GetReply(), Int(1)) << i;
  Reply popped =
      c->Cmd({"POP", "COUNT", std::to_string(kPopped), "LEASE", "3600"});
  ASSERT_TRUE(popped.IsArray()) << popped;
  ASSERT_EQ(popped.elements.size(), static_cast<size_t>(kPopped));
  const std::string failed = popped.elements[0].str;
  ASSERT_EQ(c->Cmd({"FAIL", failed}), Int(1));  // max-attempts 1: dead
  ASSERT_EQ(c->Cmd({"RECRAWL", NumberedUrl(0), "3600"}), Int(1));
  ASSERT_EQ(c->Cmd({"ADD", NumberedUrl(1)}), Int(0));  // one more back-link

  std::vector<std::string> sample = {failed, NumberedUrl(0), NumberedUrl(1)};
  for (const Reply& e : popped.elements) sample.push_back(e.str);
  for (int i = 0; i < kUrls; i += 97) sample.push_back(NumberedUrl(i));
  auto before = Snapshot(sample);
  auto stats_before = Stats();
  ASSERT_EQ(stats_before["urls"], kUrls);

  c.reset();
  server_->Kill9();
  ASSERT_TRUE(server_->Restart());

  c = Connect(seconds(30));
  for (int i = 0; i < kUrls; ++i) c->Append({"SEEN", NumberedUrl(i)});
  int unseen = 0;
  for (int i = 0; i < kUrls; ++i) {
    if (c->GetReply() != Int(1)) ++unseen;
  }
  EXPECT_EQ(unseen, 0) << "acknowledged ADDs lost by kill -9";
  for (int i = 1; i < kConfirmed; ++i) c->Append({"URLINFO", NumberedUrl(i)});
  int not_done = 0;
  for (int i = 1; i < kConfirmed; ++i) {
    if (FieldMap(c->GetReply())["state"] != "done") ++not_done;
  }
  EXPECT_EQ(not_done, 0) << "acknowledged CONFIRMs lost by kill -9";
  auto after = Snapshot(sample);
  for (const std::string& u : sample) {
    EXPECT_EQ(after[u], before[u]) << u << " changed across kill -9";
  }
  ExpectStatsRestored(stats_before);
}

TEST_F(DurabilityTest, Kill9DuringAPipelinedStream) {
  // A writer streams pipelined ADDs; kill -9 lands at an arbitrary moment.
  // Every ADD whose reply arrived must be there after the restart.
  std::atomic<int> acknowledged{0};
  std::vector<int> acked_ids;
  auto writer_client = Connect(seconds(10));
  std::thread writer([&] {
    constexpr int kBatch = 64;
    for (int base = 0; base < 200'000; base += kBatch) {
      for (int i = base; i < base + kBatch; ++i)
        writer_client->Append({"ADD", NumberedUrl(i)});
      for (int i = base; i < base + kBatch; ++i) {
        Reply r = writer_client->GetReply();
        if (r.IsIoError()) return;
        if (r == Int(1)) {
          acked_ids.push_back(i);
          acknowledged.store(static_cast<int>(acked_ids.size()));
        }
      }
    }
  });
  Stopwatch watch;
  while (acknowledged.load() < 1500 && watch.Elapsed() < seconds(30)) {
    std::this_thread::sleep_for(milliseconds(2));
  }
  server_->Kill9();
  writer.join();
  ASSERT_GE(acked_ids.size(), 1500u);
  ASSERT_TRUE(server_->Restart());
  auto c = Connect(seconds(30));
  for (int id : acked_ids) c->Append({"SEEN", NumberedUrl(id)});
  int lost = 0;
  for (size_t k = 0; k < acked_ids.size(); ++k) {
    if (c->GetReply() != Int(1)) ++lost;
  }
  EXPECT_EQ(lost, 0) << "of " << acked_ids.size() << " acknowledged ADDs";
  EXPECT_GE(Stats()["urls"], static_cast<long long>(acked_ids.size()));
}

TEST_F(DurabilityTest, SigintIsACleanStopToo) {
  ASSERT_EQ(Cmd({"MADD", "", "http://a.com/1", "http://a.com/2"}),
            Array({Int(1), Int(1)}));
  ASSERT_EQ(Cmd({"POP", "LEASE", "600"}).type, Reply::Type::kString);
  auto stats_before = Stats();
  ASSERT_TRUE(server_->Signal(SIGINT));
  EXPECT_EQ(server_->WaitForExit(seconds(10)), 0);
  ASSERT_TRUE(server_->Restart());
  ExpectStatsRestored(stats_before);
}

class DurabilityCheckpointTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    // fsync no only to make the volume quick to write; removal does not
    // depend on it.
    args.insert(args.end(), {"--checkpoint-interval", "0.3", "--fsync", "no"});
    return args;
  }
  int LogFiles() {
    int n = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(server_->data_dir())) {
      if (entry.path().filename().string().rfind("log.", 0) == 0) ++n;
    }
    return n;
  }
};

TEST_F(DurabilityCheckpointTest, OldLogsAreRemovedAndTheDataStays) {
  // ADDs until a second log file exists (tens of MB of log), bounded.
  constexpr int kMaxUrls = 1'000'000, kBatch = 1000;
  const std::string second_log = server_->data_dir() + "/log.0000000002";
  auto c = Connect(seconds(30));
  int kUrls = 0;
  while (!std::filesystem::exists(second_log) && kUrls < kMaxUrls) {
    for (int i = kUrls; i < kUrls + kBatch; ++i)
      c->Append({"ADD", NumberedUrl(i)});
    for (int i = kUrls; i < kUrls + kBatch; ++i)
      ASSERT_EQ(c->GetReply(), Int(1)) << i;
    kUrls += kBatch;
  }
  ASSERT_TRUE(std::filesystem::exists(second_log))
      << kUrls << " ADDs did not fill one log file";
  Stopwatch watch;
  while (LogFiles() > 1 && watch.Elapsed() < seconds(10)) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(LogFiles(), 1) << "log files no longer needed are kept";
  // The volume did fill the first log file (else this test proves nothing).
  EXPECT_FALSE(
      std::filesystem::exists(server_->data_dir() + "/log.0000000001"));
  ASSERT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(Stats()["urls"], kUrls);
  EXPECT_EQ(Cmd({"SEEN", NumberedUrl(kUrls - 1)}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", NumberedUrl(0)}), Int(1));
}

TEST_F(DurabilityTest, RestartsRepeatedly) {
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(Cmd({"ADD", "http://r" + std::to_string(round) + ".com/"}),
              Int(1));
    if (round % 2 == 0) {
      ASSERT_EQ(server_->Stop(), 0);
    } else {
      server_->Kill9();
    }
    ASSERT_TRUE(server_->Restart()) << "round " << round;
  }
  EXPECT_EQ(Stats()["urls"], 3);
}

TEST_F(DurabilityTest, SecondServerOnTheSameDirRefuses) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ProcessResult second =
      RunProcess({FrontierdBinary(), "--port", std::to_string(PickFreePort()),
                  "--dir", server_->data_dir()},
                 "", seconds(10));
  EXPECT_FALSE(second.timed_out) << "a second server ran on a directory in use";
  EXPECT_NE(second.exit_code, 0);
  // The first one is unharmed.
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/"}), Int(1));
}

TEST_F(DurabilityTest, ChangingTheOrderOfExistingDataIsRefused) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(server_->Stop(), 0);
  ProcessResult r =
      RunProcess({FrontierdBinary(), "--port", std::to_string(PickFreePort()),
                  "--dir", server_->data_dir(), "--order", "priority"},
                 "", seconds(10));
  EXPECT_FALSE(r.timed_out)
      << "frontierd started on data written with another order";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("order"), std::string::npos) << r.out << r.err;
  // The data is intact for the original configuration.
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/"}), Int(1));
}

}  // namespace
}  // namespace frontier::itest
