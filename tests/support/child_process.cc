// Child processes for tests (frontierd_process.h): RunProcess and
// RunRedisCli with pipes, PtySession on a pseudo-terminal.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include "support/frontierd_process.h"
#include "support/process_util.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

}  // namespace

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

}  // namespace frontier::itest
