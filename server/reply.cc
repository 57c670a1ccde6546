#include "server/reply.h"

#include <cctype>

#include "server/args.h"
#include "server/errors.h"

namespace frontier {

void ReplyFields(
    ReplyWriter& reply,
    std::span<const std::pair<std::string_view, std::string>> fields) {
  reply.Array(2 * fields.size());
  for (const auto& [name, value] : fields) {
    reply.Bulk(name);
    reply.Bulk(value);
  }
}

std::string_view StatusErrorWord(Status::Code code) {
  switch (code) {
    case Status::Code::kReadOnly:
      return "READONLY";  // Redis's, for a write on a replica
    case Status::Code::kNoReplicas:
      return "NOREPLICAS";  // Redis's, for min-replicas-to-write
    case Status::Code::kNotAcknowledged:
      return "NOQUORUM";
    case Status::Code::kTryAgain:
      return "TRYAGAIN";  // Redis Cluster's, for a command to retry
    default:
      return {};
  }
}

void ReplyStatus(ReplyWriter& reply, const Status& status) {
  // Storage's InvalidArgument messages are written for the client
  // ("invalid URL: ...", "invalid ref URL: ..."); a replication group's
  // answers get the word clients match; anything else is a fault of the
  // server's disk or database, and says so.
  if (status.IsInvalidArgument() || status.IsUnavailable()) {
    reply.Error("ERR " + status.message());
  } else if (status.code() == Status::Code::kReadOnly) {
    reply.Error(errors::kReadOnlyReplica);
  } else if (std::string_view word = StatusErrorWord(status.code());
             !word.empty()) {
    reply.Error(std::string(word) + " " + status.message());
  } else {
    reply.Error(std::string(errors::kStorageErrorPrefix) + status.message());
  }
}

void ReplyBool(ReplyWriter& reply, const StatusOr<bool>& result) {
  if (!result.ok()) {
    ReplyStatus(reply, result.status());
  } else {
    reply.Int(*result ? 1 : 0);
  }
}

void ReplyWrongArity(ReplyWriter& reply, std::string_view name) {
  std::string text(errors::kWrongArityPrefix);
  text += name;
  text += errors::kWrongAritySuffix;
  reply.Error(text);
}

void ReplyUnknownCommand(ReplyWriter& reply,
                         std::span<const std::string> argv) {
  constexpr size_t kMax = 128;
  std::string args;
  for (size_t i = 1; i < argv.size() && args.size() < kMax; ++i) {
    args += '\'';
    args += std::string_view(argv[i]).substr(0, kMax - args.size());
    args += "' ";
  }
  std::string text(errors::kUnknownCommandPrefix);
  text += std::string_view(argv[0]).substr(0, kMax);
  text += errors::kUnknownCommandArgs;
  text += args;
  reply.Error(text);
}

void ReplyUnknownSubcommand(ReplyWriter& reply, std::string_view command,
                            std::string_view sub) {
  std::string text(errors::kUnknownSubcommandPrefix);
  text += sub.substr(0, 128);
  text += "'. Try ";
  for (char c : command) text += static_cast<char>(std::toupper(c));
  text += " HELP.";
  reply.Error(text);
}

void ReplyPopped(ReplyWriter& reply, const std::vector<PoppedUrl>& urls,
                 bool with_count, bool with_data) {
  auto one = [&](const PoppedUrl& p) {
    if (!with_data) {
      reply.Bulk(p.url);
      return;
    }
    reply.Array(2);
    reply.Bulk(p.url);
    if (p.data) {
      reply.Bulk(*p.data);
    } else {
      reply.Null();
    }
  };
  if (!with_count) {
    if (urls.empty()) {
      reply.Null();
    } else {
      one(urls.front());
    }
    return;
  }
  reply.Array(urls.size());
  for (const PoppedUrl& p : urls) one(p);
}

void ReplyPopTimeout(ReplyWriter& reply, bool with_count) {
  if (with_count) {
    reply.NullArray();
  } else {
    reply.Null();
  }
}

}  // namespace frontier
