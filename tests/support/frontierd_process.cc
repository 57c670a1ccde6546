#include "support/frontierd_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#ifndef FRONTIERD_BIN
#define FRONTIERD_BIN "frontierd"
#endif

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A server that dies under a test must not kill the test with SIGPIPE.
const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

constexpr milliseconds kStartTimeout{10'000};
constexpr milliseconds kStopTimeout{10'000};
constexpr milliseconds kPollInterval{10};
constexpr int kStartAttempts = 4;
constexpr size_t kLogTailBytes = 16 * 1024;

// Built with -fsanitize=address (gcc defines the macro, clang the feature).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif
#else
constexpr bool kSanitizedBuild = false;
#endif

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

// Exit status of a wait() status: the code, or 128 + signal.
int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// argv as the char* array exec wants; `storage` must outlive the result.
std::vector<char*> ExecArgv(const std::vector<std::string>& storage) {
  std::vector<char*> argv;
  for (const std::string& s : storage)
    argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  return argv;
}

std::string Tail(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return "...(cut)...\n" + s.substr(s.size() - n);
}

}  // namespace

// ---------------------------------------------------------------- Reply

std::string Reply::DebugString() const {
  switch (type) {
    case Type::kString:
      return "\"" + str + "\"";
    case Type::kInteger:
      return "(integer) " + std::to_string(integer);
    case Type::kNil:
      return "(nil)";
    case Type::kStatus:
      return "+" + str;
    case Type::kError:
      return "(error) " + str;
    case Type::kIoError:
      return "(I/O error: " + str + ")";
    case Type::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) s += " ";
        s += elements[i].DebugString();
      }
      return s + "]";
    }
  }
  return "?";
}

bool operator==(const Reply& a, const Reply& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case Reply::Type::kInteger:
      return a.integer == b.integer;
    case Reply::Type::kNil:
      return true;
    case Reply::Type::kArray:
      return a.elements == b.elements;
    default:
      return a.str == b.str;
  }
}

void PrintTo(const Reply& reply, std::ostream* os) {
  *os << reply.DebugString();
}
std::ostream& operator<<(std::ostream& os, const Reply& reply) {
  return os << reply.DebugString();
}

Reply Int(long long n) {
  Reply r;
  r.type = Reply::Type::kInteger;
  r.integer = n;
  return r;
}
Reply Bulk(const std::string& s) {
  Reply r;
  r.type = Reply::Type::kString;
  r.str = s;
  return r;
}
Reply StatusReply(const std::string& s) {
  Reply r;
  r.type = Reply::Type::kStatus;
  r.str = s;
  return r;
}
Reply Nil() { return Reply(); }
Reply Error(const std::string& message) {
  Reply r;
  r.type = Reply::Type::kError;
  r.str = message;
  return r;
}
Reply Array(std::vector<Reply> elements) {
  Reply r;
  r.type = Reply::Type::kArray;
  r.elements = std::move(elements);
  return r;
}
Reply BulkArray(const std::vector<std::string>& strings) {
  std::vector<Reply> e;
  for (const std::string& s : strings) e.push_back(Bulk(s));
  return Array(std::move(e));
}

::testing::AssertionResult IsErrorStartingWith(const Reply& reply,
                                               const std::string& prefix) {
  if (reply.IsError() && reply.str.compare(0, prefix.size(), prefix) == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "expected an error starting with \"" << prefix << "\", got "
         << reply.DebugString();
}

std::map<std::string, std::string> FieldMap(const Reply& reply) {
  std::map<std::string, std::string> m;
  if (!reply.IsArray() || reply.elements.size() % 2 != 0) return m;
  for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    const Reply& v = reply.elements[i + 1];
    std::string value;
    if (v.IsInteger()) {
      value = std::to_string(v.integer);
    } else if (v.IsNil()) {
      value = "(nil)";
    } else {
      value = v.str;
    }
    m[reply.elements[i].str] = value;
  }
  return m;
}

std::map<std::string, std::string> InfoMap(const std::string& info) {
  std::map<std::string, std::string> m;
  std::istringstream in(info);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    m[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return m;
}

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

// ---------------------------------------------------------------- processes

ProcessResult RunProcess(const std::vector<std::string>& args,
                         const std::string& input, milliseconds timeout) {
  ProcessResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return result;
  std::vector<char*> argv = ExecArgv(args);

  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }

  int in_fd = in_pipe[1];
  fcntl(in_fd, F_SETFL, O_NONBLOCK);
  size_t written = 0;
  if (input.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  int out_fd = out_pipe[0], err_fd = err_pipe[0];
  const auto deadline = Clock::now() + timeout;
  while (out_fd >= 0 || err_fd >= 0) {
    auto left =
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd fds[3];
    int n = 0;
    int idx_in = -1, idx_out = -1, idx_err = -1;
    if (in_fd >= 0) {
      idx_in = n;
      fds[n++] = {in_fd, POLLOUT, 0};
    }
    if (out_fd >= 0) {
      idx_out = n;
      fds[n++] = {out_fd, POLLIN, 0};
    }
    if (err_fd >= 0) {
      idx_err = n;
      fds[n++] = {err_fd, POLLIN, 0};
    }
    int rc = poll(fds, n, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    if (idx_in >= 0 && fds[idx_in].revents != 0) {
      ssize_t w = write(in_fd, input.data() + written, input.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) written = input.size();
      if (written >= input.size()) {
        close(in_fd);
        in_fd = -1;
      }
    }
    auto drain = [](int& fd, std::string& sink) {
      char buf[8192];
      ssize_t r = read(fd, buf, sizeof(buf));
      if (r > 0) {
        sink.append(buf, static_cast<size_t>(r));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fd);
        fd = -1;
      }
    };
    if (idx_out >= 0 && fds[idx_out].revents != 0) drain(out_fd, result.out);
    if (idx_err >= 0 && fds[idx_err].revents != 0) drain(err_fd, result.err);
  }
  for (int fd : {in_fd, out_fd, err_fd}) {
    if (fd >= 0) close(fd);
  }
  // Outputs are closed; the process exits now or soon. Bound that too.
  int status = 0;
  while (true) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      result.exit_code = DecodeWaitStatus(status);
      break;
    }
    if (w < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.exit_code = DecodeWaitStatus(status);
      break;
    }
    std::this_thread::sleep_for(milliseconds(2));
  }
  return result;
}

ProcessResult RunRedisCli(int port, const std::vector<std::string>& args,
                          const std::string& input, milliseconds timeout) {
  std::vector<std::string> argv = {"redis-cli", "-h", "127.0.0.1", "-p",
                                   std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, input, timeout);
}

// ---------------------------------------------------------------- PtySession

PtySession::PtySession(const std::vector<std::string>& args) {
  master_ = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master_ < 0) return;
  if (grantpt(master_) != 0 || unlockpt(master_) != 0) return;
  char name[256];
  if (ptsname_r(master_, name, sizeof(name)) != 0) return;
  winsize ws{};
  ws.ws_row = 24;
  ws.ws_col = 80;
  ioctl(master_, TIOCSWINSZ, &ws);
  std::vector<char*> argv = ExecArgv(args);
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setsid();
    int slave = open(name, O_RDWR);
    if (slave < 0) _exit(126);
    ioctl(slave, TIOCSCTTY, 0);
    dup2(slave, 0);
    dup2(slave, 1);
    dup2(slave, 2);
    if (slave > 2) close(slave);
    setenv("TERM", "dumb", 1);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  if (pid > 0) pid_ = pid;
}

PtySession::~PtySession() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (master_ >= 0) close(master_);
}

bool PtySession::Send(const std::string& keys) {
  size_t done = 0;
  while (done < keys.size()) {
    ssize_t n = write(master_, keys.data() + done, keys.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

void PtySession::Drain(milliseconds timeout) {
  pollfd p{master_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return;
  char buf[4096];
  ssize_t n = read(master_, buf, sizeof(buf));
  if (n > 0) output_.append(buf, static_cast<size_t>(n));
}

bool PtySession::WaitFor(const std::string& needle, milliseconds timeout,
                         size_t count) {
  auto occurrences = [&] {
    size_t c = 0;
    for (size_t pos = output_.find(needle); pos != std::string::npos;
         pos = output_.find(needle, pos + needle.size())) {
      ++c;
    }
    return c;
  };
  const auto deadline = Clock::now() + timeout;
  while (occurrences() < count) {
    auto left =
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    Drain(std::min(left, milliseconds(50)));
  }
  return true;
}

int PtySession::Wait(milliseconds timeout) {
  if (pid_ <= 0) return -1;
  const auto deadline = Clock::now() + timeout;
  while (true) {
    Drain(milliseconds(5));
    int status = 0;
    pid_t w = waitpid(pid_, &status, WNOHANG);
    if (w == pid_) {
      pid_ = -1;
      return DecodeWaitStatus(status);
    }
    if (Clock::now() >= deadline) return -1;
  }
}

// ---------------------------------------------------------------- TempDir

TempDir::TempDir() {
  const char* base = getenv("TMPDIR");
  std::string templ =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") +
      "/frontierd-itest-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {
// True if process `pid` holds a socket listening on 127.0.0.1:`port`
// (/proc/net/tcp names the listening socket's inode, /proc/<pid>/fd the
// process's sockets). Tests pick ports concurrently, and a server started
// again on its old port may lose it to another test's server: a PING on
// the port then answers from the wrong process, and that test's commands
// would change another test's data.
bool ListensOn(pid_t pid, int port) {
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);  // the header
  char want[16];
  std::snprintf(want, sizeof(want), "0100007F:%04X", port);
  std::string inode;
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retr, uid, timeout;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retr >>
        uid >> timeout >> inode;
    if (local == want && state == "0A") break;  // 0A: TCP_LISTEN
    inode.clear();
  }
  if (inode.empty()) return false;
  const std::string target = "socket:[" + inode + "]";
  std::error_code ec;
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  for (const auto& entry : std::filesystem::directory_iterator(fd_dir, ec)) {
    std::error_code link_ec;
    if (std::filesystem::read_symlink(entry.path(), link_ec) == target) {
      return true;
    }
  }
  return false;
}
}  // namespace

int PickFreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return out;
}

const char* FrontierdBinary() { return FRONTIERD_BIN; }

std::string SanitizerReport(const std::string& logs) {
  size_t at = std::string::npos;
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                             "runtime error:", "ERROR: ThreadSanitizer",
                             "WARNING: ThreadSanitizer"}) {
    at = std::min(at, logs.find(marker));
  }
  if (at == std::string::npos) return "";
  size_t line = logs.rfind('\n', at);
  return logs.substr(line == std::string::npos ? 0 : line + 1, kLogTailBytes);
}

// ----------------------------------------------------------------
// FrontierdProcess

FrontierdProcess::FrontierdProcess(std::vector<std::string> args)
    : args_(std::move(args)) {}

FrontierdProcess::~FrontierdProcess() {
  client_.reset();
  if (pid_ > 0) Kill9();
}

::testing::AssertionResult FrontierdProcess::Launch(
    const std::vector<std::string>& args) {
  if (tmp_.path().empty()) {
    return ::testing::AssertionFailure()
           << "cannot create a temporary directory";
  }
  std::vector<std::string> cmd = {FrontierdBinary()};
  if (!config_file_.empty()) cmd.push_back(config_file_);
  // No HTTP listener unless a test asks for one: the shipped config file
  // turns it on at a fixed port, which parallel tests would fight over.
  cmd.insert(cmd.end(), {"--port", std::to_string(port_), "--bind", "127.0.0.1",
                         "--dir", data_dir(), "--logfile", log_path(),
                         "--http-port", "0"});
  cmd.insert(cmd.end(), args.begin(), args.end());
  std::vector<char*> argv = ExecArgv(cmd);
  std::string out_path = tmp_.path() + "/stdout.log";

  int out_fd =
      open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out_fd < 0) {
    return ::testing::AssertionFailure() << "cannot open " << out_path;
  }
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    // The server must not outlive a test binary that crashes.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_fd);
  if (null_fd >= 0) close(null_fd);
  if (pid < 0)
    return ::testing::AssertionFailure() << "fork: " << strerror(errno);
  pid_ = pid;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult FrontierdProcess::WaitUntilReady(
    milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string last_error;
  while (Clock::now() < deadline) {
    int status = 0;
    pid_t w = waitpid(pid_, &status, WNOHANG);
    if (w == pid_) {
      pid_ = -1;
      return ::testing::AssertionFailure()
             << "frontierd exited while starting, status "
             << DecodeWaitStatus(status);
    }
    if (ready_probe_) {
      last_error = ready_probe_();
      if (last_error.empty()) return ::testing::AssertionSuccess();
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    if (!ListensOn(pid_, port_)) {  // a PING would reach someone else
      last_error = "not listening on port " + std::to_string(port_) + " yet";
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    Client probe(port_, milliseconds(200));
    if (probe.ok()) {
      Reply r = probe.Cmd({"PING"});
      if (r == StatusReply("PONG")) return ::testing::AssertionSuccess();
      last_error = "PING answered " + r.DebugString();
    } else {
      last_error = probe.error();
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  return ::testing::AssertionFailure()
         << "frontierd did not answer PING within " << timeout.count()
         << " ms (last: " << last_error << ")";
}

::testing::AssertionResult FrontierdProcess::Start() {
  if (pid_ > 0) return ::testing::AssertionFailure() << "already running";
  ::testing::AssertionResult last = ::testing::AssertionFailure();
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    port_ = PickFreePort();
    if (port_ == 0) continue;
    last = Launch(args_);
    if (!last) return last;
    last = WaitUntilReady(kStartTimeout);
    if (last) return last;
    if (pid_ > 0) break;  // alive but deaf: another port will not help
  }
  if (pid_ > 0) Kill9();
  return last << "\n--- frontierd logs ---\n" << Tail(Logs(), kLogTailBytes);
}

::testing::AssertionResult FrontierdProcess::Restart(
    std::optional<std::vector<std::string>> extra_args) {
  if (pid_ > 0) return ::testing::AssertionFailure() << "still running";
  client_.reset();
  if (extra_args.has_value()) args_ = *extra_args;
  ::testing::AssertionResult last = ::testing::AssertionFailure();
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(milliseconds(200));
    last = Launch(args_);
    if (!last) return last;
    last = WaitUntilReady(kStartTimeout);
    if (last) return last;
    if (pid_ > 0) break;
  }
  if (pid_ > 0) Kill9();
  return last << "\n--- frontierd logs ---\n" << Tail(Logs(), kLogTailBytes);
}

int FrontierdProcess::WaitForExit(milliseconds timeout) {
  if (pid_ <= 0) return -1;
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    pid_t w = waitpid(pid_, &status, WNOHANG);
    if (w == pid_) {
      pid_ = -1;
      client_.reset();
      return DecodeWaitStatus(status);
    }
    if (Clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(milliseconds(5));
  }
}

int FrontierdProcess::Stop() {
  if (pid_ <= 0) return -1;
  client_.reset();
  kill(pid_, SIGTERM);
  int code = WaitForExit(kStopTimeout);
  if (code == -1 && pid_ > 0) Kill9();
  return code;
}

void FrontierdProcess::Kill9() {
  if (pid_ <= 0) return;
  client_.reset();
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

bool FrontierdProcess::Signal(int sig) {
  if (pid_ <= 0) return false;
  return kill(pid_, sig) == 0;
}

std::string FrontierdProcess::Logs() const {
  return "--- " + log_path() + " ---\n" + ReadFile(log_path()) +
         "\n--- stdout/stderr ---\n" + ReadFile(tmp_.path() + "/stdout.log");
}

Reply FrontierdProcess::Cmd(const std::vector<std::string>& args) {
  if (client_ == nullptr || !client_->ok()) client_ = Connect();
  Reply r = client_->Cmd(args);
  if (r.IsIoError()) client_.reset();
  return r;
}

std::unique_ptr<Client> FrontierdProcess::Connect(milliseconds timeout) const {
  return std::make_unique<Client>(port_, timeout);
}

std::vector<std::string> DefaultTestArgs() {
  return {"--politeness-delay", "0", "--site-max-leases", "0",
          "--timer-ms",         "10"};
}

// ----------------------------------------------------------------
// FrontierdTest

void FrontierdTest::SetUp() {
  if (!AutoStart()) return;
  server_ = std::make_unique<FrontierdProcess>(ServerArgs());
  ASSERT_TRUE(server_->Start());
}

void FrontierdTest::TearDown() {
  if (server_ != nullptr) {
    // Under the sanitizers the server is stopped cleanly, so that
    // LeakSanitizer runs at its exit; any report fails the test.
    if (kSanitizedBuild && server_->running()) server_->Stop();
    std::string report = SanitizerReport(server_->Logs());
    EXPECT_TRUE(report.empty()) << "frontierd sanitizer report:\n" << report;
  }
  if (server_ != nullptr && HasFailure()) {
    std::cerr << "\n===== frontierd logs (port " << server_->port()
              << ") =====\n"
              << Tail(server_->Logs(), kLogTailBytes)
              << "\n===== end of logs =====\n";
  }
  server_.reset();
}

std::map<std::string, std::string> FrontierdTest::UrlInfo(
    const std::string& url) {
  return FieldMap(Cmd({"URLINFO", url}));
}

std::map<std::string, long long> FrontierdTest::Stats() {
  std::map<std::string, long long> m;
  Reply r = Cmd({"STATS"});
  if (!r.IsArray()) {
    ADD_FAILURE() << "STATS answered " << r;
    return m;
  }
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    m[r.elements[i].str] = r.elements[i + 1].integer;
  }
  return m;
}

std::optional<milliseconds> FrontierdTest::PopUntil(const std::string& url,
                                                    milliseconds timeout) {
  Stopwatch watch;
  while (watch.Elapsed() < timeout) {
    Reply r = Cmd({"POP"});
    if (r == Bulk(url)) return watch.Elapsed();
    if (!r.IsNil()) {
      ADD_FAILURE() << "waiting for POP to return " << url << ", it returned "
                    << r;
      return std::nullopt;
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  ADD_FAILURE() << "POP did not return " << url << " within " << timeout.count()
                << " ms";
  return std::nullopt;
}

}  // namespace frontier::itest
