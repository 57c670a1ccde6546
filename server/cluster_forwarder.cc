#include "server/cluster_forwarder.h"

#include "protocol/reply_writer.h"
#include "server/clock.h"
#include "server/errors.h"
#include "server/hiredis_libevent.h"
#include "server/log.h"
#include "storage/frontier.h"

namespace frontier {
namespace {

constexpr int64_t kDeadlineCheckMs = 100;

// A reply hiredis parsed, written back as RESP for the client.
void WriteReply(ReplyWriter& out, const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.Bulk(std::string_view(r->str, r->len));
      break;
    case REDIS_REPLY_STATUS:
      out.Simple(std::string_view(r->str, r->len));
      break;
    case REDIS_REPLY_ERROR:
      out.Error(std::string_view(r->str, r->len));
      break;
    case REDIS_REPLY_INTEGER:
      out.Int(r->integer);
      break;
    case REDIS_REPLY_ARRAY:
      out.Array(r->elements);
      for (size_t i = 0; i < r->elements; ++i) WriteReply(out, r->element[i]);
      break;
    default:  // REDIS_REPLY_NIL
      out.Null();
      break;
  }
}

RelayedReply ErrorReply(std::string_view line) {
  RelayedReply reply;
  ReplyWriter(&reply.resp).Error(line);
  reply.error = true;
  return reply;
}

}  // namespace

ClusterForwarder::ClusterForwarder(event_base* base, ServerStats& stats,
                                   Deliver deliver)
    : base_(base),
      stats_(stats),
      deliver_(std::move(deliver)),
      pump_timer_(base, Timer::Kind::kOnce, [this] { Pump(); }),
      deadline_timer_(base, Timer::Kind::kPeriodic,
                      [this] { CheckDeadlines(); }) {}

ClusterForwarder::~ClusterForwarder() {
  closing_ = true;
  for (auto& [address, peer] : peers_) {
    if (peer->link != nullptr) {
      redisAsyncContext* link = peer->link;
      peer->link = nullptr;
      redisAsyncFree(link);
    }
  }
}

void ClusterForwarder::Forward(const cluster::Address& to, uint64_t client,
                               const std::string& crawl,
                               std::span<const std::string> argv,
                               int64_t now_ms, uint32_t part) {
  const std::string address = to.ToString();
  std::unique_ptr<Peer>& peer = peers_[address];
  if (!peer) {
    peer = std::make_unique<Peer>();
    peer->owner = this;
    peer->address = address;
    peer->to = to;
  }
  Request request;
  request.client = client;
  request.part = part;
  request.argv.assign(argv.begin(), argv.end());
  request.crawl = crawl;
  // What the command costs on the wire, near enough: its bytes and the
  // RESP framing of each argument.
  request.bytes = 16;
  for (const std::string& arg : argv) request.bytes += arg.size() + 16;
  request.deadline_ms = now_ms + options_.timeout_ms;
  peer->waiting.push_back(std::move(request));
  ++stats_.cluster_forwarded;
  pump_timer_.Fire();
  if (!deadline_timer_.pending()) deadline_timer_.Start(kDeadlineCheckMs);
}

void ClusterForwarder::Pump() {
  const int64_t now = NowMs();
  for (auto& [address, peer_ptr] : peers_) {
    Peer& peer = *peer_ptr;
    if (peer.waiting.empty()) continue;
    if (peer.link == nullptr && !Connect(peer)) continue;
    // The limit lets one command through however big, so none waits
    // forever.
    while (!peer.waiting.empty() &&
           (peer.bytes_in_flight == 0 ||
            peer.bytes_in_flight + peer.waiting.front().bytes <=
                options_.max_bytes)) {
      Request request = std::move(peer.waiting.front());
      peer.waiting.pop_front();
      if (request.crawl != peer.link_crawl) {
        const std::string args[] = {"CRAWL", request.crawl};
        Send(peer, 0, 0, args, 0, request.deadline_ms);
        peer.link_crawl = request.crawl;
      }
      Send(peer, request.client, request.part, request.argv, request.bytes,
           std::max(request.deadline_ms, now));
    }
  }
}

bool ClusterForwarder::Connect(Peer& peer) {
  redisAsyncContext* link =
      redisAsyncConnect(peer.to.host.c_str(), peer.to.port);
  if (link == nullptr || link->err) {
    const std::string why = std::string(errors::kForwardDownPrefix) +
                            "cannot connect to " + peer.address + " (" +
                            (link ? link->errstr : "out of memory") + ")" +
                            std::string(errors::kForwardNotRun);
    if (link != nullptr) redisAsyncFree(link);
    while (!peer.waiting.empty()) {
      const Request gone = std::move(peer.waiting.front());
      peer.waiting.pop_front();
      Fail(gone.client, gone.part, why);
    }
    return false;
  }
  link->data = &peer;
  redisLibeventAttach(link, base_);
  redisAsyncSetConnectCallback(link, &ClusterForwarder::OnConnect);
  redisAsyncSetDisconnectCallback(link, &ClusterForwarder::OnDisconnect);
  peer.link = link;
  peer.link_up = false;
  peer.timed_out.clear();
  peer.link_crawl = std::string(Frontier::kDefaultCrawl);
  if (!options_.pass.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!options_.user.empty()) auth.push_back(options_.user);
    auth.push_back(options_.pass);
    Send(peer, 0, 0, auth, 0, NowMs() + options_.timeout_ms);
  }
  // What arrives on this link is never forwarded again (CLUSTER LINK).
  const std::string link_args[] = {"CLUSTER", "LINK"};
  Send(peer, 0, 0, link_args, 0, NowMs() + options_.timeout_ms);
  return true;
}

void ClusterForwarder::Send(Peer& peer, uint64_t client, uint32_t part,
                            std::span<const std::string> argv, size_t bytes,
                            int64_t deadline_ms) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const std::string& arg : argv) {
    ptrs.push_back(arg.data());
    lens.push_back(arg.size());
  }
  peer.in_flight.push_back(InFlight{client, part, bytes, deadline_ms});
  peer.bytes_in_flight += bytes;
  stats_.cluster_forward_bytes_in_flight += bytes;
  // The callback's privdata is unused: replies come in order.
  redisAsyncCommandArgv(peer.link, &ClusterForwarder::OnReply, nullptr,
                        static_cast<int>(argv.size()), ptrs.data(),
                        lens.data());
}

void ClusterForwarder::OnConnect(const redisAsyncContext* ac, int status) {
  auto* peer = static_cast<Peer*>(ac->data);
  if (status == REDIS_OK) {
    peer->link_up = true;
    return;
  }
  // hiredis frees the context after this; its commands come back to
  // OnReply without a reply, and are answered "not run".
  Log(LogLevel::kVerbose, "Cluster: cannot connect to %s: %s",
      peer->address.c_str(), ac->errstr);
  peer->link = nullptr;
}

void ClusterForwarder::OnDisconnect(const redisAsyncContext* ac, int status) {
  auto* peer = static_cast<Peer*>(ac->data);
  if (status != REDIS_OK && !peer->owner->closing_) {
    Log(LogLevel::kWarning, "Cluster: lost the connection to %s: %s",
        peer->address.c_str(), ac->errstr);
  }
  peer->link = nullptr;
  peer->link_up = false;
  if (!peer->owner->closing_) peer->owner->pump_timer_.Fire();
}

void ClusterForwarder::OnReply(redisAsyncContext* ac, void* reply, void*) {
  auto* peer = static_cast<Peer*>(ac->data);
  ClusterForwarder* self = peer->owner;
  if (peer->in_flight.empty()) return;  // cannot happen: one per command
  const InFlight sent = peer->in_flight.front();
  peer->in_flight.pop_front();
  peer->bytes_in_flight -= sent.bytes;
  self->stats_.cluster_forward_bytes_in_flight -= sent.bytes;
  if (self->closing_) return;
  const auto* r = static_cast<const redisReply*>(reply);
  if (sent.client == 0) {  // AUTH or CRAWL of the connection itself
    if (r != nullptr && r->type == REDIS_REPLY_ERROR) {
      Log(LogLevel::kWarning, "Cluster: %s refused the link's set-up: %s",
          peer->address.c_str(), r->str);
    }
    return;
  }
  if (r == nullptr) {
    // The connection failed with the command in it.
    std::string line;
    if (!peer->timed_out.empty()) {
      line = std::string(errors::kForwardTimeoutPrefix) + peer->timed_out +
             std::string(errors::kForwardMaybeRun);
    } else if (peer->link_up || ac->c.flags & REDIS_CONNECTED) {
      line = std::string(errors::kForwardDownPrefix) +
             "lost the connection to " + peer->address + " (" +
             (ac->err ? ac->errstr : "closed") + ")" +
             std::string(errors::kForwardMaybeRun);
    } else {
      line = std::string(errors::kForwardDownPrefix) + "cannot connect to " +
             peer->address + " (" + (ac->err ? ac->errstr : "closed") + ")" +
             std::string(errors::kForwardNotRun);
    }
    self->Fail(sent.client, sent.part, std::move(line));
  } else {
    RelayedReply relayed;
    ReplyWriter writer(&relayed.resp);
    WriteReply(writer, r);
    relayed.error = r->type == REDIS_REPLY_ERROR;
    if (r->type == REDIS_REPLY_ARRAY) {
      for (size_t i = 0; i < r->elements; ++i) {
        std::string element;
        ReplyWriter element_writer(&element);
        WriteReply(element_writer, r->element[i]);
        relayed.elements.push_back(std::move(element));
      }
    }
    self->deliver_(sent.client, sent.part, std::move(relayed));
  }
  if (!peer->waiting.empty()) self->pump_timer_.Fire();
}

void ClusterForwarder::CheckDeadlines() {
  const int64_t now = NowMs();
  bool busy = false;
  for (auto& [address, peer_ptr] : peers_) {
    Peer& peer = *peer_ptr;
    while (!peer.waiting.empty() && peer.waiting.front().deadline_ms <= now) {
      const Request late = std::move(peer.waiting.front());
      peer.waiting.pop_front();
      Fail(late.client, late.part,
           std::string(errors::kForwardTimeoutPrefix) +
               "no room to forward to " + peer.address + " within " +
               std::to_string(options_.timeout_ms) +
               " ms (cluster-forward-max-bytes)" +
               std::string(errors::kForwardNotRun));
    }
    if (!peer.in_flight.empty() && peer.in_flight.front().deadline_ms <= now &&
        peer.link != nullptr) {
      // Replies come in order: the rest cannot come sooner. Every command
      // on the link is answered (OnReply, without a reply) as it is freed.
      Log(LogLevel::kWarning,
          "Cluster: %s gave no reply within %lld ms; closing the link",
          peer.address.c_str(), static_cast<long long>(options_.timeout_ms));
      peer.timed_out = peer.address + " gave no reply within " +
                       std::to_string(options_.timeout_ms) + " ms";
      const std::string why = peer.timed_out;
      redisAsyncContext* link = peer.link;
      peer.link = nullptr;
      redisAsyncFree(link);  // answers every command on it (OnReply)
      peer.link_up = false;
      peer.timed_out.clear();
      while (!peer.in_flight.empty()) {  // cannot happen, but none is lost
        const InFlight sent = peer.in_flight.front();
        peer.in_flight.pop_front();
        peer.bytes_in_flight -= sent.bytes;
        stats_.cluster_forward_bytes_in_flight -= sent.bytes;
        if (sent.client != 0) {
          Fail(sent.client, sent.part,
               std::string(errors::kForwardTimeoutPrefix) + why +
                   std::string(errors::kForwardMaybeRun));
        }
      }
    }
    busy = busy || !peer.waiting.empty() || !peer.in_flight.empty();
  }
  if (!busy) deadline_timer_.Stop();
}

void ClusterForwarder::Fail(uint64_t client, uint32_t part, std::string line) {
  ++stats_.cluster_forward_errors;
  deliver_(client, part, ErrorReply(line));
}

}  // namespace frontier
