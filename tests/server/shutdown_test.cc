// End to end: the three ways to stop frontierd cleanly (SIGTERM, SIGINT,
// SHUTDOWN) under a pipelined load from several clients finish the
// commands in hand, checkpoint and exit 0; SHUTDOWN NOSAVE exits 0 without
// the checkpoint, and recovery at the next start brings back everything
// all the same.
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::string UrlOf(int client, int i) {
  return "http://c" + std::to_string(client) + ".stop.test/" +
         std::to_string(i);
}

enum class StopBy { kSigterm, kSigint, kShutdown, kShutdownNosave };

std::string Name(StopBy how) {
  switch (how) {
    case StopBy::kSigterm:
      return "Sigterm";
    case StopBy::kSigint:
      return "Sigint";
    case StopBy::kShutdown:
      return "Shutdown";
    case StopBy::kShutdownNosave:
      return "ShutdownNosave";
  }
  return "?";
}

class ShutdownTest : public FrontierdTest,
                     public ::testing::WithParamInterface<StopBy> {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--fsync", "always"});
    return args;
  }
  uintmax_t UrlsDbBytes() {
    std::error_code ec;
    uintmax_t n =
        std::filesystem::file_size(server_->data_dir() + "/urls.db", ec);
    return ec ? 0 : n;
  }
};

TEST_P(ShutdownTest, FinishesCommandsInHandAndExits0) {
  constexpr int kClients = 3, kBatch = 50;
  const StopBy how = GetParam();
  const uintmax_t bytes_at_start = UrlsDbBytes();
  ASSERT_GT(bytes_at_start, 0u);

  // Clients stream pipelined ADDs and record which ones were answered
  // and how many were sent.
  std::vector<std::vector<int>> acked(kClients);
  std::vector<int> sent(kClients, 0);
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int k = 0; k < kClients; ++k) {
    clients.emplace_back([&, k] {
      Client c(server_->port(), seconds(10));
      for (int base = 0; c.ok(); base += kBatch) {
        for (int i = base; i < base + kBatch; ++i)
          c.Append({"ADD", UrlOf(k, i)});
        sent[k] = base + kBatch;
        for (int i = base; i < base + kBatch; ++i) {
          Reply r = c.GetReply();
          if (r.IsIoError()) return;
          if (r == Int(1)) {
            acked[k].push_back(i);
            answered.fetch_add(1);
          }
        }
      }
    });
  }
  Stopwatch watch;
  while (answered.load() < 2000 && watch.Elapsed() < seconds(20)) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_GE(answered.load(), 2000);

  switch (how) {
    case StopBy::kSigterm:
      ASSERT_TRUE(server_->Signal(SIGTERM));
      break;
    case StopBy::kSigint:
      ASSERT_TRUE(server_->Signal(SIGINT));
      break;
    case StopBy::kShutdown:
    case StopBy::kShutdownNosave: {
      auto admin = Connect();
      Reply r = how == StopBy::kShutdown ? admin->Cmd({"SHUTDOWN"})
                                         : admin->Cmd({"SHUTDOWN", "NOSAVE"});
      EXPECT_TRUE(r.IsIoError())
          << "SHUTDOWN replies nothing on success: " << r;
      break;
    }
  }
  EXPECT_EQ(server_->WaitForExit(seconds(15)), 0);
  for (std::thread& t : clients) t.join();

  const std::string log = ReadFile(server_->log_path());
  EXPECT_NE(log.find("shutting down"), std::string::npos) << log;
  EXPECT_NE(log.find("ready to exit"), std::string::npos) << log;
  const bool nosave = how == StopBy::kShutdownNosave;
  EXPECT_EQ(log.find("Checkpointing before exit") != std::string::npos, !nosave)
      << log;
  // (Berkeley DB writes cached pages when the environment closes, with or
  // without a checkpoint, so the files' sizes cannot tell them apart.)
  EXPECT_GT(UrlsDbBytes(), bytes_at_start);

  // Everything that was answered is there after a restart (for NOSAVE,
  // through recovery from the log); and every ADD the server ran was
  // answered before it exited: an ADD that is stored but got no reply is a
  // command in hand that the stop dropped. Each client's replies come in
  // order, so the answered ADDs are the first ones it sent.
  ASSERT_TRUE(server_->Restart());
  auto c = Connect(seconds(30));
  size_t total = 0, lost = 0, unanswered = 0;
  for (int k = 0; k < kClients; ++k) {
    const int answered_k = static_cast<int>(acked[k].size());
    for (int n = 0; n < answered_k; ++n) {
      ASSERT_EQ(acked[k][n], n) << "client " << k << ": replies out of order";
    }
    for (int i = 0; i < sent[k]; ++i) c->Append({"SEEN", UrlOf(k, i)});
    for (int i = 0; i < sent[k]; ++i) {
      const bool stored = c->GetReply() == Int(1);
      if (i < answered_k && !stored) ++lost;
      if (i >= answered_k && stored) ++unanswered;
    }
    total += acked[k].size();
  }
  EXPECT_EQ(lost, 0u) << "of " << total << " acknowledged ADDs";
  EXPECT_EQ(unanswered, 0u)
      << "ADDs the server ran (they are stored) but never answered";
  EXPECT_EQ(Stats()["urls"], static_cast<long long>(total))
      << "more URLs stored than the ADDs answered";
  EXPECT_EQ(Cmd({"ADD", "http://after.restart/"}), Int(1));
}

INSTANTIATE_TEST_SUITE_P(StopBy, ShutdownTest,
                         ::testing::Values(StopBy::kSigterm, StopBy::kSigint,
                                           StopBy::kShutdown,
                                           StopBy::kShutdownNosave),
                         [](const auto& test) { return Name(test.param); });

// A client blocked in BPOP when the server stops is closed, not left
// hanging, and the stop is still clean.
class ShutdownBlockedTest : public FrontierdTest {};

TEST_F(ShutdownBlockedTest, BlockedClientIsClosedAndExitIsClean) {
  auto waiter = Connect(seconds(10));
  waiter->Append({"BPOP", "0"});
  Reply ping = Cmd({"PING"});  // the BPOP has certainly arrived by now
  ASSERT_EQ(ping, StatusReply("PONG"));
  std::this_thread::sleep_for(milliseconds(50));
  ASSERT_TRUE(server_->Signal(SIGTERM));
  Stopwatch watch;
  Reply r = waiter->GetReply();
  EXPECT_TRUE(r.IsIoError()) << r;
  EXPECT_LT(watch.Elapsed(), seconds(5));
  EXPECT_EQ(server_->WaitForExit(seconds(10)), 0);
}

}  // namespace
}  // namespace frontier::itest
