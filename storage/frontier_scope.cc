// FrontierImpl: the crawl scope (issue 25 §2). The check at the
// validation step of ADD and MADD, and SCOPE RECHECK's re-check of the
// queued URLs in bounded slices from Tick (docs/commands.md#scope). The
// rules themselves are scope/'s; this file only applies them.
#include "storage/coding.h"
#include "storage/frontier_impl.h"

namespace frontier {

namespace {

using coding::GetVarint;
using coding::PutVarint;

// URL records one Tick's slice examines: one short transaction, as a
// SITE DELETE slice (frontier_site_delete.cc says why 250).
constexpr size_t kScopeSliceRecords = 250;

constexpr std::string_view kScopeRecheckKey = "scope-recheck";
constexpr char kScopeRecheckV1 = 1;

// meta.db "scope-recheck": version, running, examined, removed, then the
// urls.db key the next slice starts at ("" = the first).
std::string EncodeRecheck(const ScopeRecheck& r, std::string_view next) {
  std::string out;
  out.push_back(kScopeRecheckV1);
  out.push_back(r.running ? 1 : 0);
  PutVarint(&out, r.examined);
  PutVarint(&out, r.removed);
  out.append(next);
  return out;
}

bool DecodeRecheck(std::string_view in, ScopeRecheck* r, std::string* next) {
  if (in.size() < 2 || in[0] != kScopeRecheckV1 ||
      static_cast<uint8_t>(in[1]) > 1) {
    return false;
  }
  r->running = in[1] == 1;
  in.remove_prefix(2);
  if (!GetVarint(&in, &r->examined) || !GetVarint(&in, &r->removed)) {
    return false;
  }
  next->assign(in);
  return true;
}

// The host of a URL as NormalizeUrl() wrote it: lower-case, without
// userinfo or port; IPv6 literals keep their brackets.
std::string_view HostOfStored(std::string_view url) {
  const size_t start = url.find("://");
  if (start == std::string_view::npos) return {};
  url.remove_prefix(start + 3);
  url = url.substr(0, url.find_first_of("/?"));
  if (const size_t at = url.rfind('@'); at != std::string_view::npos) {
    url.remove_prefix(at + 1);
  }
  if (!url.empty() && url.front() == '[') {
    return url.substr(0, url.find(']') + 1);
  }
  return url.substr(0, url.find(':'));
}

}  // namespace

bool FrontierImpl::OutOfScope(const Resolved& url, const Resolved* ref) {
  const scope::Scope& sc = opts_.scope;
  if (sc.Unrestricted()) return false;
  std::optional<scope::RefRelation> relation;
  if (ref != nullptr && sc.ref_rule != scope::RefRule::kAny) {
    const SiteScope by = opts_.politeness_scope;
    auto site_fp = [this](const Resolved& r, SiteScope scope) {
      return site_names_.SiteFor(r.norm.host, r.key.host_fp, scope).fp;
    };
    const uint64_t site = site_fp(url, by);
    const uint64_t ref_site = site_fp(*ref, by);
    const uint64_t domain = site_fp(url, SiteScope::kDomain);
    const uint64_t ref_domain = site_fp(*ref, SiteScope::kDomain);
    relation = scope::RefRelation{site == ref_site, domain == ref_domain};
  }
  switch (sc.Check(url.norm.url, url.norm.host, relation)) {
    case scope::Verdict::kIn:
      return false;
    case scope::Verdict::kHost:
      stats_.scope_host++;
      break;
    case scope::Verdict::kRef:
      stats_.scope_ref++;
      break;
    case scope::Verdict::kQuery:
      stats_.scope_query++;
      break;
    case scope::Verdict::kPath:
      stats_.scope_path++;
      break;
    case scope::Verdict::kDeny:
      stats_.scope_deny++;
      break;
    case scope::Verdict::kAllow:
      stats_.scope_allow++;
      break;
  }
  return true;
}

Status FrontierImpl::StartScopeRecheck(int64_t now_ms) {
  (void)now_ms;
  ScopeRecheck started;
  started.running = true;
  Status s = RunWrite([&](DbTxn* t) {
    return meta_.Put(t, kScopeRecheckKey, EncodeRecheck(started, ""));
  });
  if (!s.ok()) return s;
  scope_recheck_ = started;
  scope_recheck_next_.clear();
  return Status::OK();
}

ScopeRecheck FrontierImpl::ScopeRecheckProgress() const {
  return scope_recheck_;
}

Status FrontierImpl::TickScopeRecheck(int64_t now_ms, TickResult* result) {
  if (!scope_recheck_.running) return Status::OK();
  ScopeRecheck progress;
  std::string next;
  Status s = RunWrite([&](DbTxn* t) {
    progress = scope_recheck_;
    next.clear();
    bdb::Cursor c;
    Status ls = urls_.OpenScan(t, &c);
    std::string key, value;
    if (ls.ok()) {
      ls = scope_recheck_next_.empty()
               ? c.First(&key, &value)
               : c.Seek(scope_recheck_next_, &key, &value);
    }
    for (size_t examined = 0; ls.ok(); ++examined) {
      if (examined == kScopeSliceRecords) {
        next = key;
        break;
      }
      UrlKey url_key;
      UrlRecord rec;
      if (!DecodeUrlKey(key, &url_key) || !DecodeUrlRecord(value, &rec)) {
        return Status::Corruption("undecodable URL record");
      }
      progress.examined++;
      // Only queued URLs, and not the frontier's own robots.txt fetches
      // (their origins would wait for them), nor a deleting site's.
      const bool candidate = rec.state == StoredState::kQueued &&
                             !IsRobotsFetch(rec) && !tombstones_.IsDeleted(rec);
      if (candidate && opts_.scope.CheckStored(rec.url, HostOfStored(
                                                           rec.url)) !=
                           scope::Verdict::kIn) {
        SiteRecord site;
        ls = sites_.Load(t, rec.site_fp, &site);
        if (ls.ok()) ls = Dequeue(t, url_key, rec, &site);
        if (ls.ok()) ls = c.DeleteCurrent();
        if (!ls.ok()) return ls;
        CountMove(&site, rec.state, std::nullopt);
        if (site.urls > 0) site.urls--;
        if (stats_.urls > 0) stats_.urls--;
        stats_.scope_removed++;
        sites_.Store(rec.site_fp, site);
        ls = PlaceSite(t, rec.site_fp, site, now_ms);
        if (!ls.ok()) return ls;
        progress.removed++;
      }
      ls = c.Next(&key, &value);
    }
    if (!ls.ok() && !ls.IsNotFound()) return ls;
    ls = c.Close();
    progress.running = !next.empty();
    // The position commits with the slice's removals: a restart resumes
    // exactly here, and no URL is counted twice.
    if (ls.ok()) {
      ls = meta_.Put(t, kScopeRecheckKey, EncodeRecheck(progress, next));
    }
    return ls;
  });
  if (!s.ok()) return s;
  scope_recheck_ = progress;
  scope_recheck_next_ = std::move(next);
  result->more_due = result->more_due || scope_recheck_.running;
  return Status::OK();
}

Status FrontierImpl::LoadScopeRecheck() {
  scope_recheck_ = ScopeRecheck();
  scope_recheck_next_.clear();
  std::string value;
  Status s = meta_.Get(nullptr, kScopeRecheckKey, &value);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  if (!DecodeRecheck(value, &scope_recheck_, &scope_recheck_next_)) {
    return Status::Corruption("undecodable scope re-check record");
  }
  return Status::OK();
}

}  // namespace frontier
