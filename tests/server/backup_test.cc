// End to end: BACKUP path takes a hot backup while clients keep writing;
// a second frontierd started on the copy (a restore) finds everything that
// was acknowledged before the BACKUP was sent, in the same state.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string UrlOf(int i) {
  return "http://s" + std::to_string(i % 23) + ".backup.test/" +
         std::to_string(i);
}

class BackupTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--fsync", "always"});
    return args;
  }
};

TEST_F(BackupTest, RestoredCopyHasEverythingAcknowledgedBefore) {
  constexpr int kLoaded = 3000;
  auto c = Connect(seconds(30));
  for (int i = 0; i < kLoaded; ++i) c->Append({"ADD", UrlOf(i)});
  for (int i = 0; i < kLoaded; ++i) ASSERT_EQ(c->GetReply(), Int(1)) << i;
  Reply popped = c->Cmd({"POP", "COUNT", "40", "LEASE", "3600"});
  ASSERT_TRUE(popped.IsArray()) << popped;
  ASSERT_EQ(popped.elements.size(), 40u);
  for (int k = 0; k < 20; ++k) {
    ASSERT_EQ(c->Cmd({"CONFIRM", popped.elements[k].str}), Int(1));
  }
  ASSERT_EQ(c->Cmd({"FAIL", popped.elements[20].str, "DELAY", "3600"}), Int(1));
  std::vector<std::string> sample;
  for (const Reply& e : popped.elements) sample.push_back(e.str);
  std::map<std::string, std::map<std::string, std::string>> before;
  for (const std::string& u : sample) before[u] = UrlInfo(u);

  // A writer keeps adding while the backup runs; each ADD's reply time is
  // recorded.
  std::atomic<bool> stop{false};
  std::vector<std::pair<int, Clock::time_point>> writer_acked;
  std::thread writer([&] {
    Client w(server_->port(), seconds(30));
    for (int base = 100'000; !stop.load() && w.ok(); base += 20) {
      for (int i = base; i < base + 20; ++i) w.Append({"ADD", UrlOf(i)});
      for (int i = base; i < base + 20; ++i) {
        Reply r = w.GetReply();
        if (r.IsIoError()) return;
        if (r == Int(1)) writer_acked.emplace_back(i, Clock::now());
      }
    }
  });
  std::this_thread::sleep_for(milliseconds(100));

  FrontierdProcess restored(DefaultTestArgs());  // its data dir: the copy
  auto admin = Connect(seconds(60));
  const Clock::time_point backup_sent = Clock::now();
  Reply r = admin->Cmd({"BACKUP", restored.data_dir()});
  ASSERT_EQ(r, StatusReply("OK"));
  std::this_thread::sleep_for(milliseconds(100));  // the writer goes on
  stop = true;
  writer.join();
  EXPECT_NE(ReadFile(server_->log_path()).find("BACKUP to "),
            std::string::npos);

  // The original keeps working after the backup.
  EXPECT_EQ(Cmd({"ADD", "http://after.backup/"}), Int(1));

  ASSERT_TRUE(restored.Start());
  auto rc = restored.Connect(seconds(30));
  for (int i = 0; i < kLoaded; ++i) rc->Append({"SEEN", UrlOf(i)});
  int lost = 0;
  for (int i = 0; i < kLoaded; ++i) {
    if (rc->GetReply() != Int(1)) ++lost;
  }
  EXPECT_EQ(lost, 0) << "loaded URLs missing from the backup";
  size_t checked = 0;
  lost = 0;
  for (const auto& [i, when] : writer_acked) {
    if (when >= backup_sent) continue;
    rc->Append({"SEEN", UrlOf(i)});
    ++checked;
  }
  for (size_t k = 0; k < checked; ++k) {
    if (rc->GetReply() != Int(1)) ++lost;
  }
  EXPECT_GT(checked, 0u) << "the writer got nothing in before the BACKUP";
  EXPECT_EQ(lost, 0) << "of " << checked
                     << " ADDs acknowledged before BACKUP was sent";
  for (const std::string& u : sample) {
    EXPECT_EQ(FieldMap(rc->Cmd({"URLINFO", u})), before[u]) << u;
  }
  EXPECT_EQ(rc->Cmd({"SEEN", "http://after.backup/"}), Int(0));
  // The copy is a frontier of its own.
  EXPECT_EQ(rc->Cmd({"ADD", "http://only.in.copy/"}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", "http://only.in.copy/"}), Int(0));
  rc.reset();
  EXPECT_EQ(restored.Stop(), 0);
  EXPECT_EQ(SanitizerReport(restored.Logs()), "");
}

TEST_F(BackupTest, BadTargetsAreRefusedAndNothingIsWritten) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(Cmd({"BACKUP"}),
            Error("ERR wrong number of arguments for 'backup' command"));
  EXPECT_EQ(Cmd({"BACKUP", "relative/path"}),
            Error("ERR backup target 'relative/path' is not an absolute path"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"BACKUP", server_->data_dir()}),
                                  "ERR backup target"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"BACKUP", server_->data_dir() + "/sub"}),
                                  "ERR backup target"));
  // A directory that holds something is never overwritten.
  const std::string full = server_->dir() + "/full";
  std::filesystem::create_directories(full);
  { std::ofstream(full + "/precious") << "keep me"; }
  EXPECT_EQ(Cmd({"BACKUP", full}),
            Error("ERR backup target '" + full +
                  "' exists and is not an empty directory"));
  EXPECT_EQ(ReadFile(full + "/precious"), "keep me");
  EXPECT_FALSE(std::filesystem::exists(server_->data_dir() + "/sub"));
  // Twice to fresh places works; BACKUP is listed as an admin command.
  EXPECT_EQ(Cmd({"BACKUP", server_->dir() + "/b1"}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"BACKUP", server_->dir() + "/b2"}), StatusReply("OK"));
  EXPECT_TRUE(std::filesystem::exists(server_->dir() + "/b2/urls.db"));
  Reply info = Cmd({"COMMAND", "INFO", "backup"});
  EXPECT_NE(info.DebugString().find("admin"), std::string::npos) << info;
}

}  // namespace
}  // namespace frontier::itest
