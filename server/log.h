// The server's log: one line per event, in Redis's format
//   "<pid>:M <dd Mon yyyy hh:mm:ss.mmm> <level char> <message>"
// with level chars '.' debug, '-' verbose, '*' notice, '#' warning.
//
// The log is process-wide (as a logger usually is): InitLog() once at start,
// then Log() from anywhere on the event-loop thread. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace frontier {

enum class LogLevel { kDebug = 0, kVerbose, kNotice, kWarning };

// "debug" | "verbose" | "notice" | "warning" (case-insensitive). Returns
// false for anything else and leaves *level untouched.
bool ParseLogLevel(std::string_view text, LogLevel* level);
const char* LogLevelName(LogLevel level);

// Sends lines at `min_level` and above to `path` (appended), or to stderr
// when `path` is empty. Returns IOError if the file cannot be opened; the
// log then keeps writing to stderr.
Status InitLog(LogLevel min_level, const std::string& path);

// Changes the filter while running (CONFIG SET loglevel).
void SetLogLevel(LogLevel min_level);

// Writes one line if `level` passes the filter. Never fails: a log that
// cannot be written is not a reason to stop serving.
void Log(LogLevel level, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

// A uint64_t as the unsigned long long that Log()'s "%llu" wants (uint64_t
// is unsigned long on 64-bit Linux).
inline unsigned long long Ull(uint64_t n) {
  return static_cast<unsigned long long>(n);
}

}  // namespace frontier
