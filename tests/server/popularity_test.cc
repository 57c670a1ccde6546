// End to end: `order popularity` (issue 9 section 1). The URL with the
// most back-links is popped first, within a site and across sites; it
// moves forward while queued; a restart keeps the order; a directory
// written with another order is refused.
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

class PopularityTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--order", "popularity"});
    return args;
  }
  // MADD from page `ref`: each link to a known URL is a back-link.
  void Links(const std::string& ref, const std::vector<std::string>& urls) {
    std::vector<std::string> args = {"MADD", ref};
    args.insert(args.end(), urls.begin(), urls.end());
    Reply r = Cmd(args);
    ASSERT_TRUE(r.IsArray()) << r;
    ASSERT_EQ(r.elements.size(), urls.size()) << r;
  }
  std::vector<std::string> PopAll() {
    Reply r = Cmd({"POP", "COUNT", "100"});
    std::vector<std::string> urls;
    for (const Reply& e : r.elements) urls.push_back(e.str);
    return urls;
  }
  // a.example/{1,2,3} and b.example/{1,2}, all with no back-links; then
  // a.example/3 gains 1 back-link (class 1) and b.example/2 gains 4
  // (class 2), from pages of a third site.
  void AddAndLink() {
    Links("", {"http://a.example/1", "http://a.example/2", "http://a.example/3",
               "http://b.example/1", "http://b.example/2"});
    Links("http://c.example/p1", {"http://a.example/3", "http://b.example/2"});
    Links("http://c.example/p2", {"http://b.example/2"});
    Links("http://c.example/p3", {"http://b.example/2", "http://b.example/2"});
    ASSERT_EQ(UrlInfo("http://a.example/3")["backlinks"], "1");
    ASSERT_EQ(UrlInfo("http://b.example/2")["backlinks"], "4");
  }
  void ExpectPopularFirst(const std::vector<std::string>& popped) {
    ASSERT_EQ(popped.size(), 5u);
    EXPECT_EQ(popped[0], "http://b.example/2");  // across sites
    EXPECT_EQ(popped[1], "http://a.example/3");  // within a.example too
  }
};

TEST_F(PopularityTest, AUrlGainingBacklinksOvertakesOthers) {
  AddAndLink();
  ExpectPopularFirst(PopAll());
  EXPECT_EQ(Stats()["duplicates"], 5);
}

TEST_F(PopularityTest, AmongEqualsLowerDepthThenPriority) {
  // All class 0: depth 1 before depth 2; within depth 1, priority.
  Links("", {"http://a.example/"});
  Links("http://a.example/", {"http://a.example/deep"});
  ASSERT_EQ(Cmd({"ADD", "http://b.example/", "PRIORITY", "10"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://c.example/", "PRIORITY", "9000"}), Int(1));
  EXPECT_EQ(PopAll(), (std::vector<std::string>{
                          "http://b.example/", "http://a.example/",
                          "http://c.example/", "http://a.example/deep"}));
  // One back-link lifts the deepest, least urgent URL above them all.
  ASSERT_EQ(Cmd({"FAIL", "http://a.example/deep"}), Int(1));
  ASSERT_EQ(Cmd({"FAIL", "http://c.example/"}), Int(1));
  ASSERT_EQ(Cmd({"FAIL", "http://b.example/"}), Int(1));
  Links("http://b.example/", {"http://a.example/deep"});
  EXPECT_EQ(PopAll(), (std::vector<std::string>{"http://a.example/deep",
                                                "http://b.example/",
                                                "http://c.example/"}));
}

TEST_F(PopularityTest, RestartKeepsTheOrder) {
  AddAndLink();
  server_->Kill9();
  ASSERT_TRUE(server_->Restart());
  EXPECT_EQ(UrlInfo("http://b.example/2")["backlinks"], "4");
  ExpectPopularFirst(PopAll());
}

TEST_F(PopularityTest, BacklinksOfALeasedUrlCountWhenItIsQueuedAgain) {
  Links("", {"http://a.example/1", "http://b.example/1"});
  Reply one = Cmd({"POP"});
  ASSERT_TRUE(one.IsString()) << one;
  const std::string other = one.str == "http://a.example/1"
                                ? "http://b.example/1"
                                : "http://a.example/1";
  Links("http://c.example/p1", {one.str, one.str, one.str});  // class 2
  Links("http://c.example/p2", {other});                      // class 1
  ASSERT_EQ(Cmd({"FAIL", one.str}), Int(1));
  EXPECT_EQ(PopAll(), (std::vector<std::string>{one.str, other}));
}

// A bfs directory, reopened with `order popularity`: refused at start,
// with a message naming both orders; the data stays usable with bfs.
using PopularityLayoutTest = FrontierdTest;

TEST_F(PopularityLayoutTest, ABfsDirectoryIsRefused) {
  ASSERT_EQ(Cmd({"ADD", "http://a.example/"}), Int(1));
  ASSERT_EQ(server_->Stop(), 0);
  std::vector<std::string> args = DefaultTestArgs();
  args.insert(args.end(), {"--order", "popularity"});
  EXPECT_FALSE(server_->Restart(args));
  const std::string logs = server_->Logs();
  EXPECT_NE(logs.find("was written with layout 'v2 order=bfs"),
            std::string::npos)
      << logs;
  EXPECT_NE(logs.find("asks for 'v2 order=popularity"), std::string::npos)
      << logs;
  ASSERT_TRUE(server_->Restart(DefaultTestArgs()));
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://a.example/"));
}

}  // namespace
}  // namespace frontier::itest
