// Unit tests of the server's pure pieces: argument parsing (server/args),
// the command table's lookup and arity checks, the shared error replies,
// and the BPOP waiting line.
#include "server/args.h"

#include <gtest/gtest.h>

#include <array>
#include <list>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/blocked_clients.h"
#include "server/command_table.h"
#include "server/reply.h"

namespace frontier {
namespace {

TEST(ArgsTest, EqualsIgnoreCase) {
  EXPECT_TRUE(EqualsIgnoreCase("count", "COUNT"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("count", "COUNTS"));
  EXPECT_FALSE(EqualsIgnoreCase("lease", "lense"));
}

TEST(ArgsTest, ParseInt64IsStrict) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("-7"), -7);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseInt64(""), std::nullopt);
  EXPECT_EQ(ParseInt64("+1"), std::nullopt);
  EXPECT_EQ(ParseInt64(" 1"), std::nullopt);
  EXPECT_EQ(ParseInt64("1 "), std::nullopt);
  EXPECT_EQ(ParseInt64("1.5"), std::nullopt);
  EXPECT_EQ(ParseInt64("9223372036854775808"), std::nullopt);
}

TEST(ArgsTest, ParseDurationMs) {
  EXPECT_EQ(ParseDurationMs("1"), 1000);
  EXPECT_EQ(ParseDurationMs("0.5"), 500);
  EXPECT_EQ(ParseDurationMs(".25"), 250);
  EXPECT_EQ(ParseDurationMs("0"), 0);
  EXPECT_EQ(ParseDurationMs("-1"), -1000);
  EXPECT_EQ(ParseDurationMs("0.001"), 1);
  EXPECT_EQ(ParseDurationMs("300"), 300000);
  // Rounded away from zero: a non-zero duration never becomes 0.
  EXPECT_EQ(ParseDurationMs("0.0001"), 1);
  EXPECT_EQ(ParseDurationMs("-0.0001"), -1);
  EXPECT_EQ(ParseDurationMs("1.0004"), 1001);
  for (const char* bad : {"", "abc", "1s", "1e3", "inf", "nan", "+1", " 1",
                          "1 ", "0x10", "1e400"}) {
    EXPECT_EQ(ParseDurationMs(bad), std::nullopt) << bad;
  }
}

TEST(ArgsTest, FormatSeconds) {
  EXPECT_EQ(FormatSeconds(0), "0");
  EXPECT_EQ(FormatSeconds(1500), "1.5");
  EXPECT_EQ(FormatSeconds(300000), "300");
  EXPECT_EQ(FormatSeconds(1), "0.001");
  EXPECT_EQ(FormatSeconds(-250), "-0.25");
  EXPECT_EQ(ParseDurationMs(FormatSeconds(123456)), 123456);
}

TEST(ArgsTest, ParseNamedOptions) {
  constexpr std::array<std::string_view, 2> kNames = {"COUNT", "LEASE"};
  auto parse = [&](std::vector<std::string> args,
                   std::array<std::optional<std::string_view>, 2>* values) {
    *values = {};
    return ParseNamedOptions(args, kNames, *values);
  };
  std::array<std::optional<std::string_view>, 2> v;
  std::vector<std::string> args = {"lease", "5", "COUNT", "3"};
  ASSERT_TRUE(ParseNamedOptions(args, kNames, v));
  EXPECT_EQ(v[0], "3");
  EXPECT_EQ(v[1], "5");
  EXPECT_TRUE(parse({}, &v));
  EXPECT_FALSE(v[0].has_value());
  EXPECT_FALSE(parse({"COUNT"}, &v));                     // missing value
  EXPECT_FALSE(parse({"COUNT", "1", "COUNT", "2"}, &v));  // repeated
  EXPECT_FALSE(parse({"BOGUS", "1"}, &v));                // unknown word
}

TEST(CommandTableTest, LookupIsCaseInsensitive) {
  const CommandSpec* add = FindCommand("AdD");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->name, "add");
  EXPECT_EQ(FindCommand("nosuchcommand"), nullptr);
  EXPECT_EQ(FindCommand(""), nullptr);
  EXPECT_EQ(FindCommand(std::string(100, 'a')), nullptr);
}

TEST(CommandTableTest, EveryNameIsLowerCaseAndUnique) {
  for (const CommandSpec& spec : Commands()) {
    EXPECT_EQ(ToLower(spec.name), spec.name);
    EXPECT_EQ(FindCommand(spec.name), &spec);
    EXPECT_NE(spec.arity, 0) << spec.name;
  }
}

TEST(CommandTableTest, Arity) {
  EXPECT_TRUE(ArityAccepts(2, 2));
  EXPECT_FALSE(ArityAccepts(2, 1));
  EXPECT_FALSE(ArityAccepts(2, 3));
  EXPECT_TRUE(ArityAccepts(-2, 2));
  EXPECT_TRUE(ArityAccepts(-2, 9));
  EXPECT_FALSE(ArityAccepts(-2, 1));
  EXPECT_EQ(FindCommand("add")->arity, -2);
  EXPECT_EQ(FindCommand("madd")->arity, -3);
  EXPECT_EQ(FindCommand("confirm")->arity, -2);  // url [options]
  EXPECT_TRUE(FindCommand("pop")->flags & kCmdWrite);
  EXPECT_TRUE(FindCommand("bpop")->flags & kCmdBlocking);
  EXPECT_TRUE(FindCommand("seen")->flags & kCmdReadOnly);
}

std::string Reply(void (*fn)(ReplyWriter&)) {
  std::string out;
  ReplyWriter w(&out);
  fn(w);
  return out;
}

TEST(ReplyTest, RedisWordings) {
  EXPECT_EQ(Reply([](ReplyWriter& w) { ReplyWrongArity(w, "add"); }),
            "-ERR wrong number of arguments for 'add' command\r\n");
  EXPECT_EQ(
      Reply([](ReplyWriter& w) {
        std::vector<std::string> argv = {"FOO", "a", "b"};
        ReplyUnknownCommand(w, argv);
      }),
      "-ERR unknown command 'FOO', with args beginning with: 'a' 'b' \r\n");
  EXPECT_EQ(Reply([](ReplyWriter& w) {
              std::vector<std::string> argv = {"x"};
              ReplyUnknownCommand(w, argv);
            }),
            "-ERR unknown command 'x', with args beginning with: \r\n");
}

TEST(ReplyTest, StatusBecomesOneErrorLine) {
  // Storage words InvalidArgument for the client; the server adds "ERR ".
  EXPECT_EQ(Reply([](ReplyWriter& w) {
              ReplyStatus(w, Status::InvalidArgument("invalid URL: no host"));
            }),
            "-ERR invalid URL: no host\r\n");
  EXPECT_EQ(Reply([](ReplyWriter& w) {
              ReplyStatus(w, Status::InvalidArgument(
                                 "invalid ref URL: unsupported scheme 'ftp'"));
            }),
            "-ERR invalid ref URL: unsupported scheme 'ftp'\r\n");
  EXPECT_EQ(Reply([](ReplyWriter& w) {
              ReplyStatus(w, Status::IOError("disk full"));
            }),
            "-ERR storage error: disk full\r\n");
}

TEST(ReplyTest, PoppedShapes) {
  std::vector<PoppedUrl> none, one = {{"http://a/", std::nullopt}};
  std::string out;
  ReplyWriter w(&out);
  ReplyPopped(w, none, false, false);
  ReplyPopped(w, none, true, false);
  ReplyPopped(w, one, false, false);
  ReplyPopped(w, one, true, false);
  ReplyPopTimeout(w, false);
  ReplyPopTimeout(w, true);
  EXPECT_EQ(out,
            "$-1\r\n*0\r\n$9\r\nhttp://a/\r\n*1\r\n$9\r\nhttp://a/\r\n"
            "$-1\r\n*-1\r\n");
}

TEST(ReplyTest, PoppedWithDataShapes) {
  // WITHDATA: each URL a pair [url, value], the value nil when it has none.
  std::vector<PoppedUrl> none, two = {{"http://a/", "v"},
                                      {"http://b/", std::nullopt}};
  std::string out;
  ReplyWriter w(&out);
  ReplyPopped(w, none, false, true);
  ReplyPopped(w, none, true, true);
  ReplyPopped(w, two, false, true);
  ReplyPopped(w, two, true, true);
  EXPECT_EQ(out,
            "$-1\r\n*0\r\n"
            "*2\r\n$9\r\nhttp://a/\r\n$1\r\nv\r\n"
            "*2\r\n*2\r\n$9\r\nhttp://a/\r\n$1\r\nv\r\n"
            "*2\r\n$9\r\nhttp://b/\r\n$-1\r\n");
}

TEST(ArgsTest, ParseOptionsNamesTheWordAtFault) {
  constexpr std::array<std::string_view, 1> kNames = {"DATA"};
  constexpr std::array<std::string_view, 1> kFlags = {"WITHDATA"};
  // OptionError::word views the arguments: they must outlive the result.
  std::list<std::vector<std::string>> kept;
  auto parse = [&](std::vector<std::string> args) {
    kept.push_back(std::move(args));
    std::array<std::optional<std::string_view>, 1> values;
    std::array<bool, 1> flags = {false};
    return ParseOptions(kept.back(), kNames, values, kFlags, flags);
  };
  EXPECT_FALSE(parse({"data", "x", "withdata"}).has_value());
  EXPECT_FALSE(parse({"DATA", "WITHDATA"}).has_value());  // a value, any bytes
  auto twice = parse({"WITHDATA", "withdata"});
  ASSERT_TRUE(twice.has_value());
  EXPECT_EQ(twice->kind, OptionError::kRepeated);
  EXPECT_EQ(twice->word, "withdata");
  auto bare = parse({"WITHDATA", "DATA"});
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->kind, OptionError::kNoValue);
  auto again = parse({"DATA", "a", "DATA", "b"});
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->kind, OptionError::kRepeated);
  auto other = parse({"COUNT", "1"});
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->kind, OptionError::kUnknownWord);
}

BlockRequest Until(int64_t deadline_ms) {
  BlockRequest r;
  r.deadline_ms = deadline_ms;
  return r;
}

TEST(BlockedClientsTest, FirstComeFirstServed) {
  BlockedClients q;
  q.Add(7, Until(0));
  q.Add(3, Until(500));
  q.Add(9, Until(100));
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.front().conn_id, 7u);
  q.PopFront();
  EXPECT_EQ(q.front().conn_id, 3u);
  EXPECT_EQ(q.EarliestDeadline(), 100);
}

TEST(BlockedClientsTest, ExpiryTakesOnlyDueClientsOldestFirst) {
  BlockedClients q;
  q.Add(1, Until(0));  // forever
  q.Add(2, Until(200));
  q.Add(3, Until(100));
  q.Add(4, Until(900));
  auto expired = q.TakeExpired(250);
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].conn_id, 2u);  // arrived before 3
  EXPECT_EQ(expired[1].conn_id, 3u);
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.EarliestDeadline(), 900);
  EXPECT_TRUE(q.TakeExpired(899).empty());
}

TEST(BlockedClientsTest, RemoveAnywhere) {
  BlockedClients q;
  q.Add(1, Until(100));
  q.Add(2, Until(100));
  EXPECT_TRUE(q.Remove(1));
  EXPECT_FALSE(q.Remove(1));
  EXPECT_EQ(q.front().conn_id, 2u);
  auto expired = q.TakeExpired(100);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].conn_id, 2u);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.EarliestDeadline(), std::nullopt);
}

TEST(BlockedClientsTest, OldestServableLooksOnlyAtPartitionsThatCanServe) {
  BlockedClients q;
  BlockRequest on_a = Until(0);
  on_a.partition = "a";
  BlockRequest on_b = Until(0);
  on_b.partition = "b";
  q.Add(1, on_b);
  q.Add(2, on_a);
  q.Add(3, Until(0));  // any partition
  q.Add(4, on_a);
  EXPECT_EQ(q.WaitingOn("a"), 2u);
  EXPECT_EQ(q.WaitingOn("b"), 1u);
  EXPECT_EQ(q.WaitingOn(""), 1u);
  EXPECT_EQ(q.WaitingOn("c"), 0u);
  std::vector<std::string> asked;
  auto only_a = [&asked](std::string_view name) {
    asked.emplace_back(name);
    return name == "a";
  };
  ASSERT_NE(q.OldestServable(only_a), nullptr);
  EXPECT_EQ(q.OldestServable(only_a)->conn_id, 2u);
  auto any = [](std::string_view name) { return name.empty(); };
  EXPECT_EQ(q.OldestServable(any)->conn_id, 3u);
  auto every = [](std::string_view) { return true; };
  EXPECT_EQ(q.OldestServable(every)->conn_id, 1u);
  auto none = [](std::string_view) { return false; };
  EXPECT_EQ(q.OldestServable(none), nullptr);
  EXPECT_TRUE(q.Remove(2));
  EXPECT_EQ(q.OldestServable(only_a)->conn_id, 4u);
  EXPECT_EQ(q.WaitingOn("a"), 1u);
  EXPECT_TRUE(q.Remove(4));
  EXPECT_EQ(q.WaitingOn("a"), 0u);
  EXPECT_EQ(q.OldestServable(only_a), nullptr);
  EXPECT_EQ(q.TakeExpired(1).size(), 0u);
  EXPECT_EQ(q.size(), 2u);
}

}  // namespace
}  // namespace frontier
