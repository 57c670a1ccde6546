// FrontierImpl::ListUrls: URLS, a SCAN-style walk over the current
// crawl's URL records (URL Frontier's ListURLs and CountURLs with a
// filter), a bounded number of records a call so that a long scan runs in
// slices between the server's passes.
#include <algorithm>
#include <cctype>

#include "storage/frontier_impl.h"
#include "storage/url_cursor.h"

namespace frontier {
namespace {

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

StatusOr<FrontierImpl::UrlSlice> FrontierImpl::StartUrlSlice(
    std::string_view site, std::string_view cursor) const {
  UrlSlice slice;
  if (!DecodeUrlCursor(cursor, &slice.from)) {
    return Status::InvalidArgument("invalid cursor");
  }
  if (!site.empty()) {
    StatusOr<NamedSite> named = resolver_.Site(site);
    if (!named.ok()) return named.status();
    slice.site = *named;
  }
  // Under host scope a site is one host: its records are one key range.
  slice.one_host =
      slice.site && opts_.politeness_scope == SiteScope::kHost;
  if (slice.one_host) {
    const uint64_t fp = slice.site->fp;
    if (slice.from.host_fp < fp) slice.from = UrlKey{fp, 0};
    slice.past_site = slice.from.host_fp > fp;
  }
  return slice;
}

Status FrontierImpl::WalkUrlSlice(DbTxn* t, const UrlSlice& slice,
                                  size_t count, std::string* next_cursor,
                                  const UrlVisit& visit) {
  // "0", written so that GCC 12's -Wrestrict false positive on
  // std::string::operator=(const char*) stays away.
  next_cursor->assign(1, '0');
  if (slice.past_site) return Status::OK();
  const std::optional<NamedSite>& site = slice.site;
  bdb::Cursor c;
  Status s = urls_.OpenScan(t, &c);  // visit may delete the record
  if (!s.ok()) return s;
  std::string key, value;
  UrlRecord rec;
  s = c.Seek(EncodeUrlKey(slice.from), &key, &value);
  for (size_t examined = 0; s.ok(); ++examined) {
    UrlKey at;
    if (!DecodeUrlKey(key, &at)) return Status::Corruption("bad URL key");
    if (slice.one_host && at.host_fp != site->fp) break;  // past the host
    if (examined == count) {
      *next_cursor = EncodeUrlCursor(at);
      break;
    }
    if (!DecodeUrlRecord(value, &rec)) {
      return Status::Corruption("undecodable URL record");
    }
    if (!tombstones_.IsDeleted(rec) && !IsRobotsFetch(rec) &&
        (!site || rec.site_fp == site->fp)) {
      s = visit(c, at, rec);
      if (!s.ok()) return s;
    }
    s = c.Next(&key, &value);
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  return c.Close();
}

StatusOr<UrlPage> FrontierImpl::ListUrls(const UrlFilter& filter,
                                         std::string_view cursor_text,
                                         size_t count) {
  StatusOr<UrlSlice> slice = StartUrlSlice(filter.site, cursor_text);
  if (!slice.ok()) return slice.status();
  UrlPage page;
  // As Seen(): no transaction, nothing to commit.
  Status s = WalkUrlSlice(
      nullptr, *slice, count, &page.next_cursor,
      [&](bdb::Cursor&, const UrlKey&, UrlRecord& rec) {
        if (filter.match.empty() ||
            Contains(rec.url, filter.match, filter.ignore_case)) {
          page.urls.push_back(std::move(rec.url));
        }
        return Status::OK();
      });
  if (!s.ok()) return s;
  return page;
}

}  // namespace frontier
