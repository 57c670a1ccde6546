// UrlResolver (url_resolver.h): URLs and site arguments, normalised and
// keyed.
#include "storage/url_resolver.h"

#include <utility>

namespace frontier {

StatusOr<ResolvedUrl> UrlResolver::Url(std::string_view url,
                                       const char* what) const {
  StatusOr<NormalizedUrl> norm = NormalizeUrl(url, opts_->max_url_length);
  if (!norm.ok()) {
    return Status::InvalidArgument(std::string(what) + ": " +
                                   norm.status().message());
  }
  ResolvedUrl r;
  r.norm = std::move(norm).value();
  r.key.host_fp = Fingerprint(r.norm.host);
  r.key.url_fp = Fingerprint(r.norm.url);
  return r;
}

StatusOr<NamedSite> UrlResolver::Site(std::string_view site_arg) const {
  std::string host;
  if (site_arg.find("://") != std::string_view::npos) {
    StatusOr<ResolvedUrl> r = Url(site_arg, "invalid site URL");
    if (!r.ok()) return r.status();
    host = r->norm.host;
  } else {
    // A bare host or domain: check it by normalising it as a URL's host.
    StatusOr<ResolvedUrl> r =
        Url("http://" + std::string(site_arg) + "/", "invalid site");
    if (!r.ok() || site_arg.find_first_of("/?#@") != std::string_view::npos) {
      return Status::InvalidArgument("invalid site '" + std::string(site_arg) +
                                     "': expected a host, a domain or a URL");
    }
    host = r->norm.host;
  }
  NamedSite site;
  site.name = SiteOf(host, opts_->politeness_scope);
  site.fp = Fingerprint(site.name);
  return site;
}

StatusOr<std::string> UrlResolver::SiteName(std::string_view site_arg) const {
  StatusOr<NamedSite> named = Site(site_arg);
  if (!named.ok()) return named.status();
  return std::move(named->name);
}

}  // namespace frontier
