// FrontierImpl: writing the cache's dirty pages behind the commands, in
// small slices on the loop thread, so that a checkpoint finds little left
// to write and the loop does not stop for it (issue 10).
#include <algorithm>
#include <cstdlib>

#include "storage/frontier_impl.h"

namespace frontier {

namespace {

// Slices are at least this far apart, however often the caller asks.
constexpr int64_t kWriteBehindPeriodMs = 100;
// Slices run only this close to the next checkpoint: a whole cache of
// dirty pages (256 MiB) is then written in 100 slices of a few
// milliseconds, and each page about once per checkpoint, as before.
constexpr int64_t kWriteBehindWindowMs = 10'000;
// A checkpoint writes the dirty pages left; up to 2,048 (16 MiB) it does
// so in tens of milliseconds, so a slice only runs past that many (or a
// sixteenth of a smaller cache), and then writes down to half of it.
// Below it, hot pages (a site's record, the head of Q) are not written
// again and again: the work is the same as without slices.
constexpr uint64_t kDirtyPagesAllowedMax = 2048;
constexpr uint64_t kDirtyPagesAllowedMin = 256;
// Pages one slice writes at most. A page is 4 or 8 KiB; writing one to
// the OS costs 5 to 50 microseconds on a busy machine, so a slice stays
// within tens of milliseconds while its ceiling (40,000 pages/s)
// outpaces a load that dirties pages at random.
constexpr uint64_t kSliceMaxPages = 4096;
// The site journal's write-back slices: at most this often, each of at
// most this many sites (a write is about 10 microseconds, so a slice
// stays under 50 ms); 64k pending sites drain in 16 s at most, and the
// checkpoint writes back whatever is left.
constexpr int64_t kJournalSlicePeriodMs = 1000;
constexpr size_t kJournalSliceSites = 4096;
// In the window before a checkpoint the journal's slices run with the
// page slices (every 100 ms), each a share of what is pending, so that
// the checkpoint's own write-back (all of it, in one transaction on the
// loop: 66-601 ms for 6k-62k sites in a crawl over 700k sites) finds
// only the sites changed since the last slice, and the pages the slices
// dirty are written behind before it. (Draining only in the last 2 s
// left 10k-28k dirty pages to the checkpoint: docs/performance.md,
// "Stalls".)
constexpr size_t kJournalWindowSliceMin = 512;
// How often FileSyncer pushes the pages written behind to the disk.
constexpr int64_t kFileSyncPeriodMs = 200;
constexpr const char* kDatabaseFiles[] = {"urls.db",  "queue.db",
                                          "timers.db", "sites.db",
                                          "meta.db",  "policy.db",
                                          "excluded.db", "data.db"};

}  // namespace

void FrontierImpl::StartFileSyncer() {
  std::vector<std::string> paths;
  for (const char* name : kDatabaseFiles)
    paths.push_back(opts_.dir + "/" + name);
  file_syncer_ = std::make_unique<FileSyncer>(
      std::move(paths), kFileSyncPeriodMs,
      [this](const Status& s) { write_failure_.Note(s); });
}

Status FrontierImpl::WriteBehind(int64_t now_ms, int64_t checkpoint_ms) {
  if (closed_ || write_failure_.failed()) return Status::OK();
  if (Status s = EndOpenPass(); !s.ok()) return s;
  // The site journal's slice: the oldest pending site records go to
  // sites.db, each written once per slice however many passes changed it.
  const int64_t slices_left =
      std::max<int64_t>(1, (checkpoint_ms - now_ms) / kWriteBehindPeriodMs);
  const bool drain = checkpoint_ms - now_ms <= kWriteBehindWindowMs;
  if (sites_.pending() > 0 &&
      now_ms - journal_slice_ms_ >=
          (drain ? kWriteBehindPeriodMs : kJournalSlicePeriodMs)) {
    journal_slice_ms_ = now_ms;
    const size_t sites =
        drain ? std::clamp(sites_.pending() / static_cast<size_t>(slices_left),
                           kJournalWindowSliceMin, kJournalSliceSites)
              : kJournalSliceSites;
    if (Status s = WriteBackJournal(sites, false); !s.ok()) return s;
  }
  if (checkpoint_ms - now_ms > kWriteBehindWindowMs) return Status::OK();
  if (now_ms - write_behind_ms_ < kWriteBehindPeriodMs) return Status::OK();
  write_behind_ms_ = now_ms;
  DB_MPOOL_STAT* st = nullptr;
  Status s = bdb::FromDb(env_->memp_stat(&st, nullptr, 0), "memp_stat");
  if (!s.ok()) return s;
  const uint64_t total = st->st_pages;
  const uint64_t dirty = std::min<uint64_t>(st->st_page_dirty, total);
  free(st);
  const uint64_t allowed =
      std::clamp(total / 16, kDirtyPagesAllowedMin, kDirtyPagesAllowedMax);
  if (dirty <= allowed) return Status::OK();
  // The slices left before the checkpoint share the excess; each writes
  // at least a share that keeps up with pages dirtied meanwhile.
  const uint64_t excess = dirty - allowed / 2;
  const uint64_t slice = std::min(
      std::max(excess / static_cast<uint64_t>(slices_left), allowed / 2),
      std::min(excess, kSliceMaxPages));
  // memp_trickle writes until `pct` percent of the pages are clean; ask
  // for the clean share `slice` more written pages give (at least 1%).
  const uint64_t want_clean = total - dirty + slice;
  const int pct = static_cast<int>(
      std::min<uint64_t>(100, (want_clean * 100 + total - 1) / total));
  int wrote = 0;
  s = bdb::FromDb(env_->memp_trickle(pct, &wrote), "memp_trickle");
  if (!s.ok()) {
    write_failure_.Note(s);
    return s;
  }
  pages_written_behind_ += static_cast<uint64_t>(wrote);
  return Status::OK();
}

}  // namespace frontier
