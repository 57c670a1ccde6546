// MaddBatch: the MADDLINKS of one event-loop pass for one peer, sent as
// one internal command (docs/cluster.md, "MADD across shards"), and its
// reply split back to each MADD's part. Pure: argvs in, argvs and replies
// out; the Server forwards and delivers (server_cluster.cc).
//
// A group is one MADD's links for the peer, given as the MADDLINKS argv it
// would have been sent alone (`MADDLINKS ref depth depth-site [DATA]
// url...`). A batch of one group is sent as that argv, unchanged; of
// several, as
//   MADDLINKS GROUPS g  ref depth depth-site mode n url... ...
// (`mode` "-" or "DATA", `n` links, each a url or a url and its value),
// whose reply is one flat array of every group's elements, in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/cluster_gather.h"

namespace frontier {

class MaddBatch {
 public:
  // The MADD a group's elements go back to: the client and its part.
  struct Member {
    uint64_t client = 0;
    uint32_t part = 0;
    size_t links = 0;
  };

  // Adds one MADD's MADDLINKS argv (the single-group form) for `client`'s
  // part `part`.
  void Add(uint64_t client, uint32_t part, std::vector<std::string> argv);
  // The bytes of the arguments added so far (what the byte limit counts).
  size_t bytes() const { return bytes_; }
  bool empty() const { return groups_.empty(); }
  const std::vector<Member>& members() const { return members_; }

  // The command to send: the single form for one group, else GROUPS.
  std::vector<std::string> Argv() const;
  // The peer's reply to Argv(), as each member's reply, in members()'
  // order: its slice of the elements, or, if the reply is an error or not
  // an array of every group's elements, the reply itself for each (which
  // ClusterGather turns into error elements for that part's links).
  std::vector<RelayedReply> Split(const RelayedReply& reply) const;

 private:
  std::vector<std::vector<std::string>> groups_;
  std::vector<Member> members_;
  size_t bytes_ = 0;
};

}  // namespace frontier
