// PeerDirectory (server/peer_directory.h): the hello a site sends its
// peers, and what the loop keeps of them.
#include "server/peer_directory.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

TEST(PeerDirectoryTest, AHelloRoundTrips) {
  const PeerDirectory::Hello hello{"news", "[fd00::2]:7400", "10.0.0.2:6379",
                                   (7ull << 32) | 1234};
  const std::string text = PeerDirectory::Encode(hello);
  auto back = PeerDirectory::Decode(text);
  ASSERT_TRUE(back.has_value()) << text;
  EXPECT_EQ(back->group, "news");
  EXPECT_EQ(back->repl, "[fd00::2]:7400");
  EXPECT_EQ(back->client, "10.0.0.2:6379");
  EXPECT_EQ(back->offset, (7ull << 32) | 1234);
  // A hello without the offset (an older sender) says 0.
  auto old = PeerDirectory::Decode(
      "frontierd-hello/1 group=g repl=127.0.0.2:1 client=127.0.0.1:2");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->offset, 0u);
}

TEST(PeerDirectoryTest, AnythingElseIsNotAHello) {
  for (const char* bad :
       {"", "frontierd-hello/1", "frontierd-hello/2 group=a repl=b client=c",
        "frontierd-hello/1 group=a repl=b", "frontierd-hello/1 group= repl=b "
        "client=c", "frontierd-hello/1 repl=b group=a client=c",
        "frontierd-hello/1 group=a repl=b client=c extra",
        "frontierd-hello/1 group=a repl=b client=c offset=",
        "frontierd-hello/1 group=a repl=b client=c offset=12x",
        "frontierd-hello/1 group=a repl=b client=c offset=-1"}) {
    EXPECT_FALSE(PeerDirectory::Decode(bad).has_value()) << bad;
  }
}

TEST(PeerDirectoryTest, TheLatestHelloOfASiteWins) {
  PeerDirectory peers;
  EXPECT_EQ(peers.ClientAddress("127.0.0.2:7400"), "");
  EXPECT_EQ(peers.LastHeardMs("127.0.0.2:7400"), 0);
  peers.Learn({"g", "127.0.0.2:7400", "127.0.0.1:6001"}, 100);
  peers.Learn({"g", "127.0.0.3:7400", "127.0.0.1:6002"}, 150);
  peers.Learn({"g", "127.0.0.2:7400", "127.0.0.1:7001", 99}, 200);
  EXPECT_EQ(peers.ClientAddress("127.0.0.2:7400"), "127.0.0.1:7001");
  EXPECT_EQ(peers.LastHeardMs("127.0.0.2:7400"), 200);
  EXPECT_EQ(peers.Offset("127.0.0.2:7400"), 99u);
  EXPECT_EQ(peers.Offset("127.0.0.9:7400"), 0u);
  EXPECT_EQ(peers.ClientAddress("127.0.0.3:7400"), "127.0.0.1:6002");
}

}  // namespace
}  // namespace frontier
