// BlockedClients: the BPOP waiting line. First come, first served, with
// per-client deadlines; a line per partition asked for (BPOP ... PARTITION
// name), so that serving one partition looks only at its own waiters and
// at those who take any. Pure bookkeeping by connection id: it neither
// touches connections nor the frontier; the event loop does the serving.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/command_context.h"

namespace frontier {

class BlockedClients {
 public:
  struct Entry {
    uint64_t conn_id = 0;
    BlockRequest request;
  };

  // Queues `conn_id` at the back. Precondition: not already queued.
  void Add(uint64_t conn_id, const BlockRequest& request);
  // Removes `conn_id` wherever it is; false if it was not queued.
  bool Remove(uint64_t conn_id);

  bool empty() const { return fifo_.empty(); }
  size_t size() const { return fifo_.size(); }
  // The longest-waiting client. Precondition: !empty().
  const Entry& front() const { return fifo_.begin()->second; }
  void PopFront();

  // A waiting line's name: the partition asked for ("" = any) in the
  // default crawl; "<crawl>\n<partition>" in another crawl (a crawl name
  // holds no control character).
  static std::string LineOf(const BlockRequest& request);
  // LineOf's inverse: the crawl ("" = the default crawl) and partition.
  static std::pair<std::string_view, std::string_view> SplitLine(
      std::string_view line);

  // Clients waiting on line `name` (LineOf; for the default crawl, the
  // partition's name, "" = those on no partition).
  size_t WaitingOn(std::string_view name) const;
  // The longest-waiting client among those whose line `can_serve`
  // accepts; it is asked once per line with waiters (LineOf: "" for the
  // default crawl's clients that take any partition). nullptr if there is none.
  // The pointer is valid until the next change.
  const Entry* OldestServable(
      const std::function<bool(std::string_view)>& can_serve) const;

  // Removes and returns every client whose deadline is <= now_ms, oldest
  // first. Clients waiting forever (deadline 0) never expire.
  std::vector<Entry> TakeExpired(int64_t now_ms);
  // The earliest finite deadline, if any.
  std::optional<int64_t> EarliestDeadline() const;

 private:
  void Erase(std::map<uint64_t, Entry>::iterator it);
  void Unlist(const std::string& partition, uint64_t seq);

  uint64_t next_seq_ = 0;
  std::map<uint64_t, Entry> fifo_;                 // arrival seq -> entry
  std::multimap<int64_t, uint64_t> deadlines_;     // deadline -> seq
  std::unordered_map<uint64_t, uint64_t> seq_of_;  // conn id -> seq
  // Partition name -> the seqs waiting on it ("" = any), oldest first.
  std::map<std::string, std::set<uint64_t>, std::less<>> by_partition_;
};

}  // namespace frontier
