// Argument parsing shared by the command handlers and the configuration:
// case-insensitive words, integers, durations in seconds, and "NAME value"
// option lists. Pure functions, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace frontier {

// ASCII case-insensitive equality ("count" == "COUNT").
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Lower-cases ASCII letters of `s`.
std::string ToLower(std::string_view s);

// A base-10 integer: optional '-', digits, nothing else (no spaces, no '+').
// nullopt if `text` is not one or does not fit in int64_t.
std::optional<int64_t> ParseInt64(std::string_view text);

// A number of seconds, possibly negative and with decimals ("0.5", "-1",
// "30"), converted to milliseconds and rounded away from zero, so a
// non-zero value never becomes 0 and the sign is kept. nullopt if `text`
// is not a finite decimal number or is beyond about 285,000 years.
std::optional<int64_t> ParseDurationMs(std::string_view text);

// Formats milliseconds as seconds with only the decimals needed:
// 1500 -> "1.5", 300000 -> "300", 1 -> "0.001", -250 -> "-0.25".
std::string FormatSeconds(int64_t ms);

// Formats a time as Unix seconds with milliseconds, "1700000000.123", or
// "0" for ms == 0 (none).
std::string FormatUnixTime(int64_t ms);

// Matches `args` as "NAME value" pairs where each NAME is one of `names`
// (case-insensitive) and appears at most once. On success sets values[i]
// to the value that followed names[i] (values must be as long as names;
// entries not given stay nullopt) and returns true. Returns false on a
// word that is not a name, a name without a value, or a repeated name
// (the caller replies errors::kSyntax). The views point into `args`.
bool ParseNamedOptions(std::span<const std::string> args,
                       std::span<const std::string_view> names,
                       std::span<std::optional<std::string_view>> values);

// Why ParseOptions() refused its input, and the word it stopped at.
struct OptionError {
  enum Kind { kUnknownWord, kNoValue, kRepeated } kind = kUnknownWord;
  std::string_view word;
};

// ParseNamedOptions() with flags as well: words of `flags` stand alone
// (WITHDATA, REPLACE), each at most once, and set flag_set[i] (as long as
// flags). Returns nullopt on success, else what went wrong first, so that
// a caller can name the word in its error.
std::optional<OptionError> ParseOptions(
    std::span<const std::string> args, std::span<const std::string_view> names,
    std::span<std::optional<std::string_view>> values,
    std::span<const std::string_view> flags, std::span<bool> flag_set);

}  // namespace frontier
