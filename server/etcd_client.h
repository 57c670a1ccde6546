// EtcdClient: blocking calls to etcd's v3 JSON gateway over HTTP
// (cluster/etcd_json.h builds and reads the bodies), for the one thread
// that talks to etcd (server/cluster_etcd.h) and for the start, before the
// loop runs. Never on the loop thread: a call waits for its answer, up to
// the timeout per endpoint.
//
// Each call runs libevent's HTTP client on a private event_base of its
// own, so nothing is shared with the server's loop.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace frontier {

struct EtcdEndpoint {
  std::string host;  // no [] for IPv6
  int port = 0;
  std::string ToString() const;  // "http://host:port"
};

// Parses `cluster-etcd`'s value: "http://host:port" URLs separated by
// commas (spaces allowed around them), at least one. InvalidArgument,
// naming the bad one, otherwise (https is not supported: say so).
StatusOr<std::vector<EtcdEndpoint>> ParseEtcdEndpoints(std::string_view text);

class EtcdClient {
 public:
  // `endpoints` must not be empty; `timeout_ms` bounds each attempt.
  EtcdClient(std::vector<EtcdEndpoint> endpoints, int timeout_ms);

  // POSTs `body` to `path` ("/v3/kv/range", ...) on the endpoint that
  // answered last, then on each other one, until one answers with HTTP
  // 200: its body. Unavailable, naming each endpoint's failure, if none
  // does; an answer other than 200 counts as a failure, with the gateway's
  // message.
  StatusOr<std::string> Call(std::string_view path, const std::string& body);

 private:
  StatusOr<std::string> CallOne(const EtcdEndpoint& endpoint,
                                std::string_view path,
                                const std::string& body);

  std::vector<EtcdEndpoint> endpoints_;
  int timeout_ms_;
  size_t preferred_ = 0;  // the endpoint that answered last
};

}  // namespace frontier
