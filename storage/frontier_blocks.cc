// FrontierImpl: site blocks (issue 8 §2 and §5): the back-off of a site
// that answers 429 or 503, and SITE BLOCK. A block is the site record's
// block_until_ms; the scheduler keeps a blocked site waiting until then
// (PlacementOf), so it survives restarts and kill -9 with the record.
#include <algorithm>
#include <limits>
#include <random>

#include "policy/backoff.h"
#include "policy/retry_after.h"
#include "storage/frontier_impl.h"

namespace frontier {

void FrontierImpl::BackOff(const FailOptions& options, int64_t now_ms,
                           SiteRecord* site) {
  std::optional<int64_t> retry_after_ms;
  if (options.retry_after) {
    retry_after_ms = policy::RetryAfterDelayMs(*options.retry_after, now_ms);
  }
  // Several leases of one site may come back with 429 from one burst: the
  // first blocks the site, the others are replies to fetches that started
  // before the block and are not further back-offs "in a row".
  const bool blocked = site->block_until_ms > now_ms;
  uint32_t step = site->backoffs;
  if (!blocked || step == 0) {
    step = step == std::numeric_limits<uint32_t>::max() ? step : step + 1;
  }
  const double draw =
      std::uniform_real_distribution<double>(0.0, 1.0)(jitter_rng_);
  const int64_t block_ms = policy::BlockDelayMs(site_policy_.BackoffSeries(),
                                                step, retry_after_ms, draw);
  site->block_until_ms = std::max(site->block_until_ms, now_ms + block_ms);
  site->backoffs = step;
  stats_.backoffs++;
}

Status FrontierImpl::BlockSite(std::string_view site_arg, int64_t block_ms,
                               int64_t now_ms) {
  if (block_ms < 0) {
    return Status::InvalidArgument("a block must be 0 or more seconds");
  }
  StatusOr<NamedSite> named = resolver_.Site(site_arg);
  if (!named.ok()) return named.status();
  return RunWrite([&](DbTxn* t) {
    SiteRecord site;
    Status s = sites_.Load(t, named->fp, &site);
    const bool new_site = s.IsNotFound();
    if (!s.ok() && !new_site) return s;
    if (new_site && block_ms == 0) return Status::OK();  // nothing to unblock
    if (new_site) site.name = named->name;
    site.block_until_ms = block_ms > 0 ? now_ms + block_ms : 0;
    sites_.Store(named->fp, site);
    s = PlaceSite(t, named->fp, site, now_ms);
    if (s.ok() && new_site) CountNewSite(site);
    return s;
  });
}

}  // namespace frontier
