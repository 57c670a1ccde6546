#include "cluster/etcd_json.h"

#include <gtest/gtest.h>

#include <string>

namespace frontier::cluster {
namespace {

TEST(EtcdJsonTest, Base64RoundTrips) {
  // RFC 4648's test vectors.
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Decode("Zg==").value(), "f");
  EXPECT_EQ(Base64Decode("Zm8=").value(), "fo");
  EXPECT_EQ(Base64Decode("Zm9vYmFy").value(), "foobar");
  EXPECT_EQ(Base64Decode("").value(), "");
  EXPECT_FALSE(Base64Decode("Zm9"));
  EXPECT_FALSE(Base64Decode("Z!==").has_value());
}

TEST(EtcdJsonTest, PrefixEnd) {
  EXPECT_EQ(PrefixEnd("/f/"), "/f0");
  EXPECT_EQ(PrefixEnd(std::string("a\xff", 2)), "b");
}

TEST(EtcdJsonTest, Requests) {
  EXPECT_EQ(RangePrefixRequest("/f/"),
            R"({"key":"L2Yv","range_end":"L2Yw"})");
  EXPECT_EQ(PutRequest("/f/map", "hello", 0),
            R"({"key":"L2YvbWFw","value":"aGVsbG8="})");
  EXPECT_EQ(PutRequest("k", "v", 42),
            R"({"key":"aw==","value":"dg==","lease":"42"})");
  EXPECT_EQ(LeaseGrantRequest(5), R"({"TTL":"5"})");
  EXPECT_EQ(LeaseIdRequest(7), R"({"ID":"7"})");
}

// Answers as etcd 3.4's gateway gave them.
TEST(EtcdJsonTest, ParsesARange) {
  const std::string answer =
      R"({"header":{"cluster_id":"1694","member_id":"1251","revision":"4",)"
      R"("raft_term":"2"},"kvs":[{"key":"L2YvbWFw","create_revision":"2",)"
      R"("mod_revision":"3","version":"2","value":"eA=="},{"key":"L2YvbmV3",)"
      R"("create_revision":"4","mod_revision":"4","version":"1","value":)"
      R"("","lease":"5143851970908203786"}],"count":"2"})";
  auto kvs = ParseRangeResponse(answer);
  ASSERT_TRUE(kvs);
  ASSERT_EQ(kvs->size(), 2u);
  EXPECT_EQ((*kvs)[0].key, "/f/map");
  EXPECT_EQ((*kvs)[0].value, "x");
  EXPECT_EQ((*kvs)[0].mod_revision, 3);
  EXPECT_EQ((*kvs)[0].lease, 0);
  EXPECT_EQ((*kvs)[1].key, "/f/new");
  EXPECT_EQ((*kvs)[1].value, "");
  EXPECT_EQ((*kvs)[1].lease, 5143851970908203786);
}

TEST(EtcdJsonTest, ParsesAnEmptyRangeAndRefusesOtherText) {
  auto none = ParseRangeResponse(
      R"({"header":{"cluster_id":"1","revision":"2"}})");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(ParseRangeResponse(R"({"error":"x","code":3})"));
  EXPECT_FALSE(ParseRangeResponse("not json"));
  EXPECT_FALSE(ParseRangeResponse(
      R"({"header":{},"kvs":[{"key":"!!","mod_revision":"1"}]})"));
}

TEST(EtcdJsonTest, ParsesLeases) {
  EXPECT_EQ(ParseLeaseGrant(R"({"header":{"revision":"2"},)"
                            R"("ID":"5143851970908203783","TTL":"5"})"),
            5143851970908203783);
  EXPECT_FALSE(ParseLeaseGrant(R"({"error":"etcdserver: too many requests"})"));
  EXPECT_EQ(ParseKeepAlive(R"({"result":{"header":{"revision":"2"},)"
                           R"("ID":"51","TTL":"5"}})"),
            5);
  EXPECT_EQ(ParseKeepAlive(R"({"result":{"header":{},"ID":"51"}})"), 0);
  EXPECT_FALSE(ParseKeepAlive("{}"));
  EXPECT_EQ(ErrorMessage(R"({"error":"e","code":3,"message":"bad key"})"),
            "bad key");
}

}  // namespace
}  // namespace frontier::cluster
