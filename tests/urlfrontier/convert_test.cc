// The pure parts of urlfrontier/: the metadata encoding kept as a URL's
// value, queue keys, crawl names, RESP replies read back, and error
// replies as gRPC statuses.
#include "urlfrontier/convert.h"

#include <gtest/gtest.h>

#include "urlfrontier/metadata_codec.h"
#include "urlfrontier/resp_value.h"

namespace frontier::urlfrontier {
namespace {

TEST(MetadataCodec, RoundTripsAnyKeysAndValues) {
  const Metadata metadata = {
      {"anchor", {"Home", "Accueil"}},
      {"odd\tkey\\", {"line\none", "", "tab\there"}},
      {"empty", {}},
  };
  const std::string value = EncodeMetadata(metadata);
  EXPECT_EQ(DecodeMetadata(value), metadata);
}

TEST(MetadataCodec, IsReadableText) {
  EXPECT_EQ(EncodeMetadata({{"b", {"2"}}, {"a", {"1", "x\ty"}}}),
            "a\t1\na\tx\\ty\nb\t2\n");
  EXPECT_EQ(EncodeMetadata({}), "");
}

TEST(MetadataCodec, RefusesOtherValues) {
  EXPECT_FALSE(DecodeMetadata("{\"json\": 1}"));  // no final line feed
  EXPECT_FALSE(DecodeMetadata("a\tb\\q\n"));      // unknown escape
  EXPECT_FALSE(DecodeMetadata("a\tb\\\n"));       // lone backslash
  EXPECT_EQ(DecodeMetadata(""), Metadata{});
}

TEST(Convert, QueueKeyIsTheHost) {
  EXPECT_EQ(QueueKeyOf("https://example.com/a?b#c"), "example.com");
  EXPECT_EQ(QueueKeyOf("http://user:pw@example.org:8080/"), "example.org");
  EXPECT_EQ(QueueKeyOf("http://[::1]:8080/x"), "[::1]");
  EXPECT_EQ(QueueKeyOf("http://[::1]/x"), "[::1]");
}

TEST(Convert, CrawlNames) {
  EXPECT_EQ(CrawlName(""), "DEFAULT");
  EXPECT_EQ(CrawlName("news"), "news");
  EXPECT_TRUE(ValidCrawlName("news-2026"));
  EXPECT_FALSE(ValidCrawlName(""));
  EXPECT_FALSE(ValidCrawlName("has space"));
  EXPECT_FALSE(ValidCrawlName("list"));
  EXPECT_FALSE(ValidCrawlName(std::string(256, 'a')));
}

TEST(RespReplyReader, ReadsNestedRepliesInPieces) {
  RespReplyReader reader;
  const std::string bytes =
      "*2\r\n*2\r\n$3\r\nurl\r\n$-1\r\n:-7\r\n-ERR invalid URL: x\r\n+OK\r\n";
  for (char c : bytes.substr(0, 10)) reader.Feed(std::string(1, c));
  EXPECT_FALSE(reader.Next());  // not whole yet
  reader.Feed(bytes.substr(10));
  std::optional<RespValue> array = reader.Next();
  ASSERT_TRUE(array);
  ASSERT_EQ(array->type, RespValue::Type::kArray);
  ASSERT_EQ(array->elements.size(), 2u);
  EXPECT_EQ(array->elements[0].elements[0].str, "url");
  EXPECT_TRUE(array->elements[0].elements[1].is_nil());
  EXPECT_EQ(array->elements[1].integer, -7);
  std::optional<RespValue> error = reader.Next();
  ASSERT_TRUE(error);
  EXPECT_TRUE(error->is_error());
  EXPECT_EQ(error->str, "ERR invalid URL: x");
  EXPECT_EQ(reader.Next()->type, RespValue::Type::kStatus);
  EXPECT_FALSE(reader.Next());
}

TEST(RespReplyReader, BadFramingFails) {
  RespReplyReader reader;
  reader.Feed("?what\r\n");
  EXPECT_FALSE(reader.Next());
  EXPECT_FALSE(reader.ok());
}

TEST(Convert, ErrorsBecomeStatuses) {
  auto code = [](const char* text) {
    RespValue v;
    v.type = RespValue::Type::kError;
    v.str = text;
    return StatusOfError(v).error_code();
  };
  EXPECT_EQ(code("NOAUTH Authentication required."),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(code("NOPERM No permissions"), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(code("ERR no such crawl 'x'"), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(code("ERR syntax error"), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(code("MISCONF disk full"), grpc::StatusCode::UNAVAILABLE);
}

TEST(Convert, EncodeCommandIsARespArray) {
  EXPECT_EQ(EncodeCommand({"ADD", "u", ""}),
            "*3\r\n$3\r\nADD\r\n$1\r\nu\r\n$0\r\n\r\n");
}

}  // namespace
}  // namespace frontier::urlfrontier
