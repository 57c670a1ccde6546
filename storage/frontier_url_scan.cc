// FrontierImpl::ListUrls: URLS, a SCAN-style walk over the current
// crawl's URL records (URL Frontier's ListURLs and CountURLs with a
// filter), a bounded number of records a call so that a long scan runs in
// slices between the server's passes.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "storage/frontier_impl.h"

namespace frontier {
namespace {

// A cursor is the next record's key as "<host_fp>-<url_fp>" in hex; "0"
// is the start (and, returned, the end).
std::string EncodeCursor(const UrlKey& key) {
  char buf[40];
  char* end = std::to_chars(buf, buf + 20, key.host_fp, 16).ptr;
  *end++ = '-';
  end = std::to_chars(end, buf + sizeof(buf), key.url_fp, 16).ptr;
  return std::string(buf, end);
}

bool DecodeCursor(std::string_view text, UrlKey* key) {
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

char LowerAscii(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool Contains(std::string_view url, std::string_view match, bool ignore_case) {
  if (!ignore_case) return url.find(match) != std::string_view::npos;
  return std::search(url.begin(), url.end(), match.begin(), match.end(),
                     [](char a, char b) {
                       return LowerAscii(a) == LowerAscii(b);
                     }) != url.end();
}

}  // namespace

StatusOr<UrlPage> FrontierImpl::ListUrls(const UrlFilter& filter,
                                         std::string_view cursor_text,
                                         size_t count) {
  UrlKey from;
  if (!DecodeCursor(cursor_text, &from)) {
    return Status::InvalidArgument("invalid cursor");
  }
  std::optional<NamedSite> site;
  if (!filter.site.empty()) {
    StatusOr<NamedSite> named = resolver_.Site(filter.site);
    if (!named.ok()) return named.status();
    site = *named;
  }
  // Under host scope a site is one host: its records are one key range.
  const bool one_host = site && opts_.politeness_scope == SiteScope::kHost;
  if (one_host && from.host_fp < site->fp) from = UrlKey{site->fp, 0};
  UrlPage page;
  if (one_host && from.host_fp > site->fp) return page;

  // As Seen(): no transaction, nothing to commit.
  bdb::Cursor c;
  Status s = c.Open(&urls_.db(), nullptr);
  if (!s.ok()) return s;
  std::string key, value;
  UrlRecord rec;
  s = c.Seek(EncodeUrlKey(from), &key, &value);
  for (size_t examined = 0; s.ok(); ++examined) {
    UrlKey at;
    if (!DecodeUrlKey(key, &at)) return Status::Corruption("bad URL key");
    if (one_host && at.host_fp != site->fp) break;  // past the host
    if (examined == count) {
      page.next_cursor = EncodeCursor(at);
      break;
    }
    if (!DecodeUrlRecord(value, &rec)) {
      return Status::Corruption("undecodable URL record");
    }
    if (!tombstones_.IsDeleted(rec) && !IsRobotsFetch(rec) &&
        (!site || rec.site_fp == site->fp) &&
        (filter.match.empty() ||
         Contains(rec.url, filter.match, filter.ignore_case))) {
      page.urls.push_back(std::move(rec.url));
    }
    s = c.Next(&key, &value);
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  s = c.Close();
  if (!s.ok()) return s;
  return page;
}

}  // namespace frontier
