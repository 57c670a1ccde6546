// Replies that more than one piece of the server writes: the one place a
// Status becomes RESP text, the command-check errors, and the reply shape
// of popped URLs (POP, BPOP now, and BPOP served later by the loop).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/reply_writer.h"
#include "storage/frontier.h"
#include "util/status.h"

namespace frontier {

// The one function that turns a non-OK Status into an error reply:
//   InvalidArgument -> "ERR <message>": storage writes those messages for
//     the client ("invalid URL: ...", "backup target '...' is not an
//     absolute path", see frontier.h).
//   Unavailable     -> "ERR <message>".
//   ReadOnly        -> Redis's "READONLY You can't write against a read
//     only replica." exactly (clients match the whole line).
//   NoReplicas, NotAcknowledged, TryAgain -> "<word> <message>", the word
//     from StatusErrorWord (docs/commands.md, docs/replication.md).
//   anything else   -> "ERR storage error: <message>".
// Precondition: !status.ok().
void ReplyStatus(ReplyWriter& reply, const Status& status);

// The error word a replication group's answer to a write is sent with,
// which clients match to retry: "READONLY", "NOREPLICAS", "NOQUORUM",
// "TRYAGAIN"; empty for every other code.
std::string_view StatusErrorWord(Status::Code code);

// A record looked up by name (URLINFO, SITE INFO): if `result` is an
// error or nothing, replies the error or nil and returns nullptr; else
// returns the record, which the caller replies. Points into `result`.
template <typename T>
const T* RecordOrReply(ReplyWriter& reply,
                       const StatusOr<std::optional<T>>& result) {
  if (!result.ok()) {
    ReplyStatus(reply, result.status());
    return nullptr;
  }
  if (!result->has_value()) {
    reply.Null();
    return nullptr;
  }
  return &**result;
}

// A flat field/value array of bulk strings, in the order given.
void ReplyFields(
    ReplyWriter& reply,
    std::span<const std::pair<std::string_view, std::string>> fields);
// :1 or :0 from a verb's StatusOr<bool>, or its error (ReplyStatus).
void ReplyBool(ReplyWriter& reply, const StatusOr<bool>& result);

// "ERR wrong number of arguments for '<name>' command". `name` is the
// command's lower-case table name ("add", or "client|setname").
void ReplyWrongArity(ReplyWriter& reply, std::string_view name);

// "ERR unknown command '<argv[0]>', with args beginning with: '<a>' ... "
// in Redis 7's words: the name and the quoted arguments are cut to 128
// characters in all. Precondition: !argv.empty().
void ReplyUnknownCommand(ReplyWriter& reply, std::span<const std::string> argv);

// "ERR unknown subcommand '<sub>'. Try <COMMAND> HELP."
void ReplyUnknownSubcommand(ReplyWriter& reply, std::string_view command,
                            std::string_view sub);

// Popped URLs: without COUNT the first URL as a bulk string or a nil bulk
// when there is none; with COUNT an array of all of them (maybe empty).
// With `with_data` (WITHDATA) each URL is a pair [url, value] instead,
// its value a nil bulk when it has none.
void ReplyPopped(ReplyWriter& reply, const std::vector<PoppedUrl>& urls,
                 bool with_count, bool with_data);

// A BPOP that timed out: nil bulk without COUNT, null array with COUNT
// (as Redis's BLPOP replies a null array on timeout).
void ReplyPopTimeout(ReplyWriter& reply, bool with_count);

}  // namespace frontier
