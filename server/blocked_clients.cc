#include "server/blocked_clients.h"

namespace frontier {

void BlockedClients::Add(uint64_t conn_id, const BlockRequest& request) {
  uint64_t seq = next_seq_++;
  fifo_.emplace(seq, Entry{conn_id, request});
  seq_of_[conn_id] = seq;
  if (request.deadline_ms != 0) deadlines_.emplace(request.deadline_ms, seq);
}

void BlockedClients::Erase(std::map<uint64_t, Entry>::iterator it) {
  const Entry& e = it->second;
  if (e.request.deadline_ms != 0) {
    auto [lo, hi] = deadlines_.equal_range(e.request.deadline_ms);
    for (auto d = lo; d != hi; ++d) {
      if (d->second == it->first) {
        deadlines_.erase(d);
        break;
      }
    }
  }
  seq_of_.erase(e.conn_id);
  fifo_.erase(it);
}

bool BlockedClients::Remove(uint64_t conn_id) {
  auto s = seq_of_.find(conn_id);
  if (s == seq_of_.end()) return false;
  Erase(fifo_.find(s->second));
  return true;
}

void BlockedClients::PopFront() { Erase(fifo_.begin()); }

std::vector<BlockedClients::Entry> BlockedClients::TakeExpired(int64_t now_ms) {
  std::map<uint64_t, Entry> expired;  // by seq: oldest first
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    uint64_t seq = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    auto it = fifo_.find(seq);
    seq_of_.erase(it->second.conn_id);
    expired.emplace(seq, it->second);
    fifo_.erase(it);
  }
  std::vector<Entry> out;
  out.reserve(expired.size());
  for (auto& [seq, entry] : expired) out.push_back(entry);
  return out;
}

std::optional<int64_t> BlockedClients::EarliestDeadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

}  // namespace frontier
