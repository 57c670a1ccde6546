// The scheduler as it was before the compact one (main at 1bdcc3a:
// std::set ready sets per partition, a heads set, a waiting set and an
// unordered_map of entries), kept only as the reference model of
// site_scheduler_diff_test.cc: the compact SiteScheduler must give the
// same answers and counts for any sequence of calls.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/records.h"
#include "storage/site_scheduler.h"

namespace frontier {

class SetScheduler {
 public:
  // Every call has SiteScheduler's contract (storage/site_scheduler.h).
  using Placement = SiteScheduler::Placement;
  void Reset(size_t partitions);
  void Place(uint64_t site_fp, const Placement& p, int64_t now_ms);
  void Remove(uint64_t site_fp);
  void Promote(int64_t now_ms);
  std::optional<std::pair<uint64_t, QueuePos>> FirstReady() const;
  std::optional<std::pair<uint64_t, QueuePos>> FirstReadyIn(
      size_t partition) const;
  std::optional<QueuePos> HeadOf(uint64_t site_fp) const;
  std::optional<int64_t> NextWakeMs() const;
  size_t partitions() const { return parts_.size(); }
  size_t ready_count() const { return ready_total_; }
  size_t tracked_count() const { return entries_.size() - idle_count_; }
  size_t waiting_count() const { return waiting_.size(); }
  size_t ready_count_in(size_t partition) const {
    return parts_[partition].ready.size();
  }
  uint64_t capacity_in(size_t partition) const {
    return parts_[partition].capacity;
  }

 private:
  enum class Where { kReady, kWaiting, kBlocked, kIdle };
  struct Entry {
    QueuePos head;
    Where where = Where::kBlocked;
    int64_t at_ms = 0;  // next-allowed time while waiting
    uint32_t partition = 0;
    uint64_t slots_ready = 0;
    uint64_t slots_other = 0;
    uint64_t slots() const {
      return where == Where::kReady ? slots_ready : slots_other;
    }
  };
  using ReadySet = std::set<std::pair<QueuePos, uint64_t>>;
  struct Partition {
    ReadySet ready;
    uint64_t capacity = 0;
  };

  void Unlink(uint64_t site_fp, const Entry& e);
  void InsertReady(uint64_t site_fp, const Entry& e);
  // Replaces `partition`'s first ready head `from` with `to` in heads_
  // (nullopt: none). heads_ is kept only with more than one partition.
  void MoveHead(uint32_t partition, const std::optional<QueuePos>& from,
                const std::optional<QueuePos>& to);
  void EraseReady(uint64_t site_fp, const Entry& e);

  std::unordered_map<uint64_t, Entry> entries_;
  std::vector<Partition> parts_{1};
  // The first entry of each non-empty ready set, with its partition.
  std::set<std::pair<QueuePos, uint32_t>> heads_;
  std::set<std::pair<int64_t, uint64_t>> waiting_;
  size_t ready_total_ = 0;
  size_t idle_count_ = 0;
};



inline void SetScheduler::MoveHead(uint32_t partition,
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

inline void SetScheduler::InsertReady(uint64_t site_fp, const Entry& e) {
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

inline void SetScheduler::EraseReady(uint64_t site_fp, const Entry& e) {
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

inline void SetScheduler::Unlink(uint64_t site_fp, const Entry& e) {
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

inline void SetScheduler::Place(uint64_t site_fp, const Placement& p,
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

inline void SetScheduler::Remove(uint64_t site_fp) {
  auto it = entries_.find(site_fp);
  if (it == entries_.end()) return;
  Unlink(site_fp, it->second);
  entries_.erase(it);
}

inline void SetScheduler::Reset(size_t partitions) {
  entries_.clear();
  parts_.assign(partitions < 1 ? 1 : partitions, Partition());
  heads_.clear();
  waiting_.clear();
  ready_total_ = 0;
  idle_count_ = 0;
}

inline void SetScheduler::Promote(int64_t now_ms) {
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

inline std::optional<std::pair<uint64_t, QueuePos>> SetScheduler::FirstReady()
    const {
  if (parts_.size() == 1) return FirstReadyIn(0);
  if (heads_.empty()) return std::nullopt;
  return FirstReadyIn(heads_.begin()->second);
}

inline std::optional<std::pair<uint64_t, QueuePos>> SetScheduler::FirstReadyIn(
    size_t partition) const {
  const ReadySet& ready = parts_[partition].ready;
  if (ready.empty()) return std::nullopt;
  const auto& [head, site_fp] = *ready.begin();
  return std::make_pair(site_fp, head);
}

inline std::optional<QueuePos> SetScheduler::HeadOf(uint64_t site_fp) const {
  auto it = entries_.find(site_fp);
  if (it == entries_.end() || it->second.where == Where::kIdle) {
    return std::nullopt;
  }
  return it->second.head;
}

inline std::optional<int64_t> SetScheduler::NextWakeMs() const {
  if (waiting_.empty()) return std::nullopt;
  return waiting_.begin()->first;
}

}  // namespace frontier
