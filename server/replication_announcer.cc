#include "server/replication_announcer.h"

#include <vector>

#include "server/hiredis_libevent.h"
#include "server/log.h"
#include "server/replication_config.h"

namespace frontier {
namespace {

// OnReply's privdata: which command a reply answers.
int kAuthTag = 0;
int kAnnounceTag = 0;

void SendArgv(redisAsyncContext* link, const std::vector<std::string>& argv,
              void* tag, redisCallbackFn* callback) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const std::string& arg : argv) {
    ptrs.push_back(arg.data());
    lens.push_back(arg.size());
  }
  redisAsyncCommandArgv(link, callback, tag, static_cast<int>(argv.size()),
                        ptrs.data(), lens.data());
}

}  // namespace

ReplicaAnnouncer::ReplicaAnnouncer(event_base* base) : base_(base) {}

ReplicaAnnouncer::~ReplicaAnnouncer() { Close(); }

void ReplicaAnnouncer::Close() {
  if (link_ == nullptr) return;
  redisAsyncContext* link = link_;
  link_ = nullptr;
  waiting_ = false;
  redisAsyncFree(link);  // its callbacks see link_ == nullptr
}

void ReplicaAnnouncer::Announce(const std::string& master,
                                const std::string& repl,
                                const std::string& client, uint64_t offset,
                                const Options& options, int64_t now_ms) {
  if (link_ != nullptr && waiting_) {
    if (now_ms - started_ms_ < options.timeout_ms) return;
    Log(LogLevel::kVerbose,
        "Replication: no answer from the master %s to this site's address "
        "within %lld ms; trying again",
        master_.c_str(), static_cast<long long>(options.timeout_ms));
    Close();
  }
  if (link_ != nullptr && master_ != master) Close();  // a new master
  if (link_ == nullptr && !Connect(master, options)) return;
  waiting_ = true;
  started_ms_ = now_ms;
  SendArgv(link_,
           {"REPLICATION", "ANNOUNCE", repl, client, std::to_string(offset)},
           &kAnnounceTag, &ReplicaAnnouncer::OnReply);
}

bool ReplicaAnnouncer::Connect(const std::string& master,
                               const Options& options) {
  const std::optional<ReplicationSite> to = ParseReplicationSite(master);
  if (!to) return false;
  redisAsyncContext* link = redisAsyncConnect(to->host.c_str(), to->port);
  if (link == nullptr || link->err) {
    Log(LogLevel::kVerbose,
        "Replication: cannot connect to the master %s to announce this "
        "site's address: %s",
        master.c_str(), link != nullptr ? link->errstr : "out of memory");
    if (link != nullptr) redisAsyncFree(link);
    return false;
  }
  link->data = this;
  redisLibeventAttach(link, base_);
  redisAsyncSetConnectCallback(link, &ReplicaAnnouncer::OnConnect);
  redisAsyncSetDisconnectCallback(link, &ReplicaAnnouncer::OnDisconnect);
  link_ = link;
  master_ = master;
  if (!options.pass.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!options.user.empty()) auth.push_back(options.user);
    auth.push_back(options.pass);
    SendArgv(link, auth, &kAuthTag, &ReplicaAnnouncer::OnReply);
  }
  return true;
}

void ReplicaAnnouncer::OnConnect(const redisAsyncContext* ac, int status) {
  auto* self = static_cast<ReplicaAnnouncer*>(ac->data);
  if (status == REDIS_OK || self->link_ != ac) return;
  // hiredis frees the context after this.
  Log(LogLevel::kVerbose,
      "Replication: cannot connect to the master %s to announce this "
      "site's address: %s",
      self->master_.c_str(), ac->errstr);
  self->link_ = nullptr;
  self->waiting_ = false;
}

void ReplicaAnnouncer::OnDisconnect(const redisAsyncContext* ac, int) {
  auto* self = static_cast<ReplicaAnnouncer*>(ac->data);
  if (self->link_ != ac) return;
  self->link_ = nullptr;  // hiredis frees it
  self->waiting_ = false;
}

void ReplicaAnnouncer::OnReply(redisAsyncContext* ac, void* reply,
                               void* privdata) {
  auto* self = static_cast<ReplicaAnnouncer*>(ac->data);
  const auto* r = static_cast<const redisReply*>(reply);
  if (r == nullptr || self->link_ != ac) return;  // closed meanwhile
  const bool refused = r->type == REDIS_REPLY_ERROR;
  if (privdata == &kAuthTag) {
    if (refused) {
      Log(LogLevel::kWarning,
          "Replication: the master %s refused this site's AUTH (set "
          "cluster-auth-user/cluster-auth-pass, or requirepass, as on the "
          "master): %s",
          self->master_.c_str(), r->str);
    }
    return;
  }
  self->waiting_ = false;  // the connection stays for the next one
  if (refused) {
    Log(LogLevel::kVerbose,
        "Replication: the master %s did not take this site's address: %s",
        self->master_.c_str(), r->str);
  } else {
    ++self->accepted_;
  }
}

}  // namespace frontier
