// ClusterGather: one client's command split over several shards
// (docs/cluster.md), and the reply put together from theirs: an MSEEN's
// or a MADD's answers back in argument order, STATS CLUSTER's counters
// summed, or SITE TOP CLUSTER's lists merged. Pure:
// parts' replies in, one RESP reply out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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
  // `parts` flat arrays of name and integer pairs (STATS), summed name by
  // name in the first reply's order; an error of any part is the reply.
  static ClusterGather Sum(size_t parts);
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
  bool sum_ = false;
  std::optional<size_t> top_;  // Top: how many
  size_t waiting_ = 0;
  std::vector<std::vector<size_t>> positions_;
  std::vector<std::string> answers_;                   // Place: RESP per answer
  std::vector<std::pair<std::string, int64_t>> sums_;  // Sum: name, total
  std::string error_;  // Sum: the first part's error, RESP
};

}  // namespace frontier
