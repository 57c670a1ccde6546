#include "storage/site_scheduler.h"

namespace frontier {

void SiteScheduler::Unlink(uint64_t site_fp, const Entry& e) {
  switch (e.where) {
    case Where::kReady:
      ready_.erase({e.head, site_fp});
      break;
    case Where::kWaiting:
      waiting_.erase({e.at_ms, site_fp});
      break;
    case Where::kBlocked:
      break;
  }
}

void SiteScheduler::Place(uint64_t site_fp, const Placement& p,
                          int64_t now_ms) {
  const Where where = p.at_lease_cap                ? Where::kBlocked
                      : p.next_allowed_ms > now_ms ? Where::kWaiting
                                                   : Where::kReady;
  auto it = entries_.find(site_fp);
  if (it != entries_.end()) {
    // Most calls (a CONFIRM, a link added behind the head) leave the site
    // where it is: skip the set updates then.
    const Entry& e = it->second;
    if (p.head && *p.head == e.head && where == e.where &&
        (where != Where::kWaiting || e.at_ms == p.next_allowed_ms)) {
      return;
    }
    Unlink(site_fp, e);
  }
  if (!p.head) {
    if (it != entries_.end()) entries_.erase(it);
    return;
  }
  Entry& e = it != entries_.end() ? it->second : entries_[site_fp];
  e.head = *p.head;
  e.where = where;
  if (where == Where::kWaiting) {
    e.at_ms = p.next_allowed_ms;
    waiting_.insert({e.at_ms, site_fp});
  } else if (where == Where::kReady) {
    ready_.insert({e.head, site_fp});
  }
}

void SiteScheduler::Remove(uint64_t site_fp) {
  auto it = entries_.find(site_fp);
  if (it == entries_.end()) return;
  Unlink(site_fp, it->second);
  entries_.erase(it);
}

void SiteScheduler::Clear() {
  entries_.clear();
  ready_.clear();
  waiting_.clear();
}

void SiteScheduler::Promote(int64_t now_ms) {
  while (!waiting_.empty() && waiting_.begin()->first <= now_ms) {
    uint64_t site_fp = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    Entry& e = entries_[site_fp];
    e.where = Where::kReady;
    ready_.insert({e.head, site_fp});
  }
}

std::optional<std::pair<uint64_t, QueuePos>> SiteScheduler::FirstReady()
    const {
  if (ready_.empty()) return std::nullopt;
  const auto& [head, site_fp] = *ready_.begin();
  return std::make_pair(site_fp, head);
}

std::optional<QueuePos> SiteScheduler::HeadOf(uint64_t site_fp) const {
  auto it = entries_.find(site_fp);
  if (it == entries_.end()) return std::nullopt;
  return it->second.head;
}

std::optional<int64_t> SiteScheduler::NextWakeMs() const {
  if (waiting_.empty()) return std::nullopt;
  return waiting_.begin()->first;
}

}  // namespace frontier
