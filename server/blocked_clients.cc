#include "server/blocked_clients.h"

namespace frontier {

void BlockedClients::Add(uint64_t conn_id, const BlockRequest& request) {
  uint64_t seq = next_seq_++;
  fifo_.emplace(seq, Entry{conn_id, request});
  seq_of_[conn_id] = seq;
  by_partition_[LineOf(request)].insert(seq);
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
  Unlist(LineOf(e.request), it->first);
  fifo_.erase(it);
}

void BlockedClients::Unlist(const std::string& partition, uint64_t seq) {
  auto line = by_partition_.find(partition);
  if (line == by_partition_.end()) return;
  line->second.erase(seq);
  if (line->second.empty()) by_partition_.erase(line);
}

std::string BlockedClients::LineOf(const BlockRequest& request) {
  if (request.crawl.empty()) return request.partition;
  return request.crawl + '\n' + request.partition;
}

std::pair<std::string_view, std::string_view> BlockedClients::SplitLine(
    std::string_view line) {
  const size_t nl = line.find('\n');
  if (nl == std::string_view::npos) return {std::string_view(), line};
  return {line.substr(0, nl), line.substr(nl + 1)};
}

size_t BlockedClients::WaitingOn(std::string_view name) const {
  auto line = by_partition_.find(name);
  return line == by_partition_.end() ? 0 : line->second.size();
}

const BlockedClients::Entry* BlockedClients::OldestServable(
    const std::function<bool(std::string_view)>& can_serve) const {
  const Entry* oldest = nullptr;
  uint64_t oldest_seq = 0;
  for (const auto& [name, seqs] : by_partition_) {
    const uint64_t seq = *seqs.begin();
    if (oldest != nullptr && seq > oldest_seq) continue;
    if (!can_serve(name)) continue;
    oldest = &fifo_.find(seq)->second;
    oldest_seq = seq;
  }
  return oldest;
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
    Unlist(LineOf(it->second.request), seq);
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
