#include "server/cluster_etcd.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace frontier {
namespace {

constexpr std::string_view kMastersDir = "masters/";

StatusOr<EtcdView> ReadView(EtcdClient& client, std::string_view name) {
  const std::string prefix = EtcdPrefix(name);
  StatusOr<std::string> answer =
      client.Call("/v3/kv/range", cluster::RangePrefixRequest(prefix));
  if (!answer.ok()) return answer.status();
  std::optional<std::vector<cluster::EtcdKeyValue>> kvs =
      cluster::ParseRangeResponse(*answer);
  if (!kvs) {
    return Status::Corruption("etcd's answer to a range is not one: " +
                              answer->substr(0, 200));
  }
  EtcdView view;
  const std::string map_key = EtcdMapKey(name);
  const std::string masters = prefix + std::string(kMastersDir);
  for (cluster::EtcdKeyValue& kv : *kvs) {
    if (kv.key == map_key) {
      view.map = std::move(kv);
    } else if (kv.key.compare(0, masters.size(), masters) == 0) {
      view.masters[kv.key.substr(masters.size())] = kv.value;
    }
  }
  return view;
}

}  // namespace

std::string EtcdPrefix(std::string_view name) {
  return "/frontierd/" + std::string(name) + "/";
}

std::string EtcdMapKey(std::string_view name) {
  return EtcdPrefix(name) + "map";
}

StatusOr<EtcdView> ReadEtcdView(const std::vector<EtcdEndpoint>& endpoints,
                                std::string_view name, int timeout_ms) {
  EtcdClient client(endpoints, timeout_ms);
  return ReadView(client, name);
}

EtcdDirectory::EtcdDirectory(event_base* base, Options options,
                             OnView on_view, OnTrouble on_trouble)
    : options_(std::move(options)),
      prefix_(EtcdPrefix(options_.name)),
      on_view_(std::move(on_view)),
      on_trouble_(std::move(on_trouble)),
      inbox_(base),
      client_(options_.endpoints, options_.timeout_ms),
      thread_([this] { Run(); }) {}

EtcdDirectory::~EtcdDirectory() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void EtcdDirectory::HoldMasterKey(std::string shard, std::string address) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shard == want_shard_ && address == want_address_) return;
    want_shard_ = std::move(shard);
    want_address_ = std::move(address);
    nudged_ = true;
  }
  wake_.notify_all();  // a role change reaches etcd now, not in a second
}

void EtcdDirectory::Run() {
  int64_t wait_ms = options_.interval_ms;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    const bool ok = Round();
    lock.lock();
    wait_ms = ok ? options_.interval_ms
                 : std::min(wait_ms * 2, options_.max_backoff_ms);
    wake_.wait_for(lock, std::chrono::milliseconds(wait_ms),
                   [this] { return stopping_ || nudged_; });
    nudged_ = false;
  }
  lock.unlock();
  if (lease_ != 0) {  // the master key goes with it
    (void)client_.Call("/v3/lease/revoke", cluster::LeaseIdRequest(lease_));
  }
}

bool EtcdDirectory::Round() {
  StatusOr<EtcdView> view = ReadView(client_, options_.name);
  Status s = view.ok() ? KeepMasterKey(*view) : view.status();
  if (!s.ok()) {
    if (!failing_) {
      failing_ = true;
      inbox_.Post([this, why = s.message()] { on_trouble_(why); });
    }
    if (!view.ok()) return false;
  } else if (failing_) {
    failing_ = false;
    inbox_.Post([this] { on_trouble_(std::string()); });
  }
  if (!last_ || !(*last_ == *view)) {
    last_ = *view;
    inbox_.Post([this, v = std::move(view).value()]() mutable {
      on_view_(std::move(v));
    });
  }
  return s.ok();
}

Status EtcdDirectory::KeepMasterKey(const EtcdView& view) {
  std::string shard, address;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shard = want_shard_;
    address = want_address_;
  }
  if (shard.empty()) {
    if (lease_ == 0) return Status::OK();
    StatusOr<std::string> revoked =
        client_.Call("/v3/lease/revoke", cluster::LeaseIdRequest(lease_));
    if (!revoked.ok()) return revoked.status();
    lease_ = 0;
    return Status::OK();
  }
  if (lease_ != 0) {
    StatusOr<std::string> answer =
        client_.Call("/v3/lease/keepalive", cluster::LeaseIdRequest(lease_));
    if (!answer.ok()) return answer.status();
    std::optional<int64_t> ttl = cluster::ParseKeepAlive(*answer);
    if (!ttl || *ttl <= 0) lease_ = 0;  // expired while etcd was away
  }
  bool put = false;
  if (lease_ == 0) {
    StatusOr<std::string> answer = client_.Call(
        "/v3/lease/grant", cluster::LeaseGrantRequest(options_.lease_ttl_s));
    if (!answer.ok()) return answer.status();
    std::optional<int64_t> id = cluster::ParseLeaseGrant(*answer);
    if (!id) return Status::Corruption("etcd granted no lease: " + *answer);
    lease_ = *id;
    put = true;
  }
  auto held = view.masters.find(shard);
  if (put || held == view.masters.end() || held->second != address) {
    StatusOr<std::string> answer = client_.Call(
        "/v3/kv/put", cluster::PutRequest(prefix_ + std::string(kMastersDir) +
                                              shard,
                                          address, lease_));
    if (!answer.ok()) return answer.status();
  }
  return Status::OK();
}

}  // namespace frontier
