// WHATWG-style splitting and escaping of an http(s) URL; see url_lenient.h.
// The steps follow the Standard's basic URL parser for a special scheme
// without a base URL, collapsed into one pass per component since the
// Standard's state machine gives the same result for these inputs.
#include "url/url_lenient.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "url/url_host.h"
#include "url/url_text.h"

namespace frontier::url_internal {
namespace {

bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// RFC 3986 unreserved: an escape of one of these is decoded.
bool IsUnreserved(unsigned char c) {
  return IsAlpha(static_cast<char>(c)) || IsDigit(static_cast<char>(c)) ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

enum class Component { kUserinfo, kPath, kQuery };

// True if byte `c` is written as "%XX" in `component`: the Standard's
// userinfo, path and special-query encode sets, joined with what RFC 3986
// does not allow in that component (the Standard leaves '[', ']', '|', '^',
// '\' and, in a query, '`', '{', '}' unescaped). The result is then both
// what a browser requests, up to escaping, and a valid RFC 3986 URI.
bool MustEscape(unsigned char c, Component component) {
  if (c <= 0x20 || c >= 0x7F) return true;
  switch (c) {
    // clang-format off
    case '"': case '#': case '<': case '>': case '[': case '\\': case ']':
    case '^': case '`': case '{': case '|': case '}':
      return true;
    case '\'':
      return component == Component::kQuery;
    case '/': case ':': case ';': case '=': case '@': case '?':
      return component == Component::kUserinfo;
    // clang-format on
    default:
      return false;
  }
}

// Appends `text` escaped for `component`. An existing escape "%xx" keeps its
// byte, with upper-case hex, or is decoded if that byte is unreserved; a '%'
// that starts no escape is itself escaped ("%25"), where a browser would
// send it as it is.
void AppendEscaped(std::string_view text, Component component,
                   std::string* out) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      const auto byte = static_cast<unsigned char>(HexValue(text[i + 1]) * 16 +
                                                   HexValue(text[i + 2]));
      if (IsUnreserved(byte)) {
        out->push_back(static_cast<char>(byte));
      } else {
        out->push_back('%');
        out->push_back(kHexDigits[byte >> 4]);
        out->push_back(kHexDigits[byte & 0x0F]);
      }
      i += 2;
    } else if (c == '%' || MustEscape(c, component)) {
      out->push_back('%');
      out->push_back(kHexDigits[c >> 4]);
      out->push_back(kHexDigits[c & 0x0F]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
}

// "." or "%2e" in any case, at `text`'s start; returns its length or 0.
size_t DotAt(std::string_view text) {
  if (text.starts_with('.')) return 1;
  if (text.size() >= 3 && text[0] == '%' && text[1] == '2' &&
      (text[2] == 'e' || text[2] == 'E')) {
    return 3;
  }
  return 0;
}

// How many dots `segment` is written as: 1 for ".", 2 for "..", each dot
// possibly "%2e"; 0 for any other segment.
int DotSegment(std::string_view segment) {
  const size_t first = DotAt(segment);
  if (first == 0) return 0;
  if (first == segment.size()) return 1;
  const size_t second = DotAt(segment.substr(first));
  return (second != 0 && first + second == segment.size()) ? 2 : 0;
}

// The Standard's path state for a special scheme: `text` is what follows the
// authority up to '?' or '#', where '/' and '\' both separate segments.
std::string NormalizePath(std::string_view text) {
  if (!text.empty() && (text[0] == '/' || text[0] == '\\')) {
    text.remove_prefix(1);
  }
  std::string path;  // "/segment" after "/segment"; ".." cuts the last one
  path.reserve(text.size() + 1);
  size_t begin = 0;
  while (true) {
    const size_t end = text.find_first_of("/\\", begin);
    const bool last = end == std::string_view::npos;
    const std::string_view segment =
        text.substr(begin, last ? std::string_view::npos : end - begin);
    const int dots = DotSegment(segment);
    if (dots == 2) path.resize(path.empty() ? 0 : path.rfind('/'));
    if (dots == 0 || last) path.push_back('/');
    if (dots == 0) AppendEscaped(segment, Component::kPath, &path);
    if (last) break;
    begin = end + 1;
  }
  return path;
}

Status Relative() {
  return Status::InvalidArgument(
      "relative URL reference: an absolute http or https URL is required");
}

// Reads "scheme:" at the start of `text`. Returns its length with the ':'.
StatusOr<size_t> ReadScheme(std::string_view text, std::string* scheme) {
  if (text.empty() || !IsAlpha(text[0])) return Relative();
  size_t i = 1;
  while (i < text.size() &&
         (IsAlpha(text[i]) || IsDigit(text[i]) || text[i] == '+' ||
          text[i] == '-' || text[i] == '.')) {
    ++i;
  }
  if (i == text.size() || text[i] != ':') return Relative();
  *scheme = AsciiLower(text.substr(0, i));
  if (*scheme != "http" && *scheme != "https") {
    return Status::InvalidArgument("unsupported scheme '" + *scheme + "'");
  }
  return i + 1;
}

// Splits "host:port" at the first ':' outside brackets into parts->host
// and parts->port (without a default port or leading zeros).
Status SplitHostPort(std::string_view text, WebUrlParts* parts) {
  bool in_brackets = false;
  size_t colon = std::string_view::npos;
  for (size_t i = 0; i < text.size() && colon == std::string_view::npos; ++i) {
    if (text[i] == '[') in_brackets = true;
    if (text[i] == ']') in_brackets = false;
    if (text[i] == ':' && !in_brackets) colon = i;
  }
  parts->host.assign(text.substr(0, colon));
  if (parts->host.empty()) return Status::InvalidArgument("URL has no host");
  if (colon == std::string_view::npos) return Status::OK();
  const std::string_view digits = text.substr(colon + 1);
  uint32_t value = 0;
  for (const char c : digits) {
    if (!IsDigit(c)) {
      return Status::InvalidArgument("invalid port '" + std::string(digits) +
                                     "': not a number");
    }
    value = value * 10 + static_cast<uint32_t>(c - '0');
    if (value > 65535) break;
  }
  if (digits.empty()) return Status::OK();  // "http://host:/" as no port
  // The Standard accepts port 0; no server can listen on it.
  if (value == 0 || value > 65535) {
    return Status::InvalidArgument("invalid port '" + std::string(digits) +
                                   "': must be 1 to 65535");
  }
  const uint32_t default_port = (parts->scheme == "https") ? 443 : 80;
  if (value != default_port) parts->port = std::to_string(value);
  return Status::OK();
}

// The Standard keeps a username and a password; the userinfo is written
// "user", "user:password" or ":password", and not at all when both are
// empty ("http://@host/", "http://:@host/").
std::string NormalizeUserinfo(std::string_view text) {
  const size_t colon = text.find(':');
  std::string userinfo;
  AppendEscaped(text.substr(0, colon), Component::kUserinfo, &userinfo);
  if (colon != std::string_view::npos && colon + 1 < text.size()) {
    userinfo.push_back(':');
    AppendEscaped(text.substr(colon + 1), Component::kUserinfo, &userinfo);
  }
  return userinfo;
}

}  // namespace

StatusOr<WebUrlParts> SplitWebUrl(std::string_view raw) {
  if (const size_t bad = FindInvalidUtf8(raw); bad != std::string_view::npos) {
    return Status::InvalidArgument(
        "invalid UTF-8 at offset " + std::to_string(bad) +
        " (percent-encode bytes that are not UTF-8 text, e.g. %FF)");
  }
  size_t begin = 0, end = raw.size();
  while (begin < end && static_cast<unsigned char>(raw[begin]) <= 0x20) ++begin;
  while (end > begin && static_cast<unsigned char>(raw[end - 1]) <= 0x20) --end;
  std::string text;
  text.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    if (raw[i] != '\t' && raw[i] != '\n' && raw[i] != '\r')
      text.push_back(raw[i]);
  }
  if (text.empty()) return Status::InvalidArgument("empty URL");

  WebUrlParts parts;
  StatusOr<size_t> scheme_end = ReadScheme(text, &parts.scheme);
  if (!scheme_end.ok()) return scheme_end.status();
  size_t pos = *scheme_end;
  while (pos < text.size() && (text[pos] == '/' || text[pos] == '\\')) ++pos;

  const std::string_view rest = std::string_view(text).substr(pos);
  const size_t authority_end =
      std::min(rest.find_first_of("/\\?#"), rest.size());
  const std::string_view authority = rest.substr(0, authority_end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    parts.userinfo = NormalizeUserinfo(authority.substr(0, at));
  }
  const std::string_view host_port =
      (at == std::string_view::npos) ? authority : authority.substr(at + 1);
  if (Status s = SplitHostPort(host_port, &parts); !s.ok()) return s;

  const std::string_view after = rest.substr(authority_end);
  const size_t hash = std::min(after.find('#'), after.size());
  const size_t question = std::min(after.find('?'), hash);
  parts.path = NormalizePath(after.substr(0, question));
  if (question < hash) {
    parts.query.push_back('?');
    AppendEscaped(after.substr(question + 1, hash - question - 1),
                  Component::kQuery, &parts.query);
  }
  return parts;
}

}  // namespace frontier::url_internal
