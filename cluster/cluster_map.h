// ClusterMap: which shard owns which of Redis Cluster's 16384 slots, and
// which frontierd processes make up each shard (docs/cluster.md).
//
// Read from the text of the `cluster-config-file` (the same file on every
// node; a person writes it), or from the same text kept in etcd:
//
//   # comments and blank lines are ignored
//   epoch 3
//   shard a 0-5460
//   shard b 5461-10922
//   shard c 10923-16383
//   node a 127.0.0.2:7379 repl 127.0.0.2:7400
//   node a 127.0.0.3:7379 repl 127.0.0.3:7400
//   node b [::1]:7380
//   ...
//
// `epoch N` (N >= 1, once) numbers the map: of two maps, the one with the
// higher epoch is the newer. `shard NAME RANGE...` declares a shard and the
// slots it owns, each RANGE a slot ("42") or an inclusive range
// ("0-5460"). `node SHARD HOST:PORT [repl HOST:PORT] [id HEX40]` makes the
// process whose RESP address is HOST:PORT a member of SHARD; `repl` is its
// replication address (for shards of more than one member), `id` its
// 40-hex-digit node ID (default: the SHA-1 of "HOST:PORT", so that it is
// stable while the address is). Which member is a shard's master is not
// in the map: the shard's replication group decides it at run time.
//
// Pure: text in, answers out; no sockets, storage or RESP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::cluster {

struct Address {
  std::string host;  // a name, an IPv4 literal or an IPv6 literal (no [])
  int port = 0;      // 1..65535

  // "host:port", or "[host]:port" for an IPv6 literal.
  std::string ToString() const;
  bool operator==(const Address& other) const {
    return host == other.host && port == other.port;
  }
};

// Parses "host:port" or "[v6]:port". False, with *error set, if it is not
// one (an empty host, a port outside 1..65535, a character a host name or
// an IP literal cannot have).
bool ParseAddress(std::string_view text, Address* out, std::string* error);

struct SlotRange {
  int first = 0;  // inclusive
  int last = 0;   // inclusive, >= first
  bool operator==(const SlotRange& o) const {
    return first == o.first && last == o.last;
  }
};

struct Node {
  std::string id;  // 40 lower-case hex digits
  Address resp;
  std::optional<Address> repl;
  size_t shard = 0;  // index in ClusterMap::shards()
};

struct Shard {
  std::string name;
  std::vector<SlotRange> ranges;  // in the order written, merged nowhere
  std::vector<size_t> nodes;      // indexes in ClusterMap::nodes()
};

class ClusterMap {
 public:
  // The map `text` describes, or nullopt with *error set to a sentence for
  // the user, naming the line, if a line is not one of the three kinds
  // above, a name or an address is malformed or given twice, a node names
  // a shard not declared, a shard has no node, there is no epoch, or the
  // slots are not all owned exactly once (the first slot no shard owns, or
  // the first slot two shards claim, is named).
  static std::optional<ClusterMap> Parse(std::string_view text,
                                         std::string* error);

  uint64_t epoch() const { return epoch_; }
  const std::vector<Shard>& shards() const { return shards_; }
  const std::vector<Node>& nodes() const { return nodes_; }

  // The index of the shard that owns `slot` (0..kSlots-1).
  size_t ShardOfSlot(int slot) const { return owner_[slot]; }
  // The node whose RESP address is `resp`, or nullopt.
  std::optional<size_t> FindNode(const Address& resp) const;
  // The shard named `name`, or nullopt.
  std::optional<size_t> FindShard(std::string_view name) const;

  // Text Parse() reads back to an equal map: the epoch, the shards, then
  // the nodes (with their ids), one per line.
  std::string ToText() const;

  bool operator==(const ClusterMap& other) const;

 private:
  uint64_t epoch_ = 0;
  std::vector<Shard> shards_;
  std::vector<Node> nodes_;
  std::vector<uint16_t> owner_;  // kSlots entries: shard index per slot
};

// The default node ID of a process at `resp`: the SHA-1 of its
// ToString(), in hex.
std::string DefaultNodeId(const Address& resp);

}  // namespace frontier::cluster
