// Strict number parsing for command-line options of the client tools: the
// whole text must be the number, within [min, max].
#pragma once

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

namespace frontier_client {

// False (and *out unchanged) unless `s` is an integer in [min, max].
template <typename T>
bool ParseInt(std::string_view s, T min, T max, T* out) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < min || v > max) {
    return false;
  }
  *out = v;
  return true;
}

// False (and *out unchanged) unless `s` is a decimal number in [min, max].
inline bool ParseDouble(std::string_view s, double min, double max,
                        double* out) {
  std::string copy(s);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (copy.empty() || *end != '\0' || !(v >= min && v <= max)) return false;
  *out = v;
  return true;
}

}  // namespace frontier_client
