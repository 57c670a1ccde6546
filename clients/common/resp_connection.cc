#include "resp_connection.h"

#include <charconv>

#include "str_cat.h"

namespace frontier_client {

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

bool Connection::Flush() {
  int done = 0;
  while (!done) {
    if (redisBufferWrite(ctx_, &done) != REDIS_OK) return false;
  }
  return true;
}

ReplyPtr Connection::ReadAvailable(bool* failed) {
  *failed = false;
  void* reply = nullptr;
  // A reply may already be buffered from an earlier read.
  if (redisGetReplyFromReader(ctx_, &reply) != REDIS_OK) {
    *failed = true;
    return nullptr;
  }
  if (reply == nullptr) {
    if (redisBufferRead(ctx_) != REDIS_OK ||
        redisGetReplyFromReader(ctx_, &reply) != REDIS_OK) {
      *failed = true;
      return nullptr;
    }
  }
  return ReplyPtr(static_cast<redisReply*>(reply));
}

}  // namespace frontier_client
