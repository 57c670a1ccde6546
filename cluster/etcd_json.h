// etcd's v3 JSON gateway (docs/cluster.md, "The directory in etcd"): the
// request bodies frontierd sends and the parts of the answers it reads.
//
// The gateway speaks JSON over HTTP, with keys and values in base64 and
// 64-bit numbers as JSON strings ("mod_revision":"7"); a field whose value
// is the default (0, false, "") is left out of an answer. Only what
// frontierd uses is here: a range over a prefix, a put on a lease, lease
// grant, keep-alive and revoke.
//
// Pure: text in, text out; no sockets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::cluster {

std::string Base64Encode(std::string_view bytes);
// nullopt if `text` is not base64.
std::optional<std::string> Base64Decode(std::string_view text);

// The key just after every key that starts with `prefix` (etcd's
// range_end for a prefix): its last byte below 0xff plus one.
std::string PrefixEnd(std::string_view prefix);

struct EtcdKeyValue {
  std::string key;
  std::string value;
  int64_t mod_revision = 0;
  int64_t lease = 0;  // 0: on no lease
};

// Bodies of /v3/kv/range (every key under `prefix`), /v3/kv/put (on
// lease `lease`, none if 0), /v3/lease/grant, /v3/lease/keepalive and
// /v3/lease/revoke.
std::string RangePrefixRequest(std::string_view prefix);
std::string PutRequest(std::string_view key, std::string_view value,
                       int64_t lease);
std::string LeaseGrantRequest(int64_t ttl_seconds);
std::string LeaseIdRequest(int64_t lease);

// The key-values of a range answer, in its order; nullopt if `json` is
// not one (an error answer, or text that is not the gateway's).
std::optional<std::vector<EtcdKeyValue>> ParseRangeResponse(
    std::string_view json);
// The lease ID of a grant answer; nullopt if it has none.
std::optional<int64_t> ParseLeaseGrant(std::string_view json);
// The TTL left of a keep-alive answer ({"result":{...,"TTL":"5"}}): 0 if
// the lease is gone (the field is left out), nullopt if `json` is not an
// answer.
std::optional<int64_t> ParseKeepAlive(std::string_view json);
// The "error"/"message" text of an error answer, or "" if none.
std::string ErrorMessage(std::string_view json);

}  // namespace frontier::cluster
