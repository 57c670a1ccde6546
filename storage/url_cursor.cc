#include "storage/url_cursor.h"

#include <charconv>

namespace frontier {

std::string EncodeUrlCursor(const UrlKey& key) {
  char buf[40];
  char* end = std::to_chars(buf, buf + 20, key.host_fp, 16).ptr;
  *end++ = '-';
  end = std::to_chars(end, buf + sizeof(buf), key.url_fp, 16).ptr;
  return std::string(buf, end);
}

bool DecodeUrlCursor(std::string_view text, UrlKey* key) {
  if (text == "0") {
    *key = UrlKey();
    return true;
  }
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) return false;
  auto parse = [](std::string_view part, uint64_t* out) {
    if (part.empty() || part.size() > 16) return false;
    auto [ptr, ec] =
        std::from_chars(part.data(), part.data() + part.size(), *out, 16);
    return ec == std::errc() && ptr == part.data() + part.size();
  };
  return parse(text.substr(0, dash), &key->host_fp) &&
         parse(text.substr(dash + 1), &key->url_fp);
}

}  // namespace frontier
