// Canonical paths for robots.txt matching: see path_encoding.h.
#include "robots/path_encoding.h"

namespace frontier::robots {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Bytes a URI never carries literally ('#' would start a fragment).
bool MustEncode(unsigned char c) {
  if (c <= 0x20 || c >= 0x7F) return true;
  switch (c) {
    case '"':
    case '#':
    case '<':
    case '>':
    case '\\':
    case '^':
    case '`':
    case '{':
    case '|':
    case '}':
      return true;
    default:
      return false;
  }
}

constexpr char kHex[] = "0123456789ABCDEF";

// The %XX at text[i] if it is a valid escape, else -1.
int EscapeAt(std::string_view text, size_t i) {
  if (text[i] != '%' || i + 2 >= text.size()) return -1;
  const int hi = HexValue(text[i + 1]);
  const int lo = HexValue(text[i + 2]);
  if (hi < 0 || lo < 0) return -1;
  return hi * 16 + lo;
}

// Whether the octet `v`, found percent-encoded, is compared decoded.
// Kept encoded: what may not appear literally, '%' itself, '?' (it would
// start the query), '*' and '$' (wildcards in a pattern), and '/' in the
// path part (a%2Fb is one segment, a/b two).
bool DecodeEscape(int v, bool in_query) {
  const auto c = static_cast<unsigned char>(v);
  if (MustEncode(c)) return false;
  switch (c) {
    case '%':
    case '?':
    case '*':
    case '$':
      return false;
    case '/':
      return in_query;
    default:
      return true;
  }
}

bool IsUpperHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

// Writes the canonical form of `text` to *out, or, with out == nullptr,
// only checks: returns false at the first byte that would change.
// `pattern`: '*' and a final '$' are wildcards, kept as they are.
bool Canonicalize(std::string_view text, bool pattern, std::string* out) {
  auto escaped = [out](unsigned char v) {
    out->push_back('%');
    out->push_back(kHex[v >> 4]);
    out->push_back(kHex[v & 15]);
  };
  bool in_query = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '%') {
      const int v = EscapeAt(text, i);
      if (v < 0) {  // a lone '%' is a literal one
        if (out == nullptr) return false;
        escaped('%');
      } else if (DecodeEscape(v, in_query)) {
        if (out == nullptr) return false;
        out->push_back(static_cast<char>(v));
        i += 2;
      } else {
        if (out == nullptr) {
          if (!IsUpperHex(text[i + 1]) || !IsUpperHex(text[i + 2])) {
            return false;
          }
        } else {
          escaped(static_cast<unsigned char>(v));
        }
        i += 2;
      }
    } else if (MustEncode(c) ||
               ((c == '*' || c == '$') &&
                !(pattern && (c == '*' || i + 1 == text.size())))) {
      if (out == nullptr) return false;
      escaped(c);
    } else {
      if (c == '?') in_query = true;
      if (out != nullptr) out->push_back(static_cast<char>(c));
    }
  }
  return true;
}

}  // namespace

bool IsCanonicalPath(std::string_view path) {
  return Canonicalize(path, /*pattern=*/false, nullptr);
}

std::string CanonicalPath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  Canonicalize(path, /*pattern=*/false, &out);
  return out;
}

std::string CanonicalPattern(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  Canonicalize(pattern, /*pattern=*/true, &out);
  return out;
}

}  // namespace frontier::robots
