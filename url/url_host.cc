// Host parsing for URL normalisation: the WHATWG URL Standard's host parser
// for special schemes, with libidn2 for the IDNA part.
//
// Error messages quote the host as the client wrote it, never a decoded
// form (a decoded "%0A" would put a line break into a RESP error line),
// with its control bytes written "\xNN".
#include "url/url_host.h"

#include <arpa/inet.h>
#include <idn2.h>
#include <unictype.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "url/url_text.h"

namespace frontier::url_internal {
namespace {

std::string Quoted(std::string_view input) {
  std::string out = "'";
  for (const char c : input) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      out +=
          std::string("\\x") + kHexDigits[byte >> 4] + kHexDigits[byte & 0xF];
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

Status BadHost(std::string_view input, std::string_view why) {
  return Status::InvalidArgument("invalid host " + Quoted(input) + ": " +
                                 std::string(why));
}

// The Standard's percent-decode: "%XX" becomes byte XX, a '%' not followed
// by two hex digits stays (and is then refused as a forbidden code point).
std::string PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 +
                                      HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

bool IsAscii(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// The labels of `domain`, split at '.' and at the three other full stops
// UTS #46 maps to it (U+3002, U+FF0E, U+FF61), so that each label can be
// converted on its own: an ASCII label is only lower-cased, as the
// Standard's domain-to-ASCII does for an all-ASCII domain, and libidn2
// sees only the labels that need it.
std::vector<std::string_view> SplitLabels(std::string_view domain) {
  static constexpr std::array<std::string_view, 3> kWideDots = {
      "\xE3\x80\x82", "\xEF\xBC\x8E", "\xEF\xBD\xA1"};
  std::vector<std::string_view> labels;
  size_t begin = 0;
  size_t i = 0;
  while (i < domain.size()) {
    size_t dot = 0;
    if (domain[i] == '.') {
      dot = 1;
    } else {
      for (const std::string_view wide : kWideDots) {
        if (domain.substr(i).starts_with(wide)) dot = wide.size();
      }
    }
    if (dot == 0) {
      ++i;
      continue;
    }
    labels.push_back(domain.substr(begin, i - begin));
    i += dot;
    begin = i;
  }
  labels.push_back(domain.substr(begin));
  return labels;
}

// UTS #46 ToASCII of one label, non-transitional ("ß" stays "ß" and becomes
// "xn--zca"), as browsers do. libidn2 also applies IDNA2008's rules to the
// labels it converts, which refuse a few labels UTS #46 alone allows
// (symbols such as U+2603, "--" in the third and fourth position, a leading
// or trailing hyphen): docs/commands.md lists this difference.
StatusOr<std::string> LabelToAscii(std::string_view input,
                                   std::string_view label) {
  const std::string lower = AsciiLower(label);
  if (IsAscii(lower) && !lower.starts_with("xn--")) return lower;
  char* converted = nullptr;
  const int rc = idn2_lookup_u8(reinterpret_cast<const uint8_t*>(lower.c_str()),
                                reinterpret_cast<uint8_t**>(&converted),
                                IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
  if (rc != IDN2_OK) {
    return Status::InvalidArgument("invalid IDN host " + Quoted(input) + ": " +
                                   idn2_strerror(rc) + " (IDNA2008, UTS #46)");
  }
  std::unique_ptr<char, decltype(&idn2_free)> owned(converted, &idn2_free);
  return std::string(converted);
}

// The code points of valid UTF-8 `text`.
std::vector<uint32_t> CodePoints(std::string_view text) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80   ? 1
                          : lead < 0xE0 ? 2
                          : lead < 0xF0 ? 3
                                        : 4;
    uint32_t code = (length == 1) ? lead : lead & (0x7F >> length);
    for (size_t k = 1; k < length && i + k < text.size(); ++k) {
      code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    out.push_back(code);
    i += length;
  }
  return out;
}

// The Unicode form of A-label `label` (itself if it is not punycode).
std::string ULabel(const std::string& label) {
  if (!label.starts_with("xn--")) return label;
  char* unicode = nullptr;
  if (idn2_to_unicode_8z8z(label.c_str(), &unicode, 0) != IDN2_OK) {
    return label;
  }
  std::unique_ptr<char, decltype(&idn2_free)> owned(unicode, &idn2_free);
  return std::string(unicode);
}

// RFC 5893 §2's six rules for one label of a Bidi domain name, by the
// code points' Bidi_Class (libunistring's table): it starts with L (a
// left-to-right label) or R/AL (right-to-left); holds only the classes
// its direction allows; ends, before any NSM, with L or EN (LTR) or with
// R, AL, EN or AN (RTL); and an RTL label mixes no EN with AN.
bool MeetsBidiRule(const std::vector<uint32_t>& label) {
  if (label.empty()) return true;
  const auto bidi = [](uint32_t c) { return uc_bidi_class(c); };
  const int first = bidi(label.front());
  const bool rtl = first == UC_BIDI_R || first == UC_BIDI_AL;
  if (!rtl && first != UC_BIDI_L) return false;
  bool en = false, an = false;
  for (const uint32_t c : label) {
    const int k = bidi(c);
    en = en || k == UC_BIDI_EN;
    an = an || k == UC_BIDI_AN;
    const bool either = k == UC_BIDI_EN || k == UC_BIDI_ES ||
                        k == UC_BIDI_CS || k == UC_BIDI_ET ||
                        k == UC_BIDI_ON || k == UC_BIDI_BN ||
                        k == UC_BIDI_NSM;
    const bool allowed =
        either || (rtl ? k == UC_BIDI_R || k == UC_BIDI_AL || k == UC_BIDI_AN
                       : k == UC_BIDI_L);
    if (!allowed) return false;
  }
  size_t end = label.size();
  while (end > 1 && bidi(label[end - 1]) == UC_BIDI_NSM) --end;
  const int last = bidi(label[end - 1]);
  if (rtl) {
    return (last == UC_BIDI_R || last == UC_BIDI_AL || last == UC_BIDI_EN ||
            last == UC_BIDI_AN) &&
           !(en && an);
  }
  return last == UC_BIDI_L || last == UC_BIDI_EN;
}

// UTS #46's CheckBidi, which the Standard asks for: in a Bidi domain name
// (one with a character of class R, AL or AN in some label), every label
// meets RFC 5893's rule. libidn2 checks only the right-to-left labels it
// converts.
Status CheckBidiDomain(std::string_view input,
                       const std::vector<std::string>& labels) {
  std::vector<std::vector<uint32_t>> unicode;
  bool bidi_domain = false;
  for (const std::string& label : labels) {
    unicode.push_back(CodePoints(ULabel(label)));
    for (const uint32_t code : unicode.back()) {
      const int k = uc_bidi_class(code);
      bidi_domain = bidi_domain || k == UC_BIDI_R || k == UC_BIDI_AL ||
                    k == UC_BIDI_AN;
    }
  }
  if (!bidi_domain) return Status::OK();
  for (const std::vector<uint32_t>& label : unicode) {
    if (!MeetsBidiRule(label)) {
      return Status::InvalidArgument(
          "invalid IDN host " + Quoted(input) +
          ": a label breaks the bidi rule of a right-to-left domain (UTS #46 "
          "CheckBidi, RFC 5893)");
    }
  }
  return Status::OK();
}

// What the Standard forbids in a domain, plus what frontierd forbids on top:
// '"', '`', '{' and '}', which the Standard lets through but which neither
// RFC 3986 nor DNS allows in a host name. Returns the offending byte's
// description, or "" if `c` may appear.
std::string ForbiddenInDomain(unsigned char c) {
  if (c <= 0x20 || c == 0x7F) {
    if (c == ' ') return "a space";
    return std::string("control character 0x") + kHexDigits[c >> 4] +
           kHexDigits[c & 0xF];
  }
  static constexpr std::string_view kForbidden = "#%/:<>?@[\\]^|\"`{}";
  if (kForbidden.find(static_cast<char>(c)) != std::string_view::npos) {
    return std::string("'") + static_cast<char>(c) + "'";
  }
  return "";
}

// The Standard's IPv4 number parser: decimal, "0x" hex or "0" octal.
// Returns false if `text` is none of them. Values are capped just above
// 2^32 so that overflow cannot hide a too-large part.
bool ParseIpv4Number(std::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  int radix = 10;
  if (text.size() >= 2 && text[0] == '0' &&
      (text[1] == 'x' || text[1] == 'X')) {
    radix = 16;
    text.remove_prefix(2);
  } else if (text.size() >= 2 && text[0] == '0') {
    radix = 8;
    text.remove_prefix(1);
  }
  uint64_t n = 0;
  for (const char c : text) {
    const int digit = HexValue(c);
    if (digit < 0 || digit >= radix) return false;
    n = n * static_cast<uint64_t>(radix) + static_cast<uint64_t>(digit);
    if (n > (uint64_t{1} << 33)) n = uint64_t{1} << 33;
  }
  *value = n;
  return true;
}

std::vector<std::string_view> SplitDots(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (size_t dot = text.find('.'); dot != std::string_view::npos;
       dot = text.find('.', begin)) {
    parts.push_back(text.substr(begin, dot - begin));
    begin = dot + 1;
  }
  parts.push_back(text.substr(begin));
  return parts;
}

// The Standard's "ends in a number": the last label (after one trailing
// dot) is all decimal digits or "0x" and hex digits. Such a host must be an
// IPv4 address.
bool EndsInNumber(std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);
  const size_t dot = host.rfind('.');
  const std::string_view last =
      (dot == std::string_view::npos) ? host : host.substr(dot + 1);
  if (!last.empty() &&
      last.find_first_not_of("0123456789") == std::string_view::npos) {
    return true;
  }
  uint64_t ignored = 0;
  return last.size() >= 2 && last[0] == '0' &&
         (last[1] == 'x' || last[1] == 'X') && ParseIpv4Number(last, &ignored);
}

// The Standard's IPv4 parser, on a host that EndsInNumber.
StatusOr<std::string> ParseIpv4(std::string_view input, std::string_view host) {
  std::vector<std::string_view> parts = SplitDots(host);
  if (parts.size() > 1 && parts.back().empty()) parts.pop_back();
  if (parts.size() > 4) {
    return BadHost(input, "an IPv4 address has at most four parts");
  }
  std::vector<uint64_t> numbers;
  for (const std::string_view part : parts) {
    uint64_t n = 0;
    if (!ParseIpv4Number(part, &n)) {
      return BadHost(input,
                     "it ends in a number, so it must be an IPv4 address, "
                     "and '" +
                         std::string(part) + "' is not a number");
    }
    numbers.push_back(n);
  }
  for (size_t i = 0; i + 1 < numbers.size(); ++i) {
    if (numbers[i] > 255) return BadHost(input, "IPv4 part above 255");
  }
  const uint64_t limit = uint64_t{1} << (8 * (5 - numbers.size()));
  if (numbers.back() >= limit) return BadHost(input, "IPv4 address too large");
  uint64_t address = numbers.back();
  for (size_t i = 0; i + 1 < numbers.size(); ++i) {
    address += numbers[i] << (8 * (3 - i));
  }
  return std::to_string((address >> 24) & 0xFF) + "." +
         std::to_string((address >> 16) & 0xFF) + "." +
         std::to_string((address >> 8) & 0xFF) + "." +
         std::to_string(address & 0xFF);
}

// The Standard's IPv6 serializer: lower-case hex without leading zeros, the
// first longest run of two or more zero pieces written "::". Unlike
// inet_ntop, an IPv4-mapped address stays in hex ("::ffff:102:304").
std::string SerializeIpv6(const unsigned char bytes[16]) {
  std::array<unsigned, 8> pieces{};
  for (size_t i = 0; i < 8; ++i)
    pieces[i] = bytes[2 * i] << 8 | bytes[2 * i + 1];
  size_t best = 8, best_length = 1;
  for (size_t i = 0; i < 8;) {
    size_t j = i;
    while (j < 8 && pieces[j] == 0) ++j;
    if (j - i > best_length) best = i, best_length = j - i;
    i = (j == i) ? i + 1 : j;
  }
  std::string out = "[";
  for (size_t i = 0; i < 8; ++i) {
    if (i == best) {
      out += (i == 0) ? "::" : ":";
      i += best_length - 1;
      continue;
    }
    char piece[8];
    std::snprintf(piece, sizeof(piece), "%x", pieces[i]);
    out += piece;
    if (i != 7) out += ':';
  }
  return out + "]";
}

StatusOr<std::string> ParseIpv6(std::string_view input) {
  if (input.size() < 2 || input.back() != ']') {
    return BadHost(input, "an IPv6 address must end with ']'");
  }
  const std::string address(input.substr(1, input.size() - 2));
  unsigned char bytes[16];
  if (inet_pton(AF_INET6, address.c_str(), bytes) != 1) {
    return BadHost(input, "not an IPv6 address");
  }
  return SerializeIpv6(bytes);
}

}  // namespace

size_t FindInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    uint32_t code = 0, min = 0;
    if ((lead & 0xE0) == 0xC0) {
      length = 2, code = lead & 0x1F, min = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, code = lead & 0x0F, min = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, code = lead & 0x07, min = 0x10000;
    }
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      valid = (next & 0xC0) == 0x80;
      code = (code << 6) | (next & 0x3F);
    }
    if (!valid || code < min || code > 0x10FFFF ||
        (code >= 0xD800 && code <= 0xDFFF)) {
      return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

StatusOr<std::string> ParseHost(std::string_view input) {
  if (input.empty()) return Status::InvalidArgument("URL has no host");
  if (input.front() == '[') return ParseIpv6(input);

  const std::string decoded = PercentDecode(input);
  if (FindInvalidUtf8(decoded) != std::string_view::npos) {
    return BadHost(input, "its percent-escapes are not UTF-8 text");
  }
  // An ASCII host is only lower-cased, as the Standard's domain-to-ASCII
  // does (since 2025 also for "xn--" labels, valid punycode or not: the
  // web-platform tests keep http://a.b.c.xn--pokxncvks/); only the others
  // go label by label to libidn2, their "xn--" labels checked there.
  std::string ascii = AsciiLower(decoded);
  // libidn2 reads C strings: a NUL (from %00) would end the host there,
  // and "é%00" would pass as "é". The check after it never sees the NUL.
  if (decoded.find('\0') != std::string::npos) {
    return BadHost(input, ForbiddenInDomain(0) + " cannot appear in a host name");
  }
  if (!IsAscii(ascii)) {
    std::vector<std::string> labels;
    for (const std::string_view label : SplitLabels(decoded)) {
      StatusOr<std::string> converted = LabelToAscii(input, label);
      if (!converted.ok()) return converted.status();
      labels.push_back(std::move(*converted));
    }
    if (Status s = CheckBidiDomain(input, labels); !s.ok()) return s;
    ascii.clear();
    for (const std::string& label : labels) {
      if (&label != &labels.front()) ascii.push_back('.');
      ascii += label;
    }
  }
  if (ascii.empty()) return Status::InvalidArgument("URL has no host");
  for (const char c : ascii) {
    const std::string what = ForbiddenInDomain(static_cast<unsigned char>(c));
    if (!what.empty()) {
      return BadHost(input, what + " cannot appear in a host name");
    }
  }
  if (EndsInNumber(ascii)) return ParseIpv4(input, ascii);
  return ascii;
}

}  // namespace frontier::url_internal
