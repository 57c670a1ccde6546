// End to end: the data directory fills up (a small tmpfs, filled with a
// ballast file). Write commands then get -MISCONF, reads keep answering,
// nothing acknowledged is lost or changed, and once the ballast is deleted
// the server takes writes again by itself, without a restart.
//
// Needs to mount a tmpfs: the test runs in a private mount namespace
// (unshare), so the mount disappears with the test process. Skipped where
// that is not allowed (not root, or no CAP_SYS_ADMIN in a container).
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
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

constexpr char kMisconf[] =
    "MISCONF Errors writing to the data directory; frontierd is not "
    "accepting writes: ";

std::string UrlOf(int i) {
  return "http://s" + std::to_string(i % 17) + ".full.test/page/" +
         std::to_string(i);
}

// A tmpfs of `size` mounted on a fresh directory, in this process's own
// mount namespace (children such as frontierd share it).
class SmallDisk {
 public:
  explicit SmallDisk(const std::string& size) {
    if (unshare(CLONE_NEWNS) != 0) {
      error_ = std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
      return;
    }
    // Mounts made here must not propagate back to the host.
    if (mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      error_ = std::string("make / private: ") + std::strerror(errno);
      return;
    }
    if (mount("tmpfs", dir_.path().c_str(), "tmpfs", 0,
              ("size=" + size).c_str()) != 0) {
      error_ = std::string("mount tmpfs: ") + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~SmallDisk() {
    if (mounted_) umount2(dir_.path().c_str(), MNT_DETACH);
  }
  bool ok() const { return mounted_; }
  const std::string& error() const { return error_; }
  const std::string& path() const { return dir_.path(); }

  // Writes a ballast file until the disk is full. Returns its size.
  size_t Fill() {
    int fd = open(Ballast().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                  0644);
    if (fd < 0) return 0;
    std::string chunk(64 * 1024, 'x');
    size_t total = 0;
    for (size_t len :
         {size_t{64 * 1024}, size_t{4096}, size_t{512}, size_t{1}}) {
      for (;;) {
        ssize_t n = write(fd, chunk.data(), len);
        if (n <= 0) break;
        total += static_cast<size_t>(n);
      }
    }
    close(fd);
    return total;
  }
  void FreeBallast() { std::filesystem::remove(Ballast()); }

 private:
  std::string Ballast() const { return dir_.path() + "/ballast"; }
  TempDir dir_;
  bool mounted_ = false;
  std::string error_;
};

class DiskFullTest : public FrontierdTest {
 protected:
  bool AutoStart() const override { return false; }
};

TEST_F(DiskFullTest, WritesRefusedReadsAnswerRecoversWithoutRestart) {
  SmallDisk disk("16m");
  if (!disk.ok())
    GTEST_SKIP() << "cannot mount a small tmpfs: " << disk.error();
  auto args = DefaultTestArgs();
  args.insert(args.end(),
              {"--dir", disk.path() + "/data", "--fsync", "always"});
  server_ = std::make_unique<FrontierdProcess>(args);
  ASSERT_TRUE(server_->Start());

  // Acknowledged before the disk fills: a few hundred URLs in every state.
  std::vector<int> acked;
  auto c = Connect(seconds(10));
  for (int i = 0; i < 400; ++i) c->Append({"ADD", UrlOf(i)});
  for (int i = 0; i < 400; ++i) {
    ASSERT_EQ(c->GetReply(), Int(1));
    acked.push_back(i);
  }
  Reply popped = c->Cmd({"POP", "COUNT", "6", "LEASE", "3600"});
  ASSERT_TRUE(popped.IsArray() && popped.elements.size() == 6) << popped;
  ASSERT_EQ(c->Cmd({"CONFIRM", popped.elements[0].str}), Int(1));
  ASSERT_EQ(c->Cmd({"FAIL", popped.elements[1].str, "DELAY", "3600"}), Int(1));
  std::map<std::string, std::map<std::string, std::string>> before;
  for (const Reply& e : popped.elements) before[e.str] = UrlInfo(e.str);

  ASSERT_GT(disk.Fill(), 0u);

  // Writes now fail. The first may still fit in a page the log already
  // has, and a pass whose flush fails closes its clients without replies
  // (they were not made durable); then every write gets -MISCONF.
  Reply refusal;
  int next = 1000;
  Stopwatch watch;
  while (watch.Elapsed() < seconds(30)) {
    if (!c->ok()) c = Connect(seconds(10));
    Reply r = c->Cmd({"ADD", UrlOf(next)});
    if (r == Int(1)) acked.push_back(next);
    ++next;
    if (r.IsError()) {
      refusal = r;
      break;
    }
  }
  ASSERT_TRUE(IsErrorStartingWith(refusal, kMisconf)) << refusal;
  EXPECT_NE(refusal.str.find("No space left on device"), std::string::npos)
      << refusal;

  // Every write command is refused; nothing it would change is changed.
  c = Connect(seconds(10));
  const std::string queued = UrlOf(399);
  EXPECT_TRUE(
      IsErrorStartingWith(c->Cmd({"ADD", "http://new.full.test/"}), kMisconf));
  EXPECT_TRUE(IsErrorStartingWith(c->Cmd({"MADD", "", "http://m.full.test/"}),
                                  kMisconf));
  EXPECT_TRUE(IsErrorStartingWith(c->Cmd({"POP"}), kMisconf));
  EXPECT_TRUE(IsErrorStartingWith(c->Cmd({"BPOP", "1"}), kMisconf));
  EXPECT_TRUE(IsErrorStartingWith(c->Cmd({"CONFIRM", popped.elements[2].str}),
                                  kMisconf));
  EXPECT_TRUE(
      IsErrorStartingWith(c->Cmd({"FAIL", popped.elements[3].str}), kMisconf));
  EXPECT_TRUE(IsErrorStartingWith(c->Cmd({"RECRAWL", queued, "60"}), kMisconf));

  // Reads answer, and show everything acknowledged as it was.
  EXPECT_EQ(c->Cmd({"PING"}), StatusReply("PONG"));
  EXPECT_EQ(c->Cmd({"SEEN", "http://new.full.test/"}), Int(0));
  for (int i : acked) c->Append({"SEEN", UrlOf(i)});
  int lost = 0;
  for (size_t k = 0; k < acked.size(); ++k) {
    if (c->GetReply() != Int(1)) ++lost;
  }
  EXPECT_EQ(lost, 0) << "of " << acked.size() << " acknowledged ADDs";
  for (const auto& [url, info] : before) {
    EXPECT_EQ(FieldMap(c->Cmd({"URLINFO", url})), info) << url;
  }
  Reply stats = c->Cmd({"STATS"});
  EXPECT_TRUE(stats.IsArray()) << stats;
  EXPECT_TRUE(c->Cmd({"DBSIZE"}).IsInteger());
  Reply info = c->Cmd({"INFO", "persistence"});
  ASSERT_TRUE(info.IsString()) << info;
  auto fields = InfoMap(info.str);
  EXPECT_EQ(fields["writes_refused"], "1");
  EXPECT_NE(fields["last_write_error"].find("No space left"),
            std::string::npos);

  // Space comes back: the server notices by itself, within a few retries.
  disk.FreeBallast();
  Stopwatch recovery;
  Reply r;
  int after = 5000;
  while (recovery.Elapsed() < seconds(10)) {
    r = c->Cmd({"ADD", UrlOf(after)});
    if (r == Int(1)) break;
    ASSERT_TRUE(IsErrorStartingWith(r, kMisconf)) << r;
    std::this_thread::sleep_for(milliseconds(50));
  }
  ASSERT_EQ(r, Int(1)) << "writes still refused 10 s after space came back";
  acked.push_back(after);
  EXPECT_LT(recovery.Elapsed(), seconds(5));
  EXPECT_EQ(InfoMap(c->Cmd({"INFO", "persistence"}).str)["writes_refused"],
            "0");
  EXPECT_NE(ReadFile(server_->log_path()).find("takes writes again"),
            std::string::npos);
  // Everything works again, and the refused commands changed nothing.
  EXPECT_EQ(c->Cmd({"CONFIRM", popped.elements[2].str}), Int(1));
  EXPECT_EQ(c->Cmd({"SEEN", "http://new.full.test/"}), Int(0));
  EXPECT_EQ(c->Cmd({"URLINFO", queued}).IsArray(), true);
  EXPECT_EQ(FieldMap(c->Cmd({"URLINFO", queued}))["recrawl"],
            before.count(queued) ? before[queued]["recrawl"] : "0");
  for (int i = 6000; i < 6200; ++i) {
    ASSERT_EQ(c->Cmd({"ADD", UrlOf(i)}), Int(1));
    acked.push_back(i);
  }

  // And all of it survives a clean restart.
  c.reset();
  EXPECT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart());
  c = Connect(seconds(10));
  for (int i : acked) c->Append({"SEEN", UrlOf(i)});
  lost = 0;
  for (size_t k = 0; k < acked.size(); ++k) {
    if (c->GetReply() != Int(1)) ++lost;
  }
  EXPECT_EQ(lost, 0) << "of " << acked.size() << " acknowledged ADDs";
  before[popped.elements[2].str]["state"] = "done";
  for (const auto& [url, expected] : before) {
    auto now = FieldMap(c->Cmd({"URLINFO", url}));
    EXPECT_EQ(now["state"], expected.at("state")) << url;
  }
  c.reset();
  EXPECT_EQ(server_->Stop(), 0);  // before the tmpfs goes away
}

}  // namespace
}  // namespace frontier::itest
