#include "server/slowlog.h"

#include "server/args.h"
#include "server/config.h"

namespace frontier {
namespace {

// Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING.
constexpr size_t kMaxArgs = 32;
constexpr size_t kMaxArgBytes = 128;
constexpr std::string_view kRedacted = "(redacted)";

// Which arguments may hold a password.
std::vector<bool> SecretArgs(std::span<const std::string> argv) {
  std::vector<bool> secret(argv.size(), false);
  if (argv.empty()) return secret;
  if (EqualsIgnoreCase(argv[0], "auth")) {
    for (size_t i = 1; i < argv.size(); ++i) secret[i] = true;
  } else if (EqualsIgnoreCase(argv[0], "hello")) {
    for (size_t i = 1; i + 2 < argv.size(); ++i) {
      if (EqualsIgnoreCase(argv[i], "auth")) {
        secret[i + 1] = secret[i + 2] = true;
        i += 2;
      }
    }
  } else if (EqualsIgnoreCase(argv[0], "config") && argv.size() > 2 &&
             EqualsIgnoreCase(argv[1], "set")) {
    for (size_t i = 2; i + 1 < argv.size(); i += 2) {
      const Directive* d = FindDirective(argv[i]);
      if (d != nullptr && (d->flags & kDirSecret)) secret[i + 1] = true;
    }
  }
  return secret;
}

}  // namespace

std::vector<std::string> SlowLogArgs(std::span<const std::string> argv) {
  std::vector<bool> secret = SecretArgs(argv);
  size_t kept = std::min(argv.size(), kMaxArgs);
  std::vector<std::string> out;
  out.reserve(kept);
  for (size_t i = 0; i < kept; ++i) {
    if (kept < argv.size() && i == kMaxArgs - 1) {
      out.push_back("... (" + std::to_string(argv.size() - i) +
                    " more arguments)");
      break;
    }
    if (secret[i]) {
      out.emplace_back(kRedacted);
    } else if (argv[i].size() > kMaxArgBytes) {
      out.push_back(argv[i].substr(0, kMaxArgBytes) + "... (" +
                    std::to_string(argv[i].size() - kMaxArgBytes) +
                    " more bytes)");
    } else {
      out.push_back(argv[i]);
    }
  }
  return out;
}

void SlowLog::Record(std::span<const std::string> argv, int64_t duration_us,
                     int64_t unix_seconds, const std::string& client_address,
                     const std::string& client_name, int64_t slower_than_us,
                     uint64_t max_len) {
  if (slower_than_us < 0 || duration_us < slower_than_us) return;
  SlowLogEntry entry;
  entry.id = next_id_++;
  entry.unix_seconds = unix_seconds;
  entry.duration_us = duration_us;
  entry.argv = SlowLogArgs(argv);
  entry.client_address = client_address;
  entry.client_name = client_name;
  entries_.push_front(std::move(entry));
  Trim(max_len);
}

void SlowLog::Trim(uint64_t max_len) {
  while (entries_.size() > max_len) entries_.pop_back();
}

std::vector<const SlowLogEntry*> SlowLog::Newest(int64_t count) const {
  size_t n = count < 0 ? entries_.size()
                       : std::min(entries_.size(), static_cast<size_t>(count));
  std::vector<const SlowLogEntry*> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(&entries_[i]);
  return out;
}

}  // namespace frontier
