// The RESP clients of frontierd_process.h: Client over hiredis,
// RawConnection over a plain socket, and Resp() for the raw bytes.
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

timeval ToTimeval(milliseconds ms) {
  timeval tv;
  tv.tv_sec = ms.count() / 1000;
  tv.tv_usec = (ms.count() % 1000) * 1000;
  return tv;
}

Reply FromHiredis(const redisReply* r) {
  Reply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = Reply::Type::kString;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = Reply::Type::kArray;
      for (size_t i = 0; i < r->elements; ++i) {
        out.elements.push_back(FromHiredis(r->element[i]));
      }
      break;
    case REDIS_REPLY_INTEGER:
      out.type = Reply::Type::kInteger;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_NIL:
      out.type = Reply::Type::kNil;
      break;
    case REDIS_REPLY_STATUS:
      out.type = Reply::Type::kStatus;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = Reply::Type::kError;
      out.str.assign(r->str, r->len);
      break;
    default:  // RESP3 types never appear on a RESP2 connection
      out.type = Reply::Type::kIoError;
      out.str = "unexpected hiredis reply type " + std::to_string(r->type);
      break;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- Client

Client::Client(int port, milliseconds timeout) {
  ctx_ = redisConnectWithTimeout("127.0.0.1", port, ToTimeval(timeout));
  if (ctx_ == nullptr) {
    error_ = "cannot allocate a hiredis context";
    broken_ = true;
    return;
  }
  if (ctx_->err != 0) {
    error_ = ctx_->errstr;
    broken_ = true;
    return;
  }
  SetTimeout(timeout);
}

Client::~Client() {
  if (ctx_ != nullptr) redisFree(ctx_);
}

void Client::SetTimeout(milliseconds timeout) {
  if (ctx_ != nullptr) redisSetTimeout(ctx_, ToTimeval(timeout));
}

Reply Client::Cmd(const std::vector<std::string>& args) {
  Append(args);
  return GetReply();
}

void Client::Append(const std::vector<std::string>& args) {
  if (!ok()) return;
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  if (redisAppendCommandArgv(ctx_, static_cast<int>(args.size()), argv.data(),
                             lens.data()) != REDIS_OK) {
    broken_ = true;
    error_ = ctx_->errstr;
  }
}

Reply Client::GetReply() {
  Reply io;
  io.type = Reply::Type::kIoError;
  if (!ok()) {
    io.str = error_.empty() ? "not connected" : error_;
    return io;
  }
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) {
    broken_ = true;
    error_ = ctx_->errstr[0] != '\0' ? ctx_->errstr : "connection lost";
    io.str = error_;
    return io;
  }
  Reply r = FromHiredis(static_cast<redisReply*>(raw));
  freeReplyObject(raw);
  return r;
}

// ----------------------------------------------------------------
// RawConnection

RawConnection::RawConnection(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd_);
    fd_ = -1;
    return;
  }
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) close(fd_);
}

bool RawConnection::Send(const std::string& bytes) {
  if (fd_ < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string RawConnection::Read(size_t expected_bytes, milliseconds timeout,
                                bool* closed) {
  std::string out;
  if (closed != nullptr) *closed = false;
  if (fd_ < 0) {
    if (closed != nullptr) *closed = true;
    return out;
  }
  const auto deadline = Clock::now() + timeout;
  while (out.size() < expected_bytes) {
    auto left =
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) break;
    char buf[4096];
    ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (closed != nullptr) *closed = true;
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string RawConnection::ReadUntilClosed(milliseconds timeout, bool* closed) {
  return Read(std::string::npos, timeout, closed);
}

std::string Resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return out;
}

}  // namespace frontier::itest
