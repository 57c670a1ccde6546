// frontier-worker: a crawler worker for frontierd. See --help and
// docs/worker.md.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "options.h"
#include "worker.h"

namespace {

constexpr int kExitConnection = 3;

// The write end of the self-pipe the signal handler writes to; the worker
// polls the read end with its transfers, so a signal wakes it at once.
int g_stop_pipe_write = -1;

void OnStopSignal(int) {
  int saved = errno;
  char byte = 1;
  ssize_t ignored = write(g_stop_pipe_write, &byte, 1);
  (void)ignored;  // a full pipe already holds enough stop requests
  errno = saved;
}

bool InstallSignals(int* stop_read_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  g_stop_pipe_write = fds[1];
  *stop_read_fd = fds[0];
  struct sigaction sa = {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  signal(SIGPIPE, SIG_IGN);
  return sigaction(SIGINT, &sa, nullptr) == 0 &&
         sigaction(SIGTERM, &sa, nullptr) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  worker::Options o;
  int exit_code = 0;
  if (!worker::ParseOptions(argc, argv, &o, &exit_code)) return exit_code;
  int stop_fd = -1;
  if (!InstallSignals(&stop_fd)) {
    std::perror("frontier-worker: signals");
    return 1;
  }
  std::string error;
  auto w = worker::Worker::Create(o, &error);
  if (!w) {
    std::fprintf(stderr, "frontier-worker: %s\n", error.c_str());
    return kExitConnection;
  }
  std::fprintf(stderr,
               "frontier-worker: crawling from %s:%d%s, %d fetches at once\n",
               o.host.c_str(), o.port, o.tls ? " (TLS)" : "", o.concurrency);
  bool clean = w->Run(stop_fd, &error);
  if (clean && w->done()) {
    std::fprintf(stderr,
                 "frontier-worker: done: the frontier has nothing queued or "
                 "leased\n");
  }
  const worker::Totals& t = w->totals();
  std::fprintf(
      stderr,
      "frontier-worker: leased %lld, fetched %lld, confirmed %lld, "
      "failed %lld, links %lld (new %lld), handed back %lld, "
      "errors %lld\n",
      static_cast<long long>(t.leased), static_cast<long long>(t.fetched),
      static_cast<long long>(t.confirmed), static_cast<long long>(t.failed),
      static_cast<long long>(t.links), static_cast<long long>(t.new_links),
      static_cast<long long>(t.handed_back), static_cast<long long>(t.errors));
  if (!clean) {
    std::fprintf(stderr, "frontier-worker: %s\n", error.c_str());
    return kExitConnection;
  }
  return 0;
}
