// StrCat: builds a string by appending, the one way the client tools join text.
// (GCC 12 reports a false -Wrestrict on `"literal" + std::string&&`, which
// -Werror builds cannot have.)
#pragma once

#include <concepts>
#include <string>
#include <string_view>

namespace frontier_client {

inline void AppendPart(std::string& out, std::string_view s) { out.append(s); }
template <std::integral T>
void AppendPart(std::string& out, T v) {
  out.append(std::to_string(v));
}

template <typename... Parts>
std::string StrCat(const Parts&... parts) {
  std::string out;
  (AppendPart(out, parts), ...);
  return out;
}

}  // namespace frontier_client
