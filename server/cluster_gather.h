// ClusterGather: one client's command split over several shards
// (docs/cluster.md), and the reply put together from theirs: an MSEEN's
// or a MADD's answers back in argument order, STATS CLUSTER's and
// PARTITION INFO ... CLUSTER's counters summed, HINT ... CLUSTER's
// counters summed and the advice worked out again, SITE TOP CLUSTER's
// lists merged, or a shard's SITE LIST page given the cluster's cursor.
// Pure: parts' replies in, one RESP reply out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frontier {

// A peer's reply as the forwarder relays it: the RESP bytes, whether it is
// an error, and, for an array, each element's RESP bytes.
struct RelayedReply {
  std::string resp;
  bool error = false;
  std::vector<std::string> elements;
};

class ClusterGather {
 public:
  // An array of `size` answers; part i's reply is an array whose elements
  // go, in order, to the answers at `positions[i]` (0-based). A part that
  // answers an error, or not the right number of elements, puts its error
  // in each of its answers: the other parts' answers stand.
  static ClusterGather Place(size_t size,
                             std::vector<std::vector<size_t>> positions);
  // `parts` flat arrays of name and value pairs (STATS, PARTITION INFO),
  // integers summed name by name in the first reply's order, any other
  // value (PARTITION INFO's suffixes) the first reply's; an error of any
  // part is the reply.
  static ClusterGather Sum(size_t parts);
  // HINT's fields summed, and `advice` worked out again from the sums with
  // the rule each shard uses (partition/hint_rule.h).
  static ClusterGather Hint(size_t parts);
  // One part: a SITE LIST page `[next, [site...]]` of shard `shard` of
  // `shards`, its cursor made the cluster's (ClusterCursor).
  static ClusterGather Page(size_t shard, size_t shards);
  // `parts` flat arrays of name and integer pairs (SITE TOP of each shard,
  // whose sites are its own), merged: the `n` largest, largest first, ties
  // by name, as SITE TOP answers; an error of any part is the reply.
  static ClusterGather Top(size_t parts, size_t n);

  // Part `part`'s reply (once per part).
  void Add(size_t part, const RelayedReply& reply);
  bool done() const { return waiting_ == 0; }
  // The whole reply, once done().
  std::string Reply() const;

 private:
  struct Field {
    std::string name;
    std::optional<int64_t> total;  // an integer's sum
    std::string raw;               // else the first reply's value, RESP
  };
  std::string SumReply() const;

  bool sum_ = false;
  bool hint_ = false;
  std::optional<size_t> top_;  // Top: how many
  std::optional<std::pair<size_t, size_t>> page_;  // Page: shard, shards
  size_t waiting_ = 0;
  std::vector<std::vector<size_t>> positions_;
  std::vector<std::string> answers_;  // Place: RESP per answer; Page: one
  std::vector<Field> sums_;           // Sum: by name
  std::string error_;  // Sum: the first part's error, RESP
};

// SITE LIST CLUSTER's cursor: "0" (the start, or the end), or
// "<shard>:<cursor>", the shard's own SITE LIST cursor in shard <shard>
// (an index in the map). nullopt if `text` is neither.
std::optional<std::pair<size_t, std::string>> ParseClusterCursor(
    std::string_view text);
std::string ClusterCursor(size_t shard, std::string_view cursor);

}  // namespace frontier
