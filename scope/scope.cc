#include "scope/scope.h"

#include "scope/url_shape.h"

namespace frontier::scope {

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kIn:
      return "in";
    case Verdict::kHost:
      return "host";
    case Verdict::kRef:
      return "ref";
    case Verdict::kQuery:
      return "query";
    case Verdict::kPath:
      return "path";
    case Verdict::kDeny:
      return "deny";
    case Verdict::kAllow:
      return "allow";
  }
  return "?";
}

Verdict Scope::Check(std::string_view url, std::string_view host,
                     const std::optional<RefRelation>& ref) const {
  if (!hosts.Allows(host)) return Verdict::kHost;
  if (ref) {
    if (ref_rule == RefRule::kSameSite && !ref->same_site) return Verdict::kRef;
    if (ref_rule == RefRule::kSameDomain && !ref->same_domain) {
      return Verdict::kRef;
    }
  }
  if (max_query_params > 0 && QueryParamCount(url) > max_query_params) {
    return Verdict::kQuery;
  }
  if (max_path_segments > 0 && PathSegmentCount(url) > max_path_segments) {
    return Verdict::kPath;
  }
  // Deny wins over allow: a URL both match is out.
  if (deny.AnyMatches(url)) return Verdict::kDeny;
  if (!allow.empty() && !allow.AnyMatches(url)) return Verdict::kAllow;
  return Verdict::kIn;
}

}  // namespace frontier::scope
