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

bool IsUnreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

// Bytes a URI never carries literally.
bool MustEncode(unsigned char c) {
  if (c <= 0x20 || c >= 0x7F) return true;
  switch (c) {
    case '"':
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

void AppendEscaped(std::string* out, unsigned char c) {
  out->push_back('%');
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 15]);
}

// The %XX at path[i] if it is a valid escape, else -1.
int EscapeAt(std::string_view path, size_t i) {
  if (path[i] != '%' || i + 2 >= path.size()) return -1;
  const int hi = HexValue(path[i + 1]);
  const int lo = HexValue(path[i + 2]);
  if (hi < 0 || lo < 0) return -1;
  return hi * 16 + lo;
}

bool IsWildcard(unsigned char c) { return c == '*' || c == '$'; }

// `pattern`: keep the wildcards (CanonicalPattern) rather than encode them.
std::string Canonical(std::string_view path, bool pattern) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c == '%') {
      const int v = EscapeAt(path, i);
      if (v < 0) {
        AppendEscaped(&out, '%');
      } else {
        if (IsUnreserved(static_cast<unsigned char>(v))) {
          out.push_back(static_cast<char>(v));
        } else {
          AppendEscaped(&out, static_cast<unsigned char>(v));
        }
        i += 2;
      }
    } else if (MustEncode(c) ||
               (IsWildcard(c) &&
                !(pattern && (c == '*' || i + 1 == path.size())))) {
      AppendEscaped(&out, c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

}  // namespace

bool IsCanonicalPath(std::string_view path) {
  for (size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c == '%') {
      const int v = EscapeAt(path, i);
      if (v < 0 || IsUnreserved(static_cast<unsigned char>(v))) return false;
      if (HexValue(path[i + 1]) >= 10 && path[i + 1] >= 'a') return false;
      if (HexValue(path[i + 2]) >= 10 && path[i + 2] >= 'a') return false;
      i += 2;
    } else if (MustEncode(c) || IsWildcard(c)) {
      return false;
    }
  }
  return true;
}

std::string CanonicalPath(std::string_view path) {
  return Canonical(path, /*pattern=*/false);
}

std::string CanonicalPattern(std::string_view pattern) {
  return Canonical(pattern, /*pattern=*/true);
}

}  // namespace frontier::robots
