// EtcdDirectory: follows the cluster's directory in etcd (docs/cluster.md,
// "The directory in etcd") on a thread of its own that does nothing but
// HTTP: once a `interval` it reads every key under the cluster's prefix
// (the map, the masters' keys) and hands what changed to the loop through
// a LoopInbox; it keeps this node's master key on an etcd lease while the
// loop says this node is its shard's master. It never touches the server
// or storage: the loop decides what to do with what it reads.
//
// Keys, under the prefix "/frontierd/<cluster-name>/":
//   map               the cluster map, in the cluster file's text
//   masters/<shard>   "host:port" of the shard's master, on its lease
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/etcd_json.h"
#include "server/etcd_client.h"
#include "server/libevent_ptr.h"
#include "server/loop_inbox.h"
#include "util/status.h"

namespace frontier {

// The prefix of cluster `name`'s keys, and the key of its map.
std::string EtcdPrefix(std::string_view name);
std::string EtcdMapKey(std::string_view name);

// What the directory holds, as read at one moment.
struct EtcdView {
  std::optional<cluster::EtcdKeyValue> map;    // nullopt: no map yet
  std::map<std::string, std::string> masters;  // shard name -> host:port
  bool operator==(const EtcdView& o) const {
    return masters == o.masters && map.has_value() == o.map.has_value() &&
           (!map || (map->mod_revision == o.map->mod_revision &&
                     map->value == o.map->value));
  }
};

// Reads the directory once, blocking (at start, before the loop runs).
// Unavailable if no endpoint answers within `timeout_ms` each.
StatusOr<EtcdView> ReadEtcdView(const std::vector<EtcdEndpoint>& endpoints,
                                std::string_view name, int timeout_ms);

class EtcdDirectory {
 public:
  struct Options {
    std::vector<EtcdEndpoint> endpoints;
    std::string name;  // cluster-name
    int64_t interval_ms = 1000;
    // After a failed read the next waits twice as long, up to this.
    int64_t max_backoff_ms = 8000;
    int64_t lease_ttl_s = 5;
    int timeout_ms = 1000;  // per HTTP call
  };
  // Loop thread: `on_view` with each view that differs from the last one
  // handed over (the first view too); `on_trouble` with a sentence when
  // etcd stops answering (once per outage) and with "" when it answers
  // again.
  using OnView = std::function<void(EtcdView)>;
  using OnTrouble = std::function<void(std::string)>;

  // Starts the thread. `base` must outlive this object.
  EtcdDirectory(event_base* base, Options options, OnView on_view,
                OnTrouble on_trouble);
  // Stops the thread, first revoking this node's lease (its master key
  // goes at once, not at the lease's end), bounded by the HTTP timeout.
  // What was not yet handed over is dropped.
  ~EtcdDirectory();
  EtcdDirectory(const EtcdDirectory&) = delete;
  EtcdDirectory& operator=(const EtcdDirectory&) = delete;

  // Loop thread: this node is the master of shard `shard` and clients
  // reach it at `address`, so the key masters/<shard> names it (on a
  // lease kept alive while the process runs); "" `shard`: it is master of
  // nothing, its lease is revoked. A change wakes the thread: the key is
  // written (or revoked) at once, not at the next periodic read.
  void HoldMasterKey(std::string shard, std::string address);

 private:
  void Run();
  // One round: read, hand over, keep the lease. False if etcd failed.
  bool Round();
  Status KeepMasterKey(const EtcdView& view);

  const Options options_;
  const std::string prefix_;
  OnView on_view_;
  OnTrouble on_trouble_;
  LoopInbox inbox_;
  EtcdClient client_;  // the thread's only

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;     // guarded by mu_
  bool nudged_ = false;       // guarded by mu_: HoldMasterKey changed
  std::string want_shard_;    // guarded by mu_
  std::string want_address_;  // guarded by mu_

  // The thread's own.
  std::optional<EtcdView> last_;
  bool failing_ = false;
  int64_t lease_ = 0;

  std::thread thread_;  // last: starts once the rest is built
};

}  // namespace frontier
