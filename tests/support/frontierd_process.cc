// FrontierdProcess (frontierd_process.h): one frontierd child in its own
// temporary directory, started on a free port, stopped, killed and
// restarted; and the small helpers around it (ports, files, sanitizer
// reports).
#include "support/frontierd_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
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
#include <sstream>
#include <thread>

#include "support/process_util.h"

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

}  // namespace

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
  std::vector<std::string> cmd = {binary_.empty() ? FrontierdBinary()
                                                  : binary_};
  if (!config_file_.empty()) cmd.push_back(config_file_);
  // No HTTP listener unless a test asks for one: the shipped config file
  // turns it on at a fixed port, which parallel tests would fight over.
  cmd.insert(cmd.end(), {"--port", std::to_string(port_), "--bind", "127.0.0.1",
                         "--dir", data_dir(), "--logfile", log_path(),
                         "--http-port", "0"});
  cmd.insert(cmd.end(), args.begin(), args.end());
  std::vector<char*> argv = ExecArgv(cmd);
  // Built before fork(): the child of a threaded test may not allocate.
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (const std::string& var : environment_) {
    envp.push_back(const_cast<char*>(var.c_str()));
  }
  envp.push_back(nullptr);
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
    execve(argv[0], argv.data(), envp.data());
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

}  // namespace frontier::itest
