// WorkerProcess: runs the real frontier-worker binary for end-to-end tests,
// its output captured in files of a temporary directory. Every wait is
// bounded; the destructor kills a worker that still runs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {

// The path of the frontier-worker binary under test.
const char* WorkerBinary();

class WorkerProcess {
 public:
  // Starts `frontier-worker -p <port> <args...>`. ok() is false if it could
  // not be started.
  WorkerProcess(int frontierd_port, const std::vector<std::string>& args);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  bool ok() const { return pid_ > 0; }
  bool Signal(int sig);
  // Waits for the exit; returns the exit status (128 + signal if a signal
  // ended it), or -1 if it still ran after `timeout` (it is then killed).
  int Wait(std::chrono::milliseconds timeout);
  std::string Stdout() const { return ReadFile(tmp_.path() + "/stdout"); }
  std::string Stderr() const { return ReadFile(tmp_.path() + "/stderr"); }

 private:
  TempDir tmp_;
  pid_t pid_ = -1;
};

}  // namespace frontier::itest
