#include "report.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "common/parse_number.h"

namespace worker {
namespace {

constexpr double kMaxRetryAfter = 86400;

bool IsFinalStatus(long status) {
  return status < 500 && status != 429 && status != 408;
}

}  // namespace

std::string FormatSeconds(double secs) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", secs);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

Outcome Classify(const FetchResult& r) {
  switch (r.error) {
    case CURLE_OK:
      break;
    case CURLE_TOO_MANY_REDIRECTS:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return Outcome::kFinal;
    default:
      return Outcome::kTransient;
  }
  if (r.status >= 200 && r.status < 300) return Outcome::kFetched;
  return IsFinalStatus(r.status) ? Outcome::kFinal : Outcome::kTransient;
}

double RetryDelay(const FetchResult& r, double default_delay) {
  if (r.retry_after.empty()) return default_delay;
  int64_t secs = 0;
  if (frontier_client::ParseInt<int64_t>(r.retry_after, 0, INT64_MAX, &secs)) {
    return std::min(static_cast<double>(secs), kMaxRetryAfter);
  }
  time_t when = curl_getdate(r.retry_after.c_str(), nullptr);
  if (when == -1) return default_delay;
  double wait = std::difftime(when, std::time(nullptr));
  return std::clamp(wait, 0.0, kMaxRetryAfter);
}

bool IsRobotsUrl(std::string_view url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return false;
  size_t path = url.find('/', scheme_end + 3);
  if (path == std::string_view::npos) return false;
  std::string_view rest = url.substr(path);
  return rest == "/robots.txt" || rest.starts_with("/robots.txt#");
}

bool LooksLikeHtml(const FetchResult& r) {
  std::string_view type = r.content_type;
  if (!type.empty()) {
    return type.find("html") != std::string_view::npos;
  }
  std::string_view head = std::string_view(r.body).substr(0, 512);
  return head.find("<html") != std::string_view::npos ||
         head.find("<HTML") != std::string_view::npos ||
         head.find("<!DOCTYPE") != std::string_view::npos ||
         head.find("<!doctype") != std::string_view::npos;
}

std::vector<Command> BuildReport(const FetchResult& r,
                                 const std::vector<std::string>& links,
                                 const Options& o) {
  std::vector<Command> out;
  Outcome outcome = Classify(r);
  if (outcome == Outcome::kTransient) {
    Command fail = {"FAIL", r.url, "DELAY",
                    FormatSeconds(RetryDelay(r, o.retry_delay))};
    if (o.report_status && r.status > 0) {
      fail.insert(fail.end(), {"STATUS", std::to_string(r.status)});
      if (!r.retry_after.empty()) {
        fail.insert(fail.end(), {"RETRY-AFTER", r.retry_after});
      }
    }
    out.push_back(std::move(fail));
    return out;
  }

  // A redirect's target is known to the frontier and confirmed with the
  // page, so that a link to it elsewhere does not fetch it again.
  bool redirected = r.redirects > 0 && r.final_url != r.url;
  Command madd = {"MADD", r.url};
  if (redirected) madd.push_back(r.final_url);
  if (outcome == Outcome::kFetched) {
    madd.insert(madd.end(), links.begin(), links.end());
  }
  if (madd.size() > 2) out.push_back(std::move(madd));

  auto confirm = [&](const std::string& url) {
    Command c = {"CONFIRM", url};
    if (o.report_status) {
      if (r.status > 0) c.insert(c.end(), {"STATUS", std::to_string(r.status)});
      c.insert(c.end(), {"FETCH-MS", std::to_string(r.elapsed_ms)});
      if (IsRobotsUrl(url) && outcome == Outcome::kFetched) {
        c.insert(c.end(), {"BODY", r.body});
      }
    }
    return c;
  };
  out.push_back(confirm(r.url));
  if (redirected) out.push_back(confirm(r.final_url));
  return out;
}

Command HandBack(const std::string& url, const Options& o) {
  if (o.release) return {"RELEASE", url};
  return {"FAIL", url};
}

}  // namespace worker
