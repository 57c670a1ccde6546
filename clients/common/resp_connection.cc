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
  if (!conn->Authenticate(password, error)) return nullptr;
  return conn;
}

std::unique_ptr<Connection> Connection::OpenTls(const std::string& host,
                                                int port,
                                                const std::string& password,
                                                const TlsOptions& tls,
                                                std::string* error) {
  auto stream = TlsStream::Connect(host, port, tls, error);
  if (!stream) return nullptr;
  std::unique_ptr<Connection> conn(new Connection(std::move(stream)));
  if (conn->reader_ == nullptr) {
    *error = "cannot allocate a hiredis reader";
    return nullptr;
  }
  if (!conn->Authenticate(password, error)) return nullptr;
  return conn;
}

Connection::Connection(std::unique_ptr<TlsStream> tls)
    : tls_(std::move(tls)), reader_(redisReaderCreate()) {}

bool Connection::Authenticate(const std::string& password, std::string* error) {
  if (password.empty()) return true;
  CommandArgs args;
  args.Push("AUTH");
  args.Push(password);
  ReplyPtr r = Call(args);
  if (!r) {
    *error = StrCat("AUTH: ", Error());
    return false;
  }
  if (r->type == REDIS_REPLY_ERROR) {
    *error = StrCat("AUTH: ", std::string_view(r->str, r->len));
    return false;
  }
  return true;
}

Connection::~Connection() {
  if (ctx_ != nullptr) redisFree(ctx_);
  if (reader_ != nullptr) redisReaderFree(reader_);
}

void Connection::Append(CommandArgs& args) {
  if (!tls_) {
    redisAppendCommandArgv(ctx_, args.argc(), args.argv(), args.lens());
    return;
  }
  char* command = nullptr;
  int len =
      redisFormatCommandArgv(&command, args.argc(), args.argv(), args.lens());
  if (len > 0) out_.append(command, static_cast<size_t>(len));
  redisFreeCommand(command);
}

ReplyPtr Connection::Next() {
  void* reply = nullptr;
  if (!tls_) {
    if (redisGetReply(ctx_, &reply) != REDIS_OK) return nullptr;
    return ReplyPtr(static_cast<redisReply*>(reply));
  }
  if (!Flush()) return nullptr;
  for (;;) {
    if (redisReaderGetReply(reader_, &reply) != REDIS_OK) {
      tls_error_ =
          StrCat("protocol error: ", std::string_view(reader_->errstr));
      return nullptr;
    }
    if (reply != nullptr) return ReplyPtr(static_cast<redisReply*>(reply));
    if (!FillReader(/*wait=*/true)) return nullptr;
  }
}

bool Connection::FillReader(bool wait) {
  char buf[16 * 1024];
  do {
    int64_t n = tls_->Read(buf, sizeof buf, wait);
    if (n < 0) {
      tls_error_ = tls_->error();
      return false;
    }
    if (n == 0) return false;  // nothing yet: TLS records without data
    redisReaderFeed(reader_, buf, static_cast<size_t>(n));
  } while (tls_->HasBuffered());
  return true;
}

ReplyPtr Connection::Call(CommandArgs& args) {
  Append(args);
  return Next();
}

std::string Connection::Error() const {
  if (tls_) return tls_error_.empty() ? std::string("no reply") : tls_error_;
  return ctx_->err ? std::string(ctx_->errstr) : std::string("no reply");
}

bool Connection::Flush() {
  if (tls_) {
    if (!tls_->WriteAll(out_)) {
      tls_error_ = tls_->error();
      return false;
    }
    out_.clear();
    return true;
  }
  int done = 0;
  while (!done) {
    if (redisBufferWrite(ctx_, &done) != REDIS_OK) return false;
  }
  return true;
}

ReplyPtr Connection::ReadAvailable(bool* failed) {
  *failed = false;
  void* reply = nullptr;
  if (tls_) {
    bool parsed = redisReaderGetReply(reader_, &reply) == REDIS_OK;
    if (parsed && reply == nullptr && FillReader(/*wait=*/false)) {
      parsed = redisReaderGetReply(reader_, &reply) == REDIS_OK;
    }
    if (!parsed) {
      tls_error_ =
          StrCat("protocol error: ", std::string_view(reader_->errstr));
    }
    *failed = reply == nullptr && !tls_error_.empty();
    return ReplyPtr(static_cast<redisReply*>(reply));
  }
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
