// URL normalisation with uriparser and site identity with libpsl.
//
// The RFC 3986 work (parsing, case and percent-encoding normalisation, dot
// segment removal, recomposition) is uriparser's. This file adds only the
// crawler's policy around it: which URLs are accepted, the scheme-based
// rules of section 6.2.3, and the few edits uriparser's recomposition cannot
// express (see FinishUrl).
#include "storage/url.h"

#include <arpa/inet.h>
#include <libpsl.h>
#include <uriparser/Uri.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace frontier {
namespace {

// Owns the members of a UriUriA that uriparser allocates, so that every
// return path frees them. uriparser frees them itself when parsing fails,
// so only a successful parse arms the destructor.
class ParsedUri {
 public:
  ParsedUri() = default;
  ParsedUri(const ParsedUri&) = delete;
  ParsedUri& operator=(const ParsedUri&) = delete;
  ~ParsedUri() {
    if (parsed_) uriFreeUriMembersA(&uri_);
  }

  // Parses all of `text`, which must outlive this object: until
  // normalisation copies them, the ranges in the UriUriA point into it.
  // Returns uriparser's code; on URI_ERROR_SYNTAX, *error_pos is where.
  int Parse(const std::string& text, const char** error_pos) {
    const int rc = uriParseSingleUriExA(&uri_, text.data(),
                                        text.data() + text.size(), error_pos);
    parsed_ = (rc == URI_SUCCESS);
    return rc;
  }

  UriUriA* get() { return &uri_; }

 private:
  UriUriA uri_{};
  bool parsed_ = false;
};

// The input with every non-ASCII byte percent-encoded, as browsers do with
// raw UTF-8 in a path or query, and where those escapes are, so that a
// syntax error can be reported at its offset in the caller's bytes and an
// escape inside the host can be told apart from one the caller wrote.
struct EscapedInput {
  std::string text;
  std::vector<size_t> escapes;  // offsets in `text` of the added "%XX"s
};

EscapedInput EscapeNonAscii(std::string_view raw) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  EscapedInput out;
  out.text.reserve(raw.size());
  for (const char c : raw) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out.text.push_back(c);
      continue;
    }
    out.escapes.push_back(out.text.size());
    out.text.push_back('%');
    out.text.push_back(kHex[byte >> 4]);
    out.text.push_back(kHex[byte & 0x0F]);
  }
  return out;
}

// Maps an offset in EscapedInput::text back to the caller's bytes. An offset
// inside an added escape maps to the byte that escape stands for.
size_t RawOffset(const EscapedInput& input, size_t offset) {
  size_t added = 0;  // bytes the escapes before `offset` added
  for (const size_t escape : input.escapes) {
    if (escape >= offset) break;
    if (offset < escape + 3) return escape - added;
    added += 2;
  }
  return offset - added;
}

std::string_view View(const UriTextRangeA& range) {
  if (range.first == nullptr) return {};
  return std::string_view(range.first,
                          static_cast<size_t>(range.afterLast - range.first));
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return AsciiLower(a) == AsciiLower(b);
}

std::string TooLong(size_t max_length, std::string_view when) {
  return "URL is longer than " + std::to_string(max_length) + " bytes" +
         std::string(when);
}

// Space, NUL and the other control characters are never part of a URL.
// uriparser rejects them too; checking first gives a message that says why.
Status CheckNoControlBytes(std::string_view raw) {
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto byte = static_cast<unsigned char>(raw[i]);
    if (byte > 0x20 && byte != 0x7F) continue;
    std::string what;
    if (byte == ' ') {
      what = "space";
    } else if (byte == 0) {
      what = "NUL byte";
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      what = std::string("control character 0x") + kHex[byte >> 4] +
             kHex[byte & 0x0F];
    }
    return Status::InvalidArgument("invalid URL syntax at offset " +
                                   std::to_string(i) + " (" + what + ")");
  }
  return Status::OK();
}

// Raw non-ASCII bytes are taken as UTF-8 text (an IRI, as a browser's
// address bar sends it) and percent-encoded. Bytes that are not UTF-8
// (Latin-1, a cut sequence, binary) stand for no character, so they are
// refused rather than guessed at; a client that means a raw byte sends %XX.
Status CheckUtf8(std::string_view raw) {
  size_t i = 0;
  while (i < raw.size()) {
    const auto lead = static_cast<unsigned char>(raw[i]);
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
    bool valid = length > 0 && i + length <= raw.size();
    for (size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(raw[i + k]);
      valid = (next & 0xC0) == 0x80;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are
    // not UTF-8 either.
    if (!valid || code < min || code > 0x10FFFF ||
        (code >= 0xD800 && code <= 0xDFFF)) {
      return Status::InvalidArgument(
          "invalid UTF-8 at offset " + std::to_string(i) +
          " (percent-encode bytes that are not UTF-8 text, e.g. %FF)");
    }
    i += length;
  }
  return Status::OK();
}

// Drops a default or empty port and leading zeros of any other, by moving
// the range within the parsed text. Must run before normalisation, while the
// UriUriA owns none of its text: a range nulled out later would leak the
// copy normalisation made of it.
Status NormalizePort(UriUriA* uri, std::string_view scheme) {
  if (uri->portText.first == nullptr) return Status::OK();
  const std::string_view digits = View(uri->portText);
  if (digits.empty()) {  // "http://host:/"
    uri->portText = UriTextRangeA{nullptr, nullptr};
    return Status::OK();
  }
  // uriparser guarantees the port is all digits (RFC 3986: port = *DIGIT).
  uint32_t value = 0;
  for (const char c : digits) {
    value = value * 10 + static_cast<uint32_t>(c - '0');
    if (value > 65535) break;
  }
  if (value == 0 || value > 65535) {
    return Status::InvalidArgument("invalid port '" + std::string(digits) +
                                   "': must be 1 to 65535");
  }
  const uint32_t default_port = (scheme == "https") ? 443 : 80;
  if (value == default_port) {
    uri->portText = UriTextRangeA{nullptr, nullptr};
    return Status::OK();
  }
  while (*uri->portText.first == '0') ++uri->portText.first;
  return Status::OK();
}

// The host as NormalizedUrl::host spells it. IPv6 takes the RFC 5952 form
// ("[::1]", as browsers write it), not uriparser's fully expanded one.
std::string HostText(const UriUriA& uri) {
  if (uri.hostData.ip6 != nullptr) {
    char text[INET6_ADDRSTRLEN] = {};
    // Cannot fail: the buffer is large enough for any AF_INET6 address.
    inet_ntop(AF_INET6, uri.hostData.ip6->data, text, sizeof(text));
    return "[" + std::string(text) + "]";
  }
  return std::string(View(uri.hostText));
}

// Applies the two edits a UriUriA cannot express without allocating memory
// that uriparser would then own: an empty path becomes "/" (uriparser would
// need a path segment allocated with its memory manager), and an IPv6 host
// takes its RFC 5952 form (uriToStringA always writes all eight groups).
// `url` is uriToStringA's output, which has no fragment, so its authority
// ends at the first '/' or '?' after "scheme://"; neither character, nor
// '[', can occur in userinfo.
void FinishUrl(const UriUriA& uri, std::string_view scheme,
               std::string_view host, std::string* url) {
  const size_t authority = scheme.size() + 3;  // after "scheme://"
  if (uri.hostData.ip6 != nullptr) {
    const size_t open = url->find('[', authority);
    const size_t close = url->find(']', open);
    url->replace(open, close + 1 - open, host);
  }
  if (uri.pathHead == nullptr) {
    const size_t end =
        std::min(url->find_first_of("/?", authority), url->size());
    url->insert(end, "/");
  }
}

// True for a path or query byte that normalisation never changes and that
// needs no check: RFC 3986's unreserved and sub-delims, ':', '@', '/' and
// '?'. Not '%' (escapes may be rewritten), '#' (the fragment goes), nor
// anything that is refused or escaped.
bool PlainPathByte(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
      (c >= '0' && c <= '9')) {
    return true;
  }
  switch (c) {
    case '-': case '.': case '_': case '~': case '!': case '$': case '&':
    case '\'': case '(': case ')': case '*': case '+': case ',': case ';':
    case '=': case ':': case '@': case '/': case '?':
      return true;
    default:
      return false;
  }
}

// The host of `raw` if `raw` is already in normal form in the simplest
// way: "http://" or "https://", a host of lower-case letters, digits, '.'
// and '-' (no port, no userinfo), then a path starting with '/' without
// dot segments and an optional query, all of plain bytes. Normalisation
// returns such a URL unchanged (url_fuzz.cc checks this against the full
// path on every input), so uriparser is skipped. Empty if not.
std::string_view PlainNormalHost(std::string_view raw) {
  size_t pos;
  if (raw.starts_with("http://")) {
    pos = 7;
  } else if (raw.starts_with("https://")) {
    pos = 8;
  } else {
    return {};
  }
  const size_t host_begin = pos;
  while (pos < raw.size()) {
    const char c = raw[pos];
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-') {
      ++pos;
    } else {
      break;
    }
  }
  if (pos == host_begin || pos == raw.size() || raw[pos] != '/') return {};
  const std::string_view host = raw.substr(host_begin, pos - host_begin);
  bool in_query = false;
  size_t segment = pos + 1;  // first byte of the current path segment
  for (size_t i = pos + 1; i <= raw.size(); ++i) {
    const bool end = i == raw.size();
    const auto c = end ? '\0' : raw[i];
    if (!end && !PlainPathByte(static_cast<unsigned char>(c))) return {};
    if (in_query) continue;
    if (end || c == '/' || c == '?') {
      const std::string_view seg = raw.substr(segment, i - segment);
      if (seg == "." || seg == "..") return {};
      segment = i + 1;
      if (c == '?') in_query = true;
    }
  }
  return host;
}

}  // namespace

StatusOr<NormalizedUrl> NormalizeUrl(std::string_view raw, size_t max_length) {
  if (raw.size() > max_length) {
    return Status::InvalidArgument(TooLong(max_length, ""));
  }
  if (raw.empty()) return Status::InvalidArgument("empty URL");
  // Most URLs a crawler sends are already normal: about 3,400 instructions
  // of uriparser saved per URL.
  if (std::string_view host = PlainNormalHost(raw); !host.empty()) {
    NormalizedUrl result;
    result.url.assign(raw);
    result.host.assign(host);
    return result;
  }
  return NormalizeUrlFully(raw, max_length);
}

StatusOr<NormalizedUrl> NormalizeUrlFully(std::string_view raw,
                                          size_t max_length) {
  if (raw.size() > max_length) {
    return Status::InvalidArgument(TooLong(max_length, ""));
  }
  if (raw.empty()) return Status::InvalidArgument("empty URL");
  if (Status s = CheckNoControlBytes(raw); !s.ok()) return s;
  if (Status s = CheckUtf8(raw); !s.ok()) return s;

  const EscapedInput input = EscapeNonAscii(raw);
  ParsedUri parsed;
  const char* error_pos = nullptr;
  const int rc = parsed.Parse(input.text, &error_pos);
  if (rc == URI_ERROR_SYNTAX) {
    const auto offset = static_cast<size_t>(error_pos - input.text.data());
    return Status::InvalidArgument("invalid URL syntax at offset " +
                                   std::to_string(RawOffset(input, offset)));
  }
  if (rc != URI_SUCCESS) {
    // Only an allocation failure gets here: the input was well-formed.
    return Status::Busy("uriparser could not parse the URL (error " +
                        std::to_string(rc) + ")");
  }
  UriUriA* uri = parsed.get();

  if (uri->scheme.first == nullptr) {
    return Status::InvalidArgument(
        "relative URL reference: an absolute http or https URL is required");
  }
  const std::string scheme = AsciiLower(View(uri->scheme));
  if (scheme != "http" && scheme != "https") {
    return Status::InvalidArgument("unsupported scheme '" + scheme + "'");
  }
  const std::string_view raw_host = View(uri->hostText);
  if (raw_host.empty()) return Status::InvalidArgument("URL has no host");
  const auto host_begin =
      static_cast<size_t>(raw_host.data() - input.text.data());
  const bool escaped_host = std::any_of(
      input.escapes.begin(), input.escapes.end(), [&](size_t escape) {
        return escape >= host_begin && escape < host_begin + raw_host.size();
      });
  if (escaped_host) {
    return Status::InvalidArgument(
        "non-ASCII host: use its punycode (xn--) form");
  }
  if (uri->hostData.ipFuture.first != nullptr) {
    return Status::InvalidArgument("unsupported host '[" +
                                   std::string(raw_host) +
                                   "]': IPvFuture addresses cannot be fetched");
  }
  if (Status s = NormalizePort(uri, scheme); !s.ok()) return s;
  uri->fragment = UriTextRangeA{nullptr, nullptr};

  unsigned int mask = 0;
  int nrc = uriNormalizeSyntaxMaskRequiredExA(uri, &mask);
  if (nrc == URI_SUCCESS && mask != URI_NORMALIZED) {
    nrc = uriNormalizeSyntaxExA(uri, mask);
  }
  if (nrc != URI_SUCCESS) {
    return Status::Busy("uriparser could not normalise the URL (error " +
                        std::to_string(nrc) + ")");
  }

  NormalizedUrl result;
  result.host = HostText(*uri);
  // uriparser decodes escapes of unreserved characters in a host ("%65" is
  // "e") but keeps the others; no DNS name contains them.
  if (result.host.find('%') != std::string::npos) {
    return Status::InvalidArgument(
        "invalid host '" + result.host +
        "': a host name cannot contain percent-encoded bytes (write a "
        "non-ASCII host in its punycode (xn--) form)");
  }

  int required = 0;
  nrc = uriToStringCharsRequiredA(uri, &required);
  if (nrc == URI_SUCCESS) {
    result.url.assign(static_cast<size_t>(required) + 1, '\0');
    int written = 0;
    nrc = uriToStringA(result.url.data(), uri, required + 1, &written);
    result.url.resize(static_cast<size_t>(required));
  }
  if (nrc != URI_SUCCESS) {
    return Status::Busy("uriparser could not write the URL (error " +
                        std::to_string(nrc) + ")");
  }
  FinishUrl(*uri, scheme, result.host, &result.url);
  if (result.url.size() > max_length) {
    return Status::InvalidArgument(TooLong(max_length, " once normalised"));
  }
  return result;
}

namespace {

// No public suffix is numeric, so a host whose last label is all digits (a
// dotted quad, or a shorthand such as "127.1") has no registrable domain;
// the public suffix list would otherwise cut "127.0.0.1" to "0.1".
bool MayHaveRegistrableDomain(std::string_view host) {
  if (host.empty() || host.front() == '[') return false;  // IPv6 literal
  if (host.back() == '.') host.remove_suffix(1);
  const size_t dot = host.rfind('.');
  const std::string_view last =
      (dot == std::string_view::npos) ? host : host.substr(dot + 1);
  return !std::all_of(last.begin(), last.end(),
                      [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string SiteOf(std::string_view host, SiteScope scope) {
  if (scope == SiteScope::kHost || !MayHaveRegistrableDomain(host)) {
    return std::string(host);
  }
  // Built into libpsl and never freed. NULL only if libpsl was built without
  // a list; every host is then its own site.
  const psl_ctx_t* psl = psl_builtin();
  const std::string name(host);  // libpsl wants a NUL-terminated string
  const char* domain =
      (psl == nullptr) ? nullptr : psl_registrable_domain(psl, name.c_str());
  return (domain == nullptr) ? name : std::string(domain);
}

bool ParseSiteScope(std::string_view text, SiteScope* scope) {
  if (EqualsIgnoreCase(text, "host")) {
    *scope = SiteScope::kHost;
    return true;
  }
  if (EqualsIgnoreCase(text, "domain")) {
    *scope = SiteScope::kDomain;
    return true;
  }
  return false;
}

}  // namespace frontier
