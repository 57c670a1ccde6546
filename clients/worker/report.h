// What the worker tells frontierd about one fetch: the commands, built from
// the fetch's result and the page's links, with no I/O (so that the choices
// are unit-tested). docs/worker.md has the table of outcomes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fetcher.h"
#include "options.h"

namespace worker {

using Command = std::vector<std::string>;

enum class Outcome {
  kFetched,    // a 2xx page: its links are added, then it is confirmed
  kFinal,      // an answer retrying will not change (404, 410, 3xx, ...):
               // confirmed, no links
  kTransient,  // no answer, 429 or 5xx: FAIL with DELAY, tried again later
};

// How a fetch is reported. Transport errors are transient except those
// that are answers about the URL itself (too many redirects, an
// unsupported scheme, a malformed URL).
Outcome Classify(const FetchResult& r);

// Seconds to wait before a transient error is retried: Retry-After
// (delay-seconds or an HTTP-date) when the server sent a usable one, at
// most a day; else `default_delay`.
double RetryDelay(const FetchResult& r, double default_delay);

// Seconds as frontierd reads them: "60", "0.5" (millisecond precision).
std::string FormatSeconds(double secs);

// True for a URL whose path is /robots.txt (no query).
bool IsRobotsUrl(std::string_view url);

// Whether a body is HTML worth parsing for links: by Content-Type, or by
// its first bytes when there is none.
bool LooksLikeHtml(const FetchResult& r);

// The commands for one fetch, to be sent in order on one connection:
// MADD url <links...> (and the final URL of a redirect, so that it is not
// fetched again), then CONFIRM url (and CONFIRM of that final URL), or
// FAIL url DELAY d. With o.report_status, CONFIRM gains STATUS and
// FETCH-MS (and BODY for a robots.txt), FAIL gains STATUS and RETRY-AFTER.
std::vector<Command> BuildReport(const FetchResult& r,
                                 const std::vector<std::string>& links,
                                 const Options& o);

// How a lease that was not fetched is handed back: RELEASE url with
// o.release, else FAIL url (at once, which counts an attempt, as the
// lease's expiry would).
Command HandBack(const std::string& url, const Options& o);

}  // namespace worker
