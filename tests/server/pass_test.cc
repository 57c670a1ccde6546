// End to end: the commands of an event-loop pass share one transaction
// (docs/event-loop.md, "One transaction per pass"). When it fails, every
// command of the pass is answered with the error and none of them happened;
// passes before and after it are untouched. The failure is injected by
// frontierd_faults, a test build whose pass fails at its Nth write
// (FRONTIERD_FAULT_PASS_WRITES), as a full disk would fail it.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kMisconf[] = "MISCONF";

class PassTest : public FrontierdTest {
 protected:
  bool AutoStart() const override { return false; }
  void StartFaulty(int fail_at_write) {
    server_ = std::make_unique<FrontierdProcess>(DefaultTestArgs());
    server_->set_binary(FRONTIERD_FAULTS_BIN);
    server_->set_environment(
        {"FRONTIERD_FAULT_PASS_WRITES=" + std::to_string(fail_at_write)});
    ASSERT_TRUE(server_->Start());
  }
};

TEST_F(PassTest, AFailedPassAnswersEachOfItsCommandsWithTheError) {
  StartFaulty(4);
  auto c = Connect(seconds(10));
  // One command a pass: each commits alone, never reaching a 4th write.
  ASSERT_EQ(c->Cmd({"ADD", "http://one.test/a"}), Int(1));
  ASSERT_EQ(c->Cmd({"ADD", "http://one.test/b"}), Int(1));

  // Six commands in one write: one read, one pass. The 4th write (ADD
  // http://two.test/d) fails, and with it the whole pass: the ADDs before
  // it, the SEEN that saw one of them, the PING, and the ADD after it.
  const std::vector<std::vector<std::string>> batch = {
      {"ADD", "http://two.test/a"}, {"ADD", "http://two.test/b"},
      {"SEEN", "http://two.test/a"}, {"PING"},
      {"ADD", "http://two.test/c"}, {"ADD", "http://two.test/d"},
      {"ADD", "http://two.test/e"}};
  for (const auto& cmd : batch) c->Append(cmd);
  std::string first_error;
  for (size_t i = 0; i < batch.size(); ++i) {
    Reply r = c->GetReply();
    ASSERT_TRUE(r.IsError()) << "reply " << i << " (" << batch[i][0]
                             << "): " << r;
    EXPECT_NE(r.str.find("injected storage fault"), std::string::npos) << r;
    if (i == 0) first_error = r.str;
    EXPECT_EQ(r.str, first_error) << "every reply is the pass's error";
  }

  // The failure refuses writes until the disk answers again (the retry
  // timer, every second); reads answer meanwhile.
  Reply refused = c->Cmd({"ADD", "http://three.test/x"});
  EXPECT_TRUE(IsErrorStartingWith(refused, kMisconf)) << refused;
  Reply r;
  Stopwatch watch;
  while (watch.Elapsed() < seconds(10)) {
    r = c->Cmd({"ADD", "http://three.test/x"});
    if (!r.IsError()) break;
    std::this_thread::sleep_for(milliseconds(100));
  }
  ASSERT_EQ(r, Int(1)) << "writes still refused after 10 s";

  // Nothing of the failed pass happened; the passes around it did.
  for (const char* url : {"http://two.test/a", "http://two.test/b",
                          "http://two.test/c", "http://two.test/d",
                          "http://two.test/e"}) {
    EXPECT_EQ(c->Cmd({"SEEN", url}), Int(0)) << url;
  }
  EXPECT_EQ(c->Cmd({"SEEN", "http://one.test/a"}), Int(1));
  EXPECT_EQ(c->Cmd({"SEEN", "http://one.test/b"}), Int(1));
  EXPECT_EQ(Stats()["urls"], 3);
  auto info = InfoMap(c->Cmd({"INFO"}).str);
  EXPECT_EQ(info["failed_passes"], "1");

  // The same after a restart: the failed pass left nothing on disk.
  c.reset();
  EXPECT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart());
  c = Connect(seconds(10));
  EXPECT_EQ(c->Cmd({"SEEN", "http://two.test/a"}), Int(0));
  EXPECT_EQ(c->Cmd({"SEEN", "http://three.test/x"}), Int(1));
  EXPECT_EQ(Stats()["urls"], 3);
}

}  // namespace
}  // namespace frontier::itest
