// URL normalisation and site identity. The parsing is in url_lenient.cc
// (the WHATWG URL Standard's leniency, components and escaping) and
// url_host.cc (IDN, IPv4, IPv6 hosts); this file joins them, keeps the fast
// path for URLs that are plainly normal already, and finds a host's site
// with libpsl.
#include "url/url.h"

#include <libpsl.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "url/url_host.h"
#include "url/url_lenient.h"
#include "url/url_text.h"

namespace frontier {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return url_internal::AsciiLower(a) == url_internal::AsciiLower(b);
}

std::string TooLong(size_t max_length, std::string_view when) {
  return "URL is longer than " + std::to_string(max_length) + " bytes" +
         std::string(when);
}

// True for a path or query byte that normalisation never changes and that
// needs no check: RFC 3986's unreserved and sub-delims, ':', '@', '/' and
// '?'. Not '%' (escapes may be rewritten), '#' (the fragment goes), nor
// anything that is escaped. (In a query, '\'' is escaped too: the caller
// checks that.)
bool PlainPathByte(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
      (c >= '0' && c <= '9')) {
    return true;
  }
  switch (c) {
    // clang-format off
    case '-': case '.': case '_': case '~': case '!': case '$': case '&':
    case '\'': case '(': case ')': case '*': case '+': case ',': case ';':
    case '=': case ':': case '@': case '/': case '?':
      return true;
    // clang-format on
    default:
      return false;
  }
}

// The host of `raw` if `raw` is already in normal form in the simplest
// way: "http://" or "https://", a host of lower-case letters, digits, '.'
// and '-' (no port, no userinfo), then a path starting with '/' without dot
// segments and an optional query, all of plain bytes. Normalisation
// returns such a URL unchanged (url_fuzz.cc checks this against the full
// path on every input), so the parse is skipped. Empty if not.
//
// Hosts that need more than lower-casing go the full path: a label that
// starts with "xn--" (libidn2 checks it), and a last label that starts
// with a digit, which covers every host the Standard reads as an IPv4
// address ("1.2.3.4", "127.1", "a.0x10") and, to stay one cheap test, a
// few it does not ("a.1b").
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
  size_t label = pos;       // first byte of the current label
  size_t last_label = pos;  // first byte of the last non-empty label
  while (pos < raw.size()) {
    const char c = raw[pos];
    if (c == '.') {
      label = ++pos;
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
      if (pos == label) {
        if (c == 'x' && raw.substr(pos, 4) == "xn--") return {};
        last_label = pos;
      }
      ++pos;
    } else {
      break;
    }
  }
  if (pos == host_begin || pos == raw.size() || raw[pos] != '/') return {};
  if (raw[last_label] >= '0' && raw[last_label] <= '9') return {};
  const std::string_view host = raw.substr(host_begin, pos - host_begin);
  bool in_query = false;
  size_t segment = pos + 1;  // first byte of the current path segment
  for (size_t i = pos + 1; i <= raw.size(); ++i) {
    const bool end = i == raw.size();
    const auto c = end ? '\0' : raw[i];
    if (!end && !PlainPathByte(static_cast<unsigned char>(c))) return {};
    if (in_query) {
      if (c == '\'') return {};
      continue;
    }
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
  // Most URLs a crawler sends are already normal: the whole parse is saved.
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
  StatusOr<url_internal::WebUrlParts> parts = url_internal::SplitWebUrl(raw);
  if (!parts.ok()) return parts.status();
  StatusOr<std::string> host = url_internal::ParseHost(parts->host);
  if (!host.ok()) return host.status();

  NormalizedUrl result;
  result.host = std::move(*host);
  result.url.reserve(raw.size() + 16);
  result.url.append(parts->scheme).append("://");
  if (!parts->userinfo.empty()) result.url.append(parts->userinfo).append("@");
  result.url.append(result.host);
  if (!parts->port.empty()) result.url.append(":").append(parts->port);
  result.url.append(parts->path).append(parts->query);
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

namespace {
// Where the path starts in a normalised URL ("scheme://authority/...").
size_t PathStart(std::string_view url) {
  size_t authority = url.find("://");
  if (authority == std::string_view::npos) return url.size();
  size_t slash = url.find('/', authority + 3);
  return slash == std::string_view::npos ? url.size() : slash;
}
}  // namespace

bool IsRobotsTxtUrl(const NormalizedUrl& url) {
  return PathAndQueryOf(url.url) == "/robots.txt";
}

std::string OriginOf(const NormalizedUrl& url) { return OriginOf(url.url); }

std::string OriginOf(std::string_view u) {
  size_t authority = u.find("://");
  if (authority == std::string_view::npos) return std::string(u);
  authority += 3;
  std::string_view host_port = u.substr(authority, PathStart(u) - authority);
  size_t at = host_port.rfind('@');
  if (at != std::string_view::npos) host_port.remove_prefix(at + 1);
  std::string origin(u.substr(0, authority));
  origin.append(host_port);
  return origin;
}

std::string_view PathAndQueryOf(std::string_view url) {
  return url.substr(PathStart(url));
}

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
