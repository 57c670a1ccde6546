// libFuzzer target for NormalizeUrl (url/url.h).
//
// The input is a URL as a client might send it. Checked:
//   - NormalizeUrl never crashes and refuses only with InvalidArgument and
//     a message without a line break (it becomes a RESP error line);
//   - an accepted URL's normal form is at most `max_length` bytes, is
//     accepted again, and normalises to itself with the same host
//     (idempotence: the dedup key of a URL never depends on whether the
//     client sent it normalised);
//   - an accepted URL's normal form is printable ASCII of RFC 3986's
//     characters only (IDN hosts, spaces, controls, '\' and the rest
//     converted or escaped), starts with "http://" or "https://", and its
//     host is lower-case and appears in it right after that;
//   - SiteOf accepts the host under both scopes and never returns "";
//   - NormalizeUrl's fast path for plainly normal URLs gives exactly what
//     the full path (NormalizeUrlFully) gives, for every input.
// The first input byte picks a small length limit now and then, so the
// limit's own paths are exercised too.
//
// Run longer: docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "url/url.h"

namespace {

[[noreturn]] void Die(const char* what, std::string_view a,
                      std::string_view b) {
  std::fprintf(stderr,
               "url_fuzz: invariant broken: %s\n  first:  '%.*s'\n"
               "  second: '%.*s'\n",
               what, static_cast<int>(a.size()), a.data(),
               static_cast<int>(b.size()), b.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0) return 0;
  const size_t max_length = bytes[0] < 16 ? 8 + bytes[0] * 4 : 8192;
  std::string_view raw(reinterpret_cast<const char*>(bytes) + 1, size - 1);

  auto first = frontier::NormalizeUrl(raw, max_length);
  auto full = frontier::NormalizeUrlFully(raw, max_length);
  if (first.ok() != full.ok()) {
    Die("fast path and full path disagree on acceptance", raw,
        first.ok() ? full.status().ToString() : first.status().ToString());
  }
  if (first.ok() && (first->url != full->url || first->host != full->host)) {
    Die("fast path and full path disagree", first->url + " " + first->host,
        full->url + " " + full->host);
  }
  if (!first.ok()) {
    if (!first.status().IsInvalidArgument()) {
      Die("refused with an unexpected code", raw, first.status().ToString());
    }
    const std::string& message = first.status().message();
    if (message.empty()) Die("empty refusal", raw, "");
    if (message.find_first_of("\r\n") != std::string::npos) {
      Die("line break in a refusal", raw, message);
    }
    return 0;
  }
  const frontier::NormalizedUrl& norm = *first;
  if (norm.url.size() > max_length)
    Die("result longer than max", raw, norm.url);
  if (norm.host.empty()) Die("accepted URL without a host", raw, norm.url);
  static constexpr std::string_view kRfc3986 =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
      "-._~:/?[]@!$&'()*+,;=%";
  for (const char c : norm.url) {
    if (kRfc3986.find(c) == std::string_view::npos) {
      Die("byte outside RFC 3986 in the normal form", raw, norm.url);
    }
  }
  const std::string_view url = norm.url;
  const size_t authority = url.starts_with("http://")    ? 7
                           : url.starts_with("https://") ? 8
                                                         : 0;
  if (authority == 0) Die("scheme not http or https", raw, norm.url);
  const size_t at = url.find('@', authority);
  const size_t slash = url.find('/', authority);
  const size_t host_at =
      (at != std::string_view::npos && at < slash) ? at + 1 : authority;
  if (url.substr(host_at, norm.host.size()) != norm.host) {
    Die("host not where the URL has it", norm.host, norm.url);
  }
  for (const char c : norm.host) {
    if (c >= 'A' && c <= 'Z') Die("upper-case host", raw, norm.host);
  }

  auto second = frontier::NormalizeUrl(norm.url, max_length);
  if (!second.ok()) {
    Die("normal form refused", norm.url, second.status().ToString());
  }
  if (second->url != norm.url) Die("not idempotent", norm.url, second->url);
  if (second->host != norm.host) Die("host changed", norm.host, second->host);

  for (auto scope :
       {frontier::SiteScope::kHost, frontier::SiteScope::kDomain}) {
    if (frontier::SiteOf(norm.host, scope).empty()) {
      Die("empty site", norm.host, "");
    }
  }
  return 0;
}
