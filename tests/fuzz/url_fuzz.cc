// libFuzzer target for NormalizeUrl (storage/url.h).
//
// The input is a URL as a client might send it. Checked:
//   - NormalizeUrl never crashes and refuses only with InvalidArgument;
//   - an accepted URL's normal form is at most `max_length` bytes, is
//     accepted again, and normalises to itself with the same host
//     (idempotence: the dedup key of a URL never depends on whether the
//     client sent it normalised);
//   - SiteOf accepts the host under both scopes and never returns "";
//   - NormalizeUrl's fast path for plainly normal URLs gives exactly what
//     the full uriparser path (NormalizeUrlFully) gives, for every input.
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

#include "storage/url.h"

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
    if (!first.status().IsInvalidArgument() &&
        first.status().code() != frontier::Status::Code::kBusy) {
      Die("refused with an unexpected code", raw, first.status().ToString());
    }
    if (first.status().message().empty()) Die("empty refusal", raw, "");
    return 0;
  }
  const frontier::NormalizedUrl& norm = *first;
  if (norm.url.size() > max_length)
    Die("result longer than max", raw, norm.url);
  if (norm.host.empty()) Die("accepted URL without a host", raw, norm.url);

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
