#include "server/replication_announcer.h"

#include <vector>

#include "server/hiredis_libevent.h"
#include "server/log.h"
#include "server/replication_config.h"

namespace frontier {
namespace {

// OnReply's privdata: which command a reply answers.
int kAuthTag = 0;
int kAskTag = 0;

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
  (void)Ask(master,
            {"REPLICATION", "ANNOUNCE", repl, client, std::to_string(offset)},
            options, now_ms, [this](bool error, const std::string& text) {
              if (!error) {
                ++accepted_;
                return;
              }
              Log(LogLevel::kVerbose,
                  "Replication: the master %s did not take this site's "
                  "address: %s",
                  site_.c_str(), text.c_str());
            });
}

bool ReplicaAnnouncer::Ask(const std::string& to,
                           const std::vector<std::string>& argv,
                           const Options& options, int64_t now_ms,
                           Answer answer) {
  if (link_ != nullptr && waiting_) {
    if (now_ms - started_ms_ < options.timeout_ms) return false;
    Log(LogLevel::kVerbose,
        "Replication: no answer from %s within %lld ms; trying again",
        site_.c_str(), static_cast<long long>(options.timeout_ms));
    Close();
  }
  if (link_ != nullptr && site_ != to) Close();  // another site
  if (link_ == nullptr && !Connect(to, options)) return false;
  waiting_ = true;
  started_ms_ = now_ms;
  answer_ = std::move(answer);
  SendArgv(link_, argv, &kAskTag, &ReplicaAnnouncer::OnReply);
  return true;
}

bool ReplicaAnnouncer::Connect(const std::string& master,
                               const Options& options) {
  const std::optional<ReplicationSite> to = ParseReplicationSite(master);
  if (!to) return false;
  redisAsyncContext* link = redisAsyncConnect(to->host.c_str(), to->port);
  if (link == nullptr || link->err) {
    Log(LogLevel::kVerbose,
        "Replication: cannot connect to the site %s: %s", master.c_str(),
        link != nullptr ? link->errstr : "out of memory");
    if (link != nullptr) redisAsyncFree(link);
    return false;
  }
  link->data = this;
  redisLibeventAttach(link, base_);
  redisAsyncSetConnectCallback(link, &ReplicaAnnouncer::OnConnect);
  redisAsyncSetDisconnectCallback(link, &ReplicaAnnouncer::OnDisconnect);
  link_ = link;
  site_ = master;
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
      "Replication: cannot connect to the site %s: %s",
      self->site_.c_str(), ac->errstr);
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
          self->site_.c_str(), r->str);
    }
    return;
  }
  self->waiting_ = false;  // the connection stays for the next one
  Answer answer = std::move(self->answer_);
  self->answer_ = nullptr;
  const bool text = r->type == REDIS_REPLY_ERROR ||
                    r->type == REDIS_REPLY_STATUS ||
                    r->type == REDIS_REPLY_STRING;
  // May start the next request on this link.
  if (answer) answer(refused, text ? std::string(r->str, r->len) : "");
}

}  // namespace frontier
