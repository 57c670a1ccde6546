#include "server/args.h"

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace frontier {
namespace {

char LowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// 2^53 ms: past this a double no longer holds every millisecond.
constexpr double kMaxAbsMs = 9007199254740992.0;

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerAscii(a[i]) != LowerAscii(b[i])) return false;
  }
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerAscii(c);
  return out;
}

std::optional<int64_t> ParseInt64(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<int64_t> ParseDurationMs(std::string_view text) {
  if (text.empty() || text.front() == '+') return std::nullopt;
  double seconds = 0;
  const char* end = text.data() + text.size();
  // `fixed`: plain decimals only, no exponents, no "inf"/"nan"/hex.
  auto [ptr, ec] =
      std::from_chars(text.data(), end, seconds, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || !std::isfinite(seconds)) {
    return std::nullopt;
  }
  double ms = seconds * 1000.0;
  if (std::fabs(ms) > kMaxAbsMs) return std::nullopt;
  // Round away from zero, after shaving binary noise ("0.001" * 1000 is
  // 1.0000000000000002, which must stay 1 and not become 2).
  double magnitude = std::ceil(std::fabs(ms) - 1e-6);
  return static_cast<int64_t>(ms < 0 ? -magnitude : magnitude);
}

std::string FormatSeconds(int64_t ms) {
  char buf[40];
  const char* sign = ms < 0 ? "-" : "";
  uint64_t abs_ms = ms < 0 ? 0 - static_cast<uint64_t>(ms) : ms;
  uint64_t whole = abs_ms / 1000, frac = abs_ms % 1000;
  if (frac == 0) {
    std::snprintf(buf, sizeof(buf), "%s%llu", sign,
                  static_cast<unsigned long long>(whole));
    return buf;
  }
  std::snprintf(buf, sizeof(buf), "%s%llu.%03llu", sign,
                static_cast<unsigned long long>(whole),
                static_cast<unsigned long long>(frac));
  std::string out(buf);
  while (out.back() == '0') out.pop_back();
  return out;
}

bool ParseNamedOptions(std::span<const std::string> args,
                       std::span<const std::string_view> names,
                       std::span<std::optional<std::string_view>> values) {
  for (size_t i = 0; i < args.size(); i += 2) {
    size_t which = names.size();
    for (size_t n = 0; n < names.size(); ++n) {
      if (EqualsIgnoreCase(args[i], names[n])) {
        which = n;
        break;
      }
    }
    if (which == names.size() || i + 1 >= args.size() || values[which]) {
      return false;
    }
    values[which] = args[i + 1];
  }
  return true;
}

std::optional<OptionError> ParseOptions(
    std::span<const std::string> args, std::span<const std::string_view> names,
    std::span<std::optional<std::string_view>> values,
    std::span<const std::string_view> flags, std::span<bool> flag_set) {
  auto find = [](std::span<const std::string_view> list,
                 std::string_view word) {
    size_t i = 0;
    while (i < list.size() && !EqualsIgnoreCase(word, list[i])) ++i;
    return i;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (size_t f = find(flags, word); f < flags.size()) {
      if (flag_set[f]) return OptionError{OptionError::kRepeated, word};
      flag_set[f] = true;
      continue;
    }
    const size_t n = find(names, word);
    if (n == names.size()) return OptionError{OptionError::kUnknownWord, word};
    if (values[n]) return OptionError{OptionError::kRepeated, word};
    if (i + 1 >= args.size()) return OptionError{OptionError::kNoValue, word};
    values[n] = args[++i];
  }
  return std::nullopt;
}

std::string FormatUnixTime(int64_t ms) {
  if (ms == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%" PRId64 ".%03" PRId64, ms / 1000,
                ms % 1000);
  return buf;
}

}  // namespace frontier
