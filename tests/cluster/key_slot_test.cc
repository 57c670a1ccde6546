#include "cluster/key_slot.h"

#include <gtest/gtest.h>

#include <string>

namespace frontier::cluster {
namespace {

TEST(KeySlotTest, Crc16IsXmodem) {
  EXPECT_EQ(Crc16("123456789"), 0x31C3);  // the CRC's published check value
  EXPECT_EQ(Crc16(""), 0);
}

// Expected slots computed by redis-py's redis.crc.key_slot (python3-redis),
// an implementation of the same specification that is not ours.
TEST(KeySlotTest, AgreesWithRedisPy) {
  EXPECT_EQ(KeySlot("foo"), 12182);
  EXPECT_EQ(KeySlot("bar"), 5061);
  EXPECT_EQ(KeySlot("hello"), 866);
  EXPECT_EQ(KeySlot("example.com"), 8592);
  EXPECT_EQ(KeySlot("xn--bcher-kva.example"), 15452);
  EXPECT_EQ(KeySlot(""), 0);
}

TEST(KeySlotTest, HashTagRule) {
  EXPECT_EQ(KeySlot("{user1000}.following"), 3443);
  EXPECT_EQ(KeySlot("foo{hash_tag}"), 2515);
  EXPECT_EQ(KeySlot("{}foo"), 9500);          // empty tag: the whole key
  EXPECT_EQ(KeySlot("foo{}{bar}"), 8363);     // first '{' decides
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), 4015);  // tag is "{bar"
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), 5061);  // tag is "bar"
  EXPECT_EQ(KeySlot("{"), 4092);
  EXPECT_EQ(KeySlot("a{b"), 13340);
  EXPECT_EQ(KeySlot("}{x}"), 16287);
  EXPECT_EQ(HashedPart("foo{{bar}}zap"), "{bar");
  EXPECT_EQ(HashedPart("{}foo"), "{}foo");
}

TEST(KeySlotTest, SiteSlotIsTheSlotOfTaggedKeys) {
  for (const std::string site :
       {"example.com", "a.b.c.example.org", "127.0.0.1", "[::1]"}) {
    EXPECT_EQ(SiteSlot(site), KeySlot("{" + site + "}http://" + site + "/x"))
        << site;
    EXPECT_EQ(SiteSlot(site), KeySlot(site)) << site;
  }
  EXPECT_EQ(SiteSlot("example.com"), 8592);
}

TEST(KeySlotTest, SlotsAreInRange) {
  for (int i = 0; i < 5000; ++i) {
    const int slot = KeySlot("host" + std::to_string(i) + ".example");
    ASSERT_GE(slot, 0);
    ASSERT_LT(slot, kSlots);
  }
}

}  // namespace
}  // namespace frontier::cluster
