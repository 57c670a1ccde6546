#include "storage/site_scheduler.h"

namespace frontier {

void SiteScheduler::MoveHead(uint32_t partition,
                             const std::optional<QueuePos>& from,
                             const std::optional<QueuePos>& to) {
  if (parts_.size() == 1) return;  // FirstReady() reads the one set
  if (from && to) {
    // Reuses the node: a POP moves its partition's first entry every time.
    auto node = heads_.extract({*from, partition});
    node.value().first = *to;
    heads_.insert(std::move(node));
  } else if (from) {
    heads_.erase({*from, partition});
  } else if (to) {
    heads_.insert({*to, partition});
  }
}

void SiteScheduler::InsertReady(uint64_t site_fp, const Entry& e) {
  ReadySet& ready = parts_[e.partition].ready;
  auto it = ready.insert({e.head, site_fp}).first;
  ++ready_total_;
  if (it == ready.begin()) {
    // A new first entry for the partition: replace its old one in heads_.
    auto next = std::next(it);
    MoveHead(e.partition,
             next != ready.end() ? std::optional(next->first) : std::nullopt,
             e.head);
  }
}

void SiteScheduler::EraseReady(uint64_t site_fp, const Entry& e) {
  ReadySet& ready = parts_[e.partition].ready;
  auto it = ready.find({e.head, site_fp});
  if (it == ready.end()) return;
  if (it == ready.begin()) {
    auto next = std::next(it);
    MoveHead(e.partition, e.head,
             next != ready.end() ? std::optional(next->first) : std::nullopt);
  }
  ready.erase(it);
  --ready_total_;
}

void SiteScheduler::Unlink(uint64_t site_fp, const Entry& e) {
  parts_[e.partition].capacity -= e.slots();
  switch (e.where) {
    case Where::kReady:
      EraseReady(site_fp, e);
      break;
    case Where::kWaiting:
      waiting_.erase({e.at_ms, site_fp});
      break;
    case Where::kIdle:
      --idle_count_;
      break;
    case Where::kBlocked:
      break;
  }
}

void SiteScheduler::Place(uint64_t site_fp, const Placement& p,
                          int64_t now_ms) {
  const Where where = !p.head                      ? Where::kIdle
                      : p.at_lease_cap             ? Where::kBlocked
                      : p.next_allowed_ms > now_ms ? Where::kWaiting
                                                   : Where::kReady;
  auto it = entries_.find(site_fp);
  if (it != entries_.end()) {
    // Most calls (a CONFIRM, a link added behind the head) leave the site
    // where it is: skip the set updates then.
    const Entry& e = it->second;
    if (where == e.where && (!p.head || *p.head == e.head) &&
        (where != Where::kWaiting || e.at_ms == p.next_allowed_ms) &&
        p.partition == e.partition && p.slots_ready == e.slots_ready &&
        p.slots_other == e.slots_other) {
      return;
    }
    Unlink(site_fp, e);
  }
  if (!p.head && p.slots_other == 0) {
    if (it != entries_.end()) entries_.erase(it);
    return;
  }
  Entry& e = it != entries_.end() ? it->second : entries_[site_fp];
  e.head = p.head.value_or(QueuePos());
  e.where = where;
  e.partition = p.partition;
  e.slots_ready = p.slots_ready;
  e.slots_other = p.slots_other;
  parts_[e.partition].capacity += e.slots();
  switch (where) {
    case Where::kWaiting:
      e.at_ms = p.next_allowed_ms;
      waiting_.insert({e.at_ms, site_fp});
      break;
    case Where::kReady:
      InsertReady(site_fp, e);
      break;
    case Where::kIdle:
      ++idle_count_;
      break;
    case Where::kBlocked:
      break;
  }
}

void SiteScheduler::Remove(uint64_t site_fp) {
  auto it = entries_.find(site_fp);
  if (it == entries_.end()) return;
  Unlink(site_fp, it->second);
  entries_.erase(it);
}

void SiteScheduler::Reset(size_t partitions) {
  entries_.clear();
  parts_.assign(partitions < 1 ? 1 : partitions, Partition());
  heads_.clear();
  waiting_.clear();
  ready_total_ = 0;
  idle_count_ = 0;
}

void SiteScheduler::Promote(int64_t now_ms) {
  while (!waiting_.empty() && waiting_.begin()->first <= now_ms) {
    uint64_t site_fp = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    Entry& e = entries_[site_fp];
    Partition& part = parts_[e.partition];
    part.capacity -= e.slots();
    e.where = Where::kReady;
    part.capacity += e.slots();
    InsertReady(site_fp, e);
  }
}

std::optional<std::pair<uint64_t, QueuePos>> SiteScheduler::FirstReady()
    const {
  if (parts_.size() == 1) return FirstReadyIn(0);
  if (heads_.empty()) return std::nullopt;
  return FirstReadyIn(heads_.begin()->second);
}

std::optional<std::pair<uint64_t, QueuePos>> SiteScheduler::FirstReadyIn(
    size_t partition) const {
  const ReadySet& ready = parts_[partition].ready;
  if (ready.empty()) return std::nullopt;
  const auto& [head, site_fp] = *ready.begin();
  return std::make_pair(site_fp, head);
}

std::optional<QueuePos> SiteScheduler::HeadOf(uint64_t site_fp) const {
  auto it = entries_.find(site_fp);
  if (it == entries_.end() || it->second.where == Where::kIdle) {
    return std::nullopt;
  }
  return it->second.head;
}

std::optional<int64_t> SiteScheduler::NextWakeMs() const {
  if (waiting_.empty()) return std::nullopt;
  return waiting_.begin()->first;
}

}  // namespace frontier
