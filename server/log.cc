#include "server/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "server/args.h"

namespace frontier {
namespace {

struct LogState {
  LogLevel min_level = LogLevel::kNotice;
  FILE* file = nullptr;  // nullptr: stderr. Owned; closed at exit by the OS.
};

LogState& State() {
  static LogState state;
  return state;
}

constexpr char kLevelChars[] = {'.', '-', '*', '#'};
constexpr const char* kLevelNames[] = {"debug", "verbose", "notice", "warning"};

}  // namespace

bool ParseLogLevel(std::string_view text, LogLevel* level) {
  for (int i = 0; i < 4; ++i) {
    if (EqualsIgnoreCase(text, kLevelNames[i])) {
      *level = static_cast<LogLevel>(i);
      return true;
    }
  }
  return false;
}

const char* LogLevelName(LogLevel level) {
  return kLevelNames[static_cast<int>(level)];
}

Status InitLog(LogLevel min_level, const std::string& path) {
  LogState& state = State();
  state.min_level = min_level;
  if (path.empty()) return Status::OK();
  FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return Status::IOError("cannot open log file '" + path +
                           "': " + std::strerror(errno));
  }
  if (state.file != nullptr) std::fclose(state.file);
  state.file = file;
  return Status::OK();
}

void SetLogLevel(LogLevel min_level) { State().min_level = min_level; }

void Log(LogLevel level, const char* format, ...) {
  const LogState& state = State();
  if (level < state.min_level) return;

  char message[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(message, sizeof(message), format, ap);
  va_end(ap);

  timeval tv;
  gettimeofday(&tv, nullptr);
  tm local;
  localtime_r(&tv.tv_sec, &local);
  char when[64];
  size_t off = std::strftime(when, sizeof(when), "%d %b %Y %H:%M:%S.", &local);
  std::snprintf(when + off, sizeof(when) - off, "%03d",
                static_cast<int>(tv.tv_usec / 1000));

  FILE* out = state.file != nullptr ? state.file : stderr;
  std::fprintf(out, "%d:M %s %c %s\n", static_cast<int>(getpid()), when,
               kLevelChars[static_cast<int>(level)], message);
  std::fflush(out);
}

}  // namespace frontier
