// Helpers the files of tests/support share about child processes: exec's
// argv, wait()'s status, and the end of a long log for a failure message.
// Tests themselves use frontierd_process.h.
#pragma once

#include <sys/wait.h>

#include <cstddef>
#include <string>
#include <vector>

namespace frontier::itest {

// How much of a server's log (its end) a failure message quotes.
inline constexpr size_t kLogTailBytes = 16 * 1024;

// Exit status of a wait() status: the code, or 128 + signal.
inline int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// argv as the char* array exec wants; `storage` must outlive the result.
inline std::vector<char*> ExecArgv(const std::vector<std::string>& storage) {
  std::vector<char*> argv;
  for (const std::string& s : storage)
    argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  return argv;
}

// `s`, or its last `n` bytes marked as cut when it is longer.
inline std::string Tail(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return "...(cut)...\n" + s.substr(s.size() - n);
}

}  // namespace frontier::itest
