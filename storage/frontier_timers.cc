// FrontierImpl: the confirmation and recrawl procedure over Qc (Dorosz,
// sections 2.6 and 2.7) and the wake-up time for the server's timer.
#include <algorithm>
#include <utility>
#include <vector>

#include "storage/frontier_impl.h"

namespace frontier {

namespace {
// Bounds one Tick's transaction so that a backlog (say, a restart after a
// long outage) cannot stall the event loop; the caller ticks again.
constexpr size_t kMaxTimersPerTick = 2000;
}  // namespace

Status FrontierImpl::FireTimer(DbTxn* t, const UrlKey& key, int64_t due_ms,
                               int64_t now_ms, TickResult* result) {
  UrlRecord rec;
  Status s = LoadUrl(t, key, &rec);
  if (s.IsNotFound()) return Status::OK();  // nothing to do for a stray key
  if (!s.ok()) return s;
  if (rec.due_ms != due_ms) return Status::OK();  // superseded entry
  SiteRecord site;
  s = sites_.Load(t, rec.site_fp, &site);
  if (!s.ok()) return s;
  const StoredState from = rec.state;
  switch (rec.state) {
    case StoredState::kLeased:
      // Step 5 of 2.6: not confirmed in time. The lapse counts as an
      // attempt, so a URL that kills its workers ends up dead.
      if (site.leases > 0) site.leases--;
      // A robots fetch never dies: its origin would wait for ever.
      if (!IsRobotsFetch(rec)) rec.attempts++;
      stats_.expired++;
      result->expired++;
      if (rec.attempts >= opts_.max_attempts) {
        rec.state = StoredState::kDead;
        rec.due_ms = 0;
      } else {
        s = Enqueue(t, key, &rec, &site);
        result->requeued++;
      }
      break;
    case StoredState::kScheduledRecrawl:
      stats_.recrawled++;
      [[fallthrough]];
    case StoredState::kScheduledRetry:
      s = Enqueue(t, key, &rec, &site);
      result->requeued++;
      break;
    case StoredState::kQueued:
    case StoredState::kDone:
    case StoredState::kDead:
    case StoredState::kExcluded:
      return Status::OK();  // stale entry: the URL moved on already
  }
  if (s.ok()) s = urls_.Store(t, key, rec);
  if (!s.ok()) return s;
  CountMove(&site, from, rec.state);
  sites_.Store(rec.site_fp, site);
  return PlaceSite(t, rec.site_fp, site, now_ms);
}

StatusOr<TickResult> FrontierImpl::TickCrawl(int64_t now_ms) {
  TickResult result;
  sched_.Promote(now_ms);
  blocks_.Expire(now_ms);
  Status rs = TickRechecks(now_ms, &result);
  if (rs.ok()) rs = TickDeletes(&result);
  if (rs.ok()) rs = TickScopeRecheck(now_ms, &result);
  if (!rs.ok()) return rs;
  if (!timers_.min() || *timers_.min() > now_ms) return result;
  const TickResult rechecked = result;

  std::optional<int64_t> next_min;
  Status s = RunWrite([&](DbTxn* t) {
    result = TickResult();
    next_min.reset();
    bdb::Cursor cursor;
    Status cs = cursor.Open(&timers_.db(), t);
    if (!cs.ok()) return cs;
    std::string key;
    cs = cursor.First(&key, nullptr);
    size_t fired = 0;
    while (cs.ok()) {
      int64_t due_ms = 0;
      UrlKey url;
      if (!DecodeTimerKey(key, &due_ms, &url)) {
        return Status::Corruption("undecodable timer key");
      }
      if (due_ms > now_ms) {
        next_min = due_ms;
        break;
      }
      if (fired == kMaxTimersPerTick) {
        next_min = due_ms;
        result.more_due = true;
        break;
      }
      cs = cursor.DeleteCurrent();
      if (cs.ok()) cs = FireTimer(t, url, due_ms, now_ms, &result);
      if (!cs.ok()) return cs;
      ++fired;
      cs = cursor.Next(&key, nullptr);
    }
    if (!cs.ok() && !cs.IsNotFound()) return cs;
    // The leases held in memory (journal mode) whose deadline passed:
    // ended there, then fired as a Qc entry would be.
    std::vector<std::pair<int64_t, UrlKey>> due;
    timers_.leases().Due(now_ms, kMaxTimersPerTick - fired + 1, &due);
    if (fired + due.size() > kMaxTimersPerTick) {
      due.pop_back();
      result.more_due = true;
    }
    for (const auto& [due_ms, url] : due) {
      timers_.leases().End(url);
      cs = FireTimer(t, url, due_ms, now_ms, &result);
      if (!cs.ok()) return cs;
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  result.requeued += rechecked.requeued;
  result.more_due = result.more_due || rechecked.more_due;
  timers_.set_min(next_min);
  sched_.Promote(now_ms);
  return result;
}

bool FrontierImpl::HasReady(int64_t now_ms) {
  const std::optional<int64_t> timer_min = timers_.min();
  if ((timer_min && *timer_min <= now_ms) || !rechecks_.empty()) {
    // A failed tick leaves the timers for the next one; POP reports errors.
    (void)TickCrawl(now_ms);
  }
  sched_.Promote(now_ms);
  return !paused_ && sched_.ready_count() > 0;
}

FrontierStats FrontierImpl::Stats() const {
  FrontierStats s = stats_;
  s.ready_sites = sched_.ready_count();
  s.blocked_sites = blocks_.count();
  return s;
}

}  // namespace frontier
