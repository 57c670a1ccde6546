#include "storage/site_scheduler.h"

#include <tuple>

namespace frontier {

QueuePos SiteScheduler::Slot::head() const {
  QueuePos pos;
  pos.major = head_major;
  pos.minor = head_minor;
  pos.url.url_fp = head_url_fp;
  pos.url.host_fp = head_host_fp;
  return pos;
}

void SiteScheduler::Slot::set_head(const QueuePos& pos) {
  head_major = pos.major;
  head_minor = pos.minor;
  head_url_fp = pos.url.url_fp;
  head_host_fp = pos.url.host_fp;
}

namespace {

// (head, site) of two slots, in QueuePos order (records.h) then by site.
template <typename S>
bool HeadLess(const S& a, const S& b) {
  return std::tie(a.head_major, a.head_minor, a.head_url_fp, a.head_host_fp,
                  a.site_fp) < std::tie(b.head_major, b.head_minor,
                                        b.head_url_fp, b.head_host_fp,
                                        b.site_fp);
}

}  // namespace

struct SiteScheduler::ReadyOrder {
  Slot* slots;
  bool Less(uint32_t a, uint32_t b) const {
    return HeadLess(slots[a], slots[b]);
  }
  void SetPos(uint32_t id, uint32_t pos) const { slots[id].heap_pos = pos; }
};

struct SiteScheduler::WaitOrder {
  Slot* slots;
  bool Less(uint32_t a, uint32_t b) const {
    return std::tie(slots[a].at_ms, slots[a].site_fp) <
           std::tie(slots[b].at_ms, slots[b].site_fp);
  }
  void SetPos(uint32_t id, uint32_t pos) const { slots[id].heap_pos = pos; }
};

// A partition's key is its first ready site's head, then its number (not
// that site's fp): FirstReady() is the smallest head, ties to the lower
// partition.
struct SiteScheduler::HeadsOrder {
  const Slot* slots;
  Partition* parts;
  bool Less(uint32_t a, uint32_t b) const {
    const Slot& x = slots[parts[a].ready.top()];
    const Slot& y = slots[parts[b].ready.top()];
    return std::tie(x.head_major, x.head_minor, x.head_url_fp, x.head_host_fp,
                    a) < std::tie(y.head_major, y.head_minor, y.head_url_fp,
                                  y.head_host_fp, b);
  }
  void SetPos(uint32_t id, uint32_t pos) const { parts[id].heads_pos = pos; }
};

// --- the site index -------------------------------------------------------

size_t SiteScheduler::Bucket(uint64_t site_fp) const {
  // Fibonacci hashing: the fingerprints are already uniform, the multiply
  // only spreads any that are not (tests use small numbers).
  return static_cast<size_t>((site_fp * 0x9E3779B97F4A7C15ull) >>
                             bucket_shift_);
}

uint32_t SiteScheduler::Find(uint64_t site_fp) const {
  if (buckets_.empty()) return kNone;
  uint32_t slot = buckets_[Bucket(site_fp)];
  while (slot != kNone && slots_[slot].site_fp != site_fp) {
    slot = slots_[slot].next;
  }
  return slot;
}

void SiteScheduler::Rehash(size_t buckets) {
  buckets_.assign(buckets, kNone);
  bucket_shift_ = 64;
  for (size_t n = buckets; n > 1; n >>= 1) --bucket_shift_;
  for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
    Slot& s = slots_[slot];
    if (s.where() == Where::kFree) continue;
    uint32_t& first = buckets_[Bucket(s.site_fp)];
    s.next = first;
    first = slot;
  }
}

uint32_t SiteScheduler::Allocate(uint64_t site_fp) {
  uint32_t slot = free_head_;
  if (slot != kNone) {
    free_head_ = slots_[slot].next;
    slots_[slot] = Slot();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.site_fp = site_fp;
  s.set(0, Where::kBlocked);  // not free; Place() sets the rest
  ++live_;
  // At most one site per bucket on average; slots freed are reused first,
  // so the table follows the high-water mark of tracked sites.
  if (live_ > buckets_.size()) {
    Rehash(buckets_.empty() ? 16 : buckets_.size() * 2);
  } else {
    uint32_t& first = buckets_[Bucket(site_fp)];
    s.next = first;
    first = slot;
  }
  return slot;
}

void SiteScheduler::Free(uint32_t slot) {
  Slot& s = slots_[slot];
  uint32_t* link = &buckets_[Bucket(s.site_fp)];
  while (*link != slot) link = &slots_[*link].next;
  *link = s.next;
  if (s.slots_ready == kWide) wide_slots_.erase(slot);
  s.set(0, Where::kFree);
  s.next = free_head_;
  free_head_ = slot;
  --live_;
}

// --- per-slot capacity ------------------------------------------------------

uint64_t SiteScheduler::SlotsReady(uint32_t slot) const {
  const Slot& s = slots_[slot];
  return s.slots_ready == kWide ? wide_slots_.at(slot).first : s.slots_ready;
}

uint64_t SiteScheduler::SlotsOther(uint32_t slot) const {
  const Slot& s = slots_[slot];
  return s.slots_ready == kWide ? wide_slots_.at(slot).second
                                : s.slots_other;
}

uint64_t SiteScheduler::SlotsNow(uint32_t slot) const {
  return slots_[slot].where() == Where::kReady ? SlotsReady(slot)
                                               : SlotsOther(slot);
}

void SiteScheduler::SetSlots(uint32_t slot, uint64_t ready, uint64_t other) {
  Slot& s = slots_[slot];
  if (ready < kWide && other < kWide) {
    if (s.slots_ready == kWide) wide_slots_.erase(slot);
    s.slots_ready = static_cast<uint32_t>(ready);
    s.slots_other = static_cast<uint32_t>(other);
  } else {
    s.slots_ready = kWide;
    s.slots_other = kWide;
    wide_slots_[slot] = {ready, other};
  }
}

// --- heaps ------------------------------------------------------------------

void SiteScheduler::FixHeads(uint32_t partition) {
  if (parts_.size() == 1) return;  // FirstReady() reads the one heap
  Partition& part = parts_[partition];
  const HeadsOrder order{slots_.data(), parts_.data()};
  if (part.ready.empty()) {
    if (part.heads_pos != kNone) heads_.Erase(part.heads_pos, order);
  } else if (part.heads_pos == kNone) {
    heads_.Push(partition, order);
  } else {
    heads_.Fix(part.heads_pos, order);
  }
}

void SiteScheduler::Unlink(uint32_t slot) {
  Slot& s = slots_[slot];
  Partition& part = parts_[s.partition()];
  part.capacity -= SlotsNow(slot);
  switch (s.where()) {
    case Where::kReady:
      part.ready.Erase(s.heap_pos, ReadyOrder{slots_.data()});
      --ready_total_;
      FixHeads(s.partition());
      break;
    case Where::kWaiting:
      waiting_.Erase(s.heap_pos, WaitOrder{slots_.data()});
      break;
    case Where::kIdle:
      --idle_count_;
      break;
    case Where::kBlocked:
    case Where::kFree:
      break;
  }
}

void SiteScheduler::Link(uint32_t slot) {
  Slot& s = slots_[slot];
  Partition& part = parts_[s.partition()];
  part.capacity += SlotsNow(slot);
  switch (s.where()) {
    case Where::kReady:
      part.ready.Push(slot, ReadyOrder{slots_.data()});
      ++ready_total_;
      FixHeads(s.partition());
      break;
    case Where::kWaiting:
      waiting_.Push(slot, WaitOrder{slots_.data()});
      break;
    case Where::kIdle:
      ++idle_count_;
      break;
    case Where::kBlocked:
    case Where::kFree:
      break;
  }
}

// --- the verbs --------------------------------------------------------------

void SiteScheduler::Place(uint64_t site_fp, const Placement& p,
                          int64_t now_ms) {
  const Where where = !p.head                      ? Where::kIdle
                      : p.at_lease_cap             ? Where::kBlocked
                      : p.next_allowed_ms > now_ms ? Where::kWaiting
                                                   : Where::kReady;
  const bool tracked = p.head || p.slots_other > 0;
  uint32_t slot = Find(site_fp);
  if (slot == kNone) {
    if (!tracked) return;
    slot = Allocate(site_fp);
  } else {
    const Slot& s = slots_[slot];
    const bool same_heap = where == s.where() &&
                           p.partition == s.partition() &&
                           (where == Where::kReady || where == Where::kWaiting);
    // Most calls (a CONFIRM, a link added behind the head) leave the site
    // where it is: skip the heap updates then.
    if (where == s.where() && (!p.head || *p.head == s.head()) &&
        (where != Where::kWaiting || s.at_ms == p.next_allowed_ms) &&
        p.partition == s.partition() && p.slots_ready == SlotsReady(slot) &&
        p.slots_other == SlotsOther(slot)) {
      return;
    }
    if (same_heap && tracked) {
      // A POP moves its site's head (or, with a delay, its time): one
      // sift in place instead of an erase and an insert.
      Partition& part = parts_[p.partition];
      part.capacity -= SlotsNow(slot);
      SetSlots(slot, p.slots_ready, p.slots_other);
      part.capacity += SlotsNow(slot);
      Slot& m = slots_[slot];
      m.set_head(*p.head);
      if (where == Where::kReady) {
        part.ready.Fix(m.heap_pos, ReadyOrder{slots_.data()});
        FixHeads(p.partition);
      } else {
        m.at_ms = p.next_allowed_ms;
        waiting_.Fix(m.heap_pos, WaitOrder{slots_.data()});
      }
      return;
    }
    Unlink(slot);
    if (!tracked) {
      Free(slot);
      return;
    }
  }
  Slot& s = slots_[slot];
  s.set_head(p.head.value_or(QueuePos()));
  s.set(p.partition, where);
  if (where == Where::kWaiting) s.at_ms = p.next_allowed_ms;
  SetSlots(slot, p.slots_ready, p.slots_other);
  Link(slot);
}

void SiteScheduler::Remove(uint64_t site_fp) {
  const uint32_t slot = Find(site_fp);
  if (slot == kNone) return;
  Unlink(slot);
  Free(slot);
}

void SiteScheduler::Reset(size_t partitions) {
  std::vector<Slot>().swap(slots_);
  std::vector<uint32_t>().swap(buckets_);
  bucket_shift_ = 64;
  free_head_ = kNone;
  live_ = 0;
  wide_slots_.clear();
  parts_.clear();
  parts_.resize(partitions < 1 ? 1 : partitions);
  heads_.Clear();
  waiting_.Clear();
  ready_total_ = 0;
  idle_count_ = 0;
}

void SiteScheduler::Promote(int64_t now_ms) {
  const WaitOrder wait{slots_.data()};
  while (!waiting_.empty() && slots_[waiting_.top()].at_ms <= now_ms) {
    const uint32_t slot = waiting_.top();
    waiting_.Erase(0, wait);
    Slot& s = slots_[slot];
    Partition& part = parts_[s.partition()];
    part.capacity -= SlotsOther(slot);
    s.set(s.partition(), Where::kReady);
    part.capacity += SlotsReady(slot);
    part.ready.Push(slot, ReadyOrder{slots_.data()});
    ++ready_total_;
    FixHeads(s.partition());
  }
}

std::optional<std::pair<uint64_t, QueuePos>> SiteScheduler::FirstReady()
    const {
  if (parts_.size() == 1) return FirstReadyIn(0);
  if (heads_.empty()) return std::nullopt;
  return FirstReadyIn(heads_.top());
}

std::optional<std::pair<uint64_t, QueuePos>> SiteScheduler::FirstReadyIn(
    size_t partition) const {
  const IndexedHeap& ready = parts_[partition].ready;
  if (ready.empty()) return std::nullopt;
  const Slot& s = slots_[ready.top()];
  return std::make_pair(s.site_fp, s.head());
}

std::optional<std::pair<uint64_t, QueuePos>> SiteScheduler::ReadyHead(
    uint64_t site_fp) const {
  const uint32_t slot = Find(site_fp);
  if (slot == kNone || slots_[slot].where() != Where::kReady) {
    return std::nullopt;
  }
  return std::make_pair(site_fp, slots_[slot].head());
}

std::optional<QueuePos> SiteScheduler::HeadOf(uint64_t site_fp) const {
  const uint32_t slot = Find(site_fp);
  if (slot == kNone || slots_[slot].where() == Where::kIdle) {
    return std::nullopt;
  }
  return slots_[slot].head();
}

std::optional<int64_t> SiteScheduler::NextWakeMs() const {
  if (waiting_.empty()) return std::nullopt;
  return slots_[waiting_.top()].at_ms;
}

}  // namespace frontier
