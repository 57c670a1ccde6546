#include "client.h"

#include <charconv>

#include "str_cat.h"

namespace bench {
namespace {

constexpr std::string_view kSeenKey = "frontier:seen";
constexpr std::string_view kQueueKey = "frontier:queue";
constexpr std::string_view kInflightKey = "frontier:inflight";

}  // namespace

void CommandArgs::PushNumber(int64_t n) {
  auto& buf = numbers_[numbers_used_++ % numbers_.size()];
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), n);
  (void)ec;  // 24 bytes always hold an int64
  Push(std::string_view(buf.data(), static_cast<size_t>(end - buf.data())));
}

std::unique_ptr<Connection> Connection::Open(const std::string& host, int port,
                                             const std::string& password,
                                             std::string* error) {
  redisContext* ctx = redisConnect(host.c_str(), port);
  if (ctx == nullptr) {
    *error = "cannot allocate a hiredis context";
    return nullptr;
  }
  std::unique_ptr<Connection> conn(new Connection(ctx));
  if (ctx->err) {
    *error = StrCat("connect to ", host, ":", port, ": ",
                    std::string_view(ctx->errstr));
    return nullptr;
  }
  if (!password.empty()) {
    CommandArgs args;
    args.Push("AUTH");
    args.Push(password);
    ReplyPtr r = conn->Call(args);
    if (!r) {
      *error = StrCat("AUTH: ", conn->Error());
      return nullptr;
    }
    if (r->type == REDIS_REPLY_ERROR) {
      *error = StrCat("AUTH: ", std::string_view(r->str, r->len));
      return nullptr;
    }
  }
  return conn;
}

Connection::~Connection() { redisFree(ctx_); }

void Connection::Append(CommandArgs& args) {
  redisAppendCommandArgv(ctx_, args.argc(), args.argv(), args.lens());
}

ReplyPtr Connection::Next() {
  void* reply = nullptr;
  if (redisGetReply(ctx_, &reply) != REDIS_OK) return nullptr;
  return ReplyPtr(static_cast<redisReply*>(reply));
}

ReplyPtr Connection::Call(CommandArgs& args) {
  Append(args);
  return Next();
}

std::string Connection::Error() const {
  return ctx_->err ? std::string(ctx_->errstr) : std::string("no reply");
}

void Verbs::Add(CommandArgs& a, std::string_view url) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("ADD");
  } else {
    a.Push("FCALL");
    a.Push("fadd");
    a.Push("2");
    a.Push(kSeenKey);
    a.Push(kQueueKey);
  }
  a.Push(url);
}

void Verbs::Madd(CommandArgs& a, std::string_view ref,
                 const std::vector<std::string_view>& urls) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("MADD");
  } else {
    a.Push("FCALL");
    a.Push("fmadd");
    a.Push("2");
    a.Push(kSeenKey);
    a.Push(kQueueKey);
  }
  a.Push(ref);
  for (std::string_view u : urls) a.Push(u);
}

void Verbs::Pop(CommandArgs& a, int count) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("POP");
    if (count > 0) {
      a.Push("COUNT");
      a.PushNumber(count);
    }
  } else {
    a.Push("FCALL");
    a.Push("fpop");
    a.Push("2");
    a.Push(kQueueKey);
    a.Push(kInflightKey);
    if (count > 0) a.PushNumber(count);
  }
}

void Verbs::Confirm(CommandArgs& a, std::string_view url) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("CONFIRM");
  } else {
    a.Push("FCALL");
    a.Push("fconfirm");
    a.Push("1");
    a.Push(kInflightKey);
  }
  a.Push(url);
}

void Verbs::Stats(CommandArgs& a) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("STATS");
  } else {
    a.Push("FCALL");
    a.Push("fstats");
    a.Push("3");
    a.Push(kSeenKey);
    a.Push(kQueueKey);
    a.Push(kInflightKey);
  }
}

}  // namespace bench
