// End to end: BACKUP path takes a hot backup while clients keep writing;
// a second frontierd started on the copy (a restore) finds everything that
// was acknowledged before the BACKUP was sent, in the same state. The copy
// runs off the event loop: other clients are answered while it runs, a
// client that leaves, a SHUTDOWN or a kill -9 meanwhile harm nothing.
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
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

// The copy holds every crawl (issue 22): each has database files of its
// own in the directory, and BACKUP copies them all.
TEST_F(BackupTest, CopyHoldsEveryCrawl) {
  auto c = Connect();
  ASSERT_EQ(c->Cmd({"ADD", "http://default.crawl.test/"}), Int(1));
  ASSERT_EQ(c->Cmd({"CRAWL", "news"}), StatusReply("OK"));
  ASSERT_EQ(c->Cmd({"ADD", "http://news.crawl.test/"}), Int(1));
  FrontierdProcess restored(DefaultTestArgs());  // its data dir: the copy
  ASSERT_EQ(Cmd({"BACKUP", restored.data_dir()}), StatusReply("OK"));
  ASSERT_TRUE(restored.Start());
  auto rc = restored.Connect(seconds(30));
  EXPECT_EQ(rc->Cmd({"SEEN", "http://default.crawl.test/"}), Int(1));
  EXPECT_EQ(rc->Cmd({"SEEN", "http://news.crawl.test/"}), Int(0));
  ASSERT_EQ(rc->Cmd({"CRAWL", "news"}), StatusReply("OK"));
  EXPECT_EQ(rc->Cmd({"SEEN", "http://news.crawl.test/"}), Int(1));
  EXPECT_EQ(rc->Cmd({"SEEN", "http://default.crawl.test/"}), Int(0));
  rc.reset();
  EXPECT_EQ(restored.Stop(), 0);
}

// Enough data that a copy takes a noticeable while (tens of MB to read,
// write, fsync and recover), so that other clients' round trips fit in it.
class BackupOffLoopTest : public BackupTest {
 protected:
  static constexpr int kLoaded = 150'000;
  static constexpr int kPerMadd = 1000;

  void Load() {
    auto c = Connect(seconds(60));
    for (int base = 0; base < kLoaded; base += kPerMadd) {
      std::vector<std::string> args{"MADD", ""};
      for (int i = base; i < base + kPerMadd; ++i) args.push_back(UrlOf(i));
      c->Append(args);
    }
    for (int base = 0; base < kLoaded; base += kPerMadd) {
      Reply r = c->GetReply();
      ASSERT_TRUE(r.IsArray()) << r;
    }
    ASSERT_EQ(Cmd({"DBSIZE"}), Int(kLoaded));
  }
  // A connection that has sent BACKUP target and not read its reply.
  std::unique_ptr<RawConnection> SendBackup(const std::string& target) {
    auto conn = std::make_unique<RawConnection>(server_->port());
    EXPECT_TRUE(conn->ok());
    EXPECT_TRUE(conn->Send("*2\r\n$6\r\nBACKUP\r\n$" +
                           std::to_string(target.size()) + "\r\n" + target +
                           "\r\n"));
    return conn;
  }
  // Waits (bounded) until the BACKUP to `target` is under way.
  ::testing::AssertionResult WaitForPartial(const std::string& target) {
    for (int i = 0; i < 3000; ++i) {
      if (std::filesystem::exists(target + ".partial")) {
        return ::testing::AssertionSuccess();
      }
      std::this_thread::sleep_for(milliseconds(2));
    }
    return ::testing::AssertionFailure() << target << ".partial never appeared";
  }
};

TEST_F(BackupOffLoopTest, OtherClientsAreAnsweredWhileTheCopyRuns) {
  Load();
  const std::string target = server_->dir() + "/copy";
  auto admin = SendBackup(target);
  ASSERT_TRUE(WaitForPartial(target));
  // Another connection's commands while the copy runs. A reply that came
  // while the target does not exist yet came before BACKUP's (the copy is
  // renamed to it before BACKUP is answered).
  auto other = Connect(seconds(30));
  int answered_during = 0, refused_second = 0, added = 0;
  bool second_done = false;
  for (int i = 0; i < 5000 && !std::filesystem::exists(target); ++i) {
    Reply pong = other->Cmd({"PING"});
    ASSERT_EQ(pong, StatusReply("PONG"));
    Reply add = other->Cmd({"ADD", "http://during.backup.test/" +
                                       std::to_string(i)});
    ASSERT_EQ(add, Int(1));
    ++added;
    Reply pop = other->Cmd({"POP"});
    ASSERT_FALSE(pop.IsError()) << pop;
    // A second BACKUP is refused while the first runs; one sent as the
    // first ends may run (and is then the last of the loop).
    Reply second = other->Cmd({"BACKUP", server_->dir() + "/second"});
    if (second == StatusReply("OK")) second_done = true;
    if (std::filesystem::exists(target)) break;
    ++answered_during;
    EXPECT_TRUE(IsErrorStartingWith(second, "ERR a backup is already in "
                                            "progress"))
        << second;
    if (second.IsError()) ++refused_second;
  }
  EXPECT_GT(answered_during, 0)
      << "no reply to PING/ADD/POP came while BACKUP was copying";
  EXPECT_EQ(refused_second, answered_during);
  EXPECT_EQ(std::filesystem::exists(server_->dir() + "/second"), second_done);
  EXPECT_FALSE(std::filesystem::exists(server_->dir() + "/second.partial"));
  std::cerr << "answered while copying: " << answered_during << " rounds\n";
  EXPECT_EQ(admin->Read(5, seconds(120)), "+OK\r\n");
  EXPECT_FALSE(std::filesystem::exists(target + ".partial"));
  const std::string log = ReadFile(server_->log_path());
  EXPECT_NE(log.find("BACKUP to " + target + " started (checkpoint "),
            std::string::npos);
  EXPECT_NE(log.find("BACKUP to " + target + " done in"), std::string::npos);
  // The live server has the writes made meanwhile; the copy has all that
  // was loaded before, and opens.
  EXPECT_EQ(Cmd({"DBSIZE"}), Int(kLoaded + added));
  FrontierdProcess restored(DefaultTestArgs());
  std::filesystem::remove(restored.data_dir());
  std::filesystem::rename(target, restored.data_dir());
  ASSERT_TRUE(restored.Start());
  auto rc = restored.Connect(seconds(30));
  Reply size = rc->Cmd({"DBSIZE"});
  ASSERT_TRUE(size.IsInteger()) << size;
  EXPECT_GE(size.integer, kLoaded);
  EXPECT_LE(size.integer, kLoaded + added);
  for (int i = 0; i < kLoaded; i += 997) {
    EXPECT_EQ(rc->Cmd({"SEEN", UrlOf(i)}), Int(1)) << UrlOf(i);
  }
  rc.reset();
  EXPECT_EQ(restored.Stop(), 0);
}

TEST_F(BackupOffLoopTest, ClientLeavingDuringTheCopyHarmsNothing) {
  Load();
  const std::string target = server_->dir() + "/copy";
  {
    auto admin = SendBackup(target);
    ASSERT_TRUE(WaitForPartial(target));
    EXPECT_FALSE(std::filesystem::exists(target));
  }  // disconnects while the copy runs
  // The backup ends all the same: the loop logs it once it is done.
  const std::string done = "BACKUP to " + target + " done in";
  for (int i = 0; i < 6000; ++i) {
    if (ReadFile(server_->log_path()).find(done) != std::string::npos) break;
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_NE(ReadFile(server_->log_path()).find(done), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(target + "/urls.db"));
  EXPECT_EQ(Cmd({"PING"}), StatusReply("PONG"));
  // The next BACKUP is accepted: the first one ended and released its pin.
  EXPECT_EQ(Cmd({"BACKUP", server_->dir() + "/copy2"}), StatusReply("OK"));
}

TEST_F(BackupOffLoopTest, ShutdownDuringTheCopyStopsItCleanly) {
  Load();
  const std::string target = server_->dir() + "/copy";
  auto admin = SendBackup(target);
  ASSERT_TRUE(WaitForPartial(target));
  ASSERT_TRUE(server_->Signal(SIGTERM));
  // The error, unless the copy had just ended (then OK).
  const std::string r = admin->ReadUntilClosed(seconds(60), nullptr);
  EXPECT_TRUE(r == "-ERR storage error: backup cancelled: the server is "
                   "stopping\r\n" ||
              r == "+OK\r\n")
      << r;
  EXPECT_EQ(server_->WaitForExit(seconds(60)), 0);
  const std::string log = ReadFile(server_->log_path());
  EXPECT_EQ(SanitizerReport(log), "");
  if (r != "+OK\r\n") {
    EXPECT_FALSE(std::filesystem::exists(target));  // never half a copy
    EXPECT_FALSE(std::filesystem::exists(target + ".partial"));
  }
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(Cmd({"DBSIZE"}), Int(kLoaded));
}

TEST_F(BackupOffLoopTest, KillDuringTheCopyLeavesTheLiveDirectoryFine) {
  Load();
  const std::string target = server_->dir() + "/copy";
  auto admin = SendBackup(target);
  ASSERT_TRUE(WaitForPartial(target));
  server_->Kill9();
  admin.reset();
  EXPECT_FALSE(std::filesystem::exists(target)) << "half a copy under its name";
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(Cmd({"DBSIZE"}), Int(kLoaded));
  for (int i = 0; i < kLoaded; i += 991) {
    EXPECT_EQ(Cmd({"SEEN", UrlOf(i)}), Int(1)) << UrlOf(i);
  }
  // The leftover ".partial" is replaced by the next BACKUP to that name.
  EXPECT_EQ(Cmd({"BACKUP", target}), StatusReply("OK"));
  EXPECT_FALSE(std::filesystem::exists(target + ".partial"));
  EXPECT_TRUE(std::filesystem::exists(target + "/urls.db"));
}

}  // namespace
}  // namespace frontier::itest
