// PeerDirectory (server/peer_directory.h): the group's directory of client
// addresses, as stored in the replicated data and read back.
#include "server/peer_directory.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

TEST(PeerDirectoryTest, TheStoredTextRoundTrips) {
  PeerDirectory d;
  EXPECT_EQ(d.ClientAddress("127.0.0.2:7400"), "");
  d.Set("127.0.0.3:7400", "127.0.0.1:6002");
  d.Set("[fd00::2]:7400", "[fd00::2]:6379");
  d.Set("127.0.0.3:7400", "127.0.0.1:7002");  // the latest wins
  const std::string text = d.Encode();
  EXPECT_EQ(text, "127.0.0.3:7400 127.0.0.1:7002\n[fd00::2]:7400 [fd00::2]:6379\n");
  PeerDirectory back;
  EXPECT_TRUE(back.Load(text));
  EXPECT_EQ(back.ClientAddress("127.0.0.3:7400"), "127.0.0.1:7002");
  EXPECT_EQ(back.ClientAddress("[fd00::2]:7400"), "[fd00::2]:6379");
  EXPECT_EQ(back.Encode(), text);
}

TEST(PeerDirectoryTest, MalformedLinesAreSkipped) {
  PeerDirectory d;
  EXPECT_FALSE(d.Load("a:1 b:2\nno-client\n c:3\nd:4 e:5 extra\nf:6 g:7"));
  EXPECT_EQ(d.ClientAddress("a:1"), "b:2");
  EXPECT_EQ(d.ClientAddress("f:6"), "g:7");
  EXPECT_EQ(d.Encode(), "a:1 b:2\nf:6 g:7\n");
  EXPECT_TRUE(d.Load(""));
  EXPECT_EQ(d.Encode(), "");
}

// A site the master dropped from the stored directory (it left the group)
// is gone from every site's copy once they load it again.
TEST(PeerDirectoryTest, LoadReplacesAndRetainIfDropsSites) {
  PeerDirectory d;
  d.Set("a:1", "b:2");
  EXPECT_TRUE(d.Load("c:3 d:4\ne:5 f:6\n"));
  EXPECT_EQ(d.ClientAddress("a:1"), "");
  d.RetainIf([](std::string_view repl) { return repl != "c:3"; });
  EXPECT_EQ(d.Encode(), "e:5 f:6\n");
}

}  // namespace
}  // namespace frontier
