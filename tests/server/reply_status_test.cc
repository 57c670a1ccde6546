// The one mapping from a Status code to an error reply (server/reply.h):
// storage says what happened with a code and plain words; the server puts
// the word clients match in front. The replication group's answers must
// stay byte for byte what docs/commands.md promises and what clients
// (redis-py's ReadOnlyError, the retrying workers) match.
#include <gtest/gtest.h>

#include <string>

#include "protocol/reply_writer.h"
#include "server/reply.h"
#include "storage/replicator.h"

namespace frontier {
namespace {

std::string Reply(const Status& s) {
  std::string out;
  ReplyWriter w(&out);
  ReplyStatus(w, s);
  return out;
}

TEST(ReplyStatusTest, EachCodeGetsItsWord) {
  EXPECT_EQ(Reply(Status::InvalidArgument("invalid URL: no host")),
            "-ERR invalid URL: no host\r\n");
  EXPECT_EQ(Reply(Status::Unavailable("etcd unreachable")),
            "-ERR etcd unreachable\r\n");
  // Redis's whole line, whatever storage's words: redis-py matches it all.
  EXPECT_EQ(Reply(Status::ReadOnly("this site is a replica")),
            "-READONLY You can't write against a read only replica.\r\n");
  EXPECT_EQ(Reply(Status::NoReplicas("too few")), "-NOREPLICAS too few\r\n");
  EXPECT_EQ(Reply(Status::NotAcknowledged("late")), "-NOQUORUM late\r\n");
  EXPECT_EQ(Reply(Status::TryAgain("busy")), "-TRYAGAIN busy\r\n");
  for (const Status& s : {Status::IOError("disk full"), Status::NotFound("x"),
                          Status::Corruption("x"), Status::Busy("x")}) {
    EXPECT_TRUE(Reply(s).starts_with("-ERR storage error: ")) << Reply(s);
  }
}

TEST(ReplyStatusTest, ErrorWordOnlyForTheGroupsAnswers) {
  EXPECT_EQ(StatusErrorWord(Status::Code::kReadOnly), "READONLY");
  EXPECT_EQ(StatusErrorWord(Status::Code::kNoReplicas), "NOREPLICAS");
  EXPECT_EQ(StatusErrorWord(Status::Code::kNotAcknowledged), "NOQUORUM");
  EXPECT_EQ(StatusErrorWord(Status::Code::kTryAgain), "TRYAGAIN");
  for (Status::Code c : {Status::Code::kOk, Status::Code::kInvalidArgument,
                         Status::Code::kNotFound, Status::Code::kIOError,
                         Status::Code::kCorruption, Status::Code::kBusy,
                         Status::Code::kUnavailable}) {
    EXPECT_TRUE(StatusErrorWord(c).empty()) << static_cast<int>(c);
  }
}

TEST(ReplyStatusTest, ReplicatorAnswersAreTheDocumentedLines) {
  // docs/commands.md, "Errors": the text clients see, unchanged by
  // storage's knowing no RESP word.
  EXPECT_EQ(Reply(Replicator::NotAcknowledged()),
            "-NOQUORUM the write was not acknowledged by a quorum of the "
            "replication group within repl-ack-timeout: it may or may not "
            "survive a failover, and retrying it is safe\r\n");
  EXPECT_EQ(
      Reply(Replicator::RetryAfterAbort(Status::Busy("DB_LOCK_DEADLOCK"))),
      "-TRYAGAIN the replication group was busy (DB_LOCK_DEADLOCK): "
      "nothing of this command was stored, and retrying it is "
      "safe\r\n");
  // Storage's messages themselves carry no protocol word.
  for (const Status& s : {Replicator::NotAcknowledged(),
                          Replicator::RetryAfterAbort(Status::Busy("x"))}) {
    for (const char* word : {"NOQUORUM", "TRYAGAIN", "READONLY"}) {
      EXPECT_EQ(s.message().find(word), std::string::npos) << s.message();
    }
  }
}

}  // namespace
}  // namespace frontier
