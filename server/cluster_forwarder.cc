#include "server/cluster_forwarder.h"

#include <hiredis/hiredis.h>

#include "protocol/reply_writer.h"
#include "server/clock.h"
#include "server/errors.h"
#include "server/log.h"
#include "storage/frontier.h"

namespace frontier {
namespace {

constexpr int64_t kDeadlineCheckMs = 100;
// How often a held command is sent again (ClusterForwarder::Hold).
constexpr int64_t kHoldRetryMs = 200;

// The node a "MOVED <slot> <host>:<port>" reply names.
std::optional<cluster::Address> MovedTo(const redisReply* r) {
  if (r == nullptr || r->type != REDIS_REPLY_ERROR) return std::nullopt;
  const std::string_view line(r->str, r->len);
  if (!line.starts_with(errors::kMovedPrefix)) return std::nullopt;
  const size_t space = line.rfind(' ');
  cluster::Address to;
  std::string error;
  if (!cluster::ParseAddress(line.substr(space + 1), &to, &error)) {
    return std::nullopt;
  }
  return to;
}

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
                                   Shards shards, Deliver deliver)
    : base_(base),
      stats_(stats),
      shards_(std::move(shards)),
      deliver_(std::move(deliver)),
      pump_timer_(base, Timer::Kind::kOnce, [this] { Pump(); }),
      deadline_timer_(base, Timer::Kind::kPeriodic,
                      [this] { CheckDeadlines(); }) {}

ClusterForwarder::~ClusterForwarder() {
  closing_ = true;  // destroying a link calls nothing
}

ClusterForwarder::Request ClusterForwarder::MakeRequest(
    uint64_t client, const std::string& crawl,
    std::span<const std::string> argv, int64_t now_ms, uint32_t part) const {
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
  return request;
}

void ClusterForwarder::Forward(const cluster::Address& to, uint64_t client,
                               const std::string& crawl,
                               std::span<const std::string> argv,
                               int64_t now_ms, uint32_t part) {
  ++stats_.cluster_forwarded;
  Enqueue(to, MakeRequest(client, crawl, argv, now_ms, part));
}

void ClusterForwarder::ForwardToShard(size_t shard, uint64_t client,
                                      const std::string& crawl,
                                      std::span<const std::string> argv,
                                      int64_t now_ms, uint32_t part,
                                      bool hold) {
  ++stats_.cluster_forwarded;
  Request request = MakeRequest(client, crawl, argv, now_ms, part);
  if (hold && options_.hold_ms > 0) {
    request.shard = shard;
    request.hold_until_ms = now_ms + options_.hold_ms;
  }
  const std::optional<cluster::Address> to = shards_.master_of(shard);
  if (!to) {
    // Cannot happen (the caller just placed it), but never answered from
    // inside Forward: held with its hold over, answered at the next check.
    request.shard = shard;
    request.hold_until_ms = now_ms;
    held_bytes_ += request.bytes;
    held_.push_back(Held{std::move(request), now_ms, "no such shard"});
    if (!deadline_timer_.pending()) deadline_timer_.Start(kDeadlineCheckMs);
    return;
  }
  Enqueue(*to, std::move(request));
}

void ClusterForwarder::Enqueue(const cluster::Address& to, Request request) {
  const std::string address = to.ToString();
  std::unique_ptr<Peer>& peer = peers_[address];
  if (!peer) {
    peer = std::make_unique<Peer>();
    peer->address = address;
    peer->to = to;
  }
  peer->waiting.push_back(std::move(request));
  pump_timer_.Fire();
  if (!deadline_timer_.pending()) deadline_timer_.Start(kDeadlineCheckMs);
}

void ClusterForwarder::Pump() {
  closed_links_.clear();
  const int64_t now = NowMs();
  for (auto& [address, peer_ptr] : peers_) {
    Peer& peer = *peer_ptr;
    if (peer.waiting.empty()) continue;
    if (peer.link == nullptr && !Connect(peer)) continue;
    // The limit lets one command through however big, so none waits
    // forever.
    while (!peer.waiting.empty() && peer.link != nullptr &&
           (peer.bytes_in_flight == 0 ||
            peer.bytes_in_flight + peer.waiting.front().bytes <=
                options_.max_bytes)) {
      Request request = std::move(peer.waiting.front());
      peer.waiting.pop_front();
      if (request.crawl != peer.link_crawl) {
        const std::string args[] = {"CRAWL", request.crawl};
        Send(peer, InFlight{0, 0, 0, request.deadline_ms, std::nullopt}, args);
        peer.link_crawl = request.crawl;
        if (peer.link == nullptr) {  // it failed at once: a new one later
          peer.waiting.push_front(std::move(request));
          break;
        }
      }
      InFlight sent{request.client, request.part, request.bytes,
                    std::max(request.deadline_ms, now), std::nullopt};
      if (request.shard) {  // kept to be sent again; Send sends its argv
        sent.request = std::move(request);
        Send(peer, std::move(sent), {});
      } else {
        Send(peer, std::move(sent), request.argv);
      }
    }
  }
}

bool ClusterForwarder::Connect(Peer& peer) {
  Peer* at = &peer;
  InternalLink::Callbacks callbacks;
  callbacks.reply = [this, at](const redisReply* r) { OnReply(*at, r); };
  callbacks.closed = [this, at] { OnClosed(*at); };
  StatusOr<std::unique_ptr<InternalLink>> link =
      InternalLink::Open(base_, peer.to, options_.tls, std::move(callbacks));
  if (!link.ok()) {
    const std::string why = std::string(errors::kForwardDownPrefix) +
                            link.status().message() +
                            std::string(errors::kForwardNotRun);
    const int64_t now = NowMs();
    while (!peer.waiting.empty()) {
      Request gone = std::move(peer.waiting.front());
      peer.waiting.pop_front();
      if (!Hold(gone, peer.address, why, false, now + kHoldRetryMs)) {
        Fail(gone.client, gone.part, why);
      }
    }
    return false;
  }
  peer.link = std::move(link).value();
  peer.link_crawl = std::string(Frontier::kDefaultCrawl);
  if (!options_.pass.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!options_.user.empty()) auth.push_back(options_.user);
    auth.push_back(options_.pass);
    Send(peer, InFlight{0, 0, 0, NowMs() + options_.timeout_ms, std::nullopt},
         auth);
  }
  // What arrives on this link is never forwarded again (CLUSTER LINK).
  const std::string link_args[] = {"CLUSTER", "LINK"};
  Send(peer, InFlight{0, 0, 0, NowMs() + options_.timeout_ms, std::nullopt},
       link_args);
  return true;
}

void ClusterForwarder::Send(Peer& peer, InFlight sent,
                            std::span<const std::string> argv) {
  peer.bytes_in_flight += sent.bytes;
  stats_.cluster_forward_bytes_in_flight += sent.bytes;
  peer.in_flight.push_back(std::move(sent));
  const InFlight& last = peer.in_flight.back();
  // Replies come in order. (A link that cannot buffer the command fails
  // at once, answering it among the rest.)
  peer.link->Send(last.request ? std::span<const std::string>(last.request->argv)
                               : argv);
}

void ClusterForwarder::OnClosed(Peer& peer) {
  if (!closing_) {
    Log(peer.link->connected() ? LogLevel::kWarning : LogLevel::kVerbose,
        "Cluster: %s %s: %s",
        peer.link->connected() ? "lost the connection to" : "cannot connect to",
        peer.address.c_str(), peer.link->error().c_str());
  }
  closed_links_.push_back(std::move(peer.link));
  if (!closing_) pump_timer_.Fire();
}

std::optional<std::string> ClusterForwarder::NotServing(const redisReply* r) {
  if (r == nullptr || r->type != REDIS_REPLY_ERROR) return std::nullopt;
  const std::string_view line(r->str, r->len);
  for (const std::string_view prefix :
       {"READONLY ", "REPLICA ", "NOREPLICAS ", "NOQUORUM "}) {
    if (line.starts_with(prefix)) return std::string(line);
  }
  return std::nullopt;
}

void ClusterForwarder::OnReply(Peer& peer_ref, const redisReply* r) {
  Peer* peer = &peer_ref;
  if (peer->in_flight.empty()) return;  // cannot happen: one per command
  InFlight sent = std::move(peer->in_flight.front());
  peer->in_flight.pop_front();
  peer->bytes_in_flight -= sent.bytes;
  stats_.cluster_forward_bytes_in_flight -= sent.bytes;
  if (closing_) return;
  if (sent.client == 0) {  // AUTH or CRAWL of the connection itself
    if (r != nullptr && r->type == REDIS_REPLY_ERROR) {
      Log(LogLevel::kWarning, "Cluster: %s refused the link's set-up: %s",
          peer->address.c_str(), r->str);
    }
    return;
  }
  const int64_t now = NowMs();
  if (r == nullptr) {
    // The connection failed with the command in it.
    std::string line;
    bool held = false;
    if (peer->link->connected()) {
      line = std::string(errors::kForwardDownPrefix) +
             "lost the connection to " + peer->address + " (" +
             peer->link->error() + ")" +
             std::string(errors::kForwardMaybeRun);
      held = sent.request &&
             Hold(*sent.request, peer->address, line, true,
                        now + kHoldRetryMs);
    } else {
      line = std::string(errors::kForwardDownPrefix) + "cannot connect to " +
             peer->address + " (" + peer->link->error() + ")" +
             std::string(errors::kForwardNotRun);
      held = sent.request &&
             Hold(*sent.request, peer->address, line, false,
                        now + kHoldRetryMs);
    }
    if (!held) Fail(sent.client, sent.part, std::move(line));
  } else if (std::optional<std::string> why = NotServing(r);
             why && sent.request &&
             Hold(*sent.request, peer->address, *why,
                        why->starts_with("NOQUORUM"), now + kHoldRetryMs)) {
    // Held: a replica, or a master without its quorum.
  } else if (std::optional<cluster::Address> to = MovedTo(r);
             to && sent.request && sent.request->shard &&
             shards_.redirect(*sent.request->shard, *to) &&
             Hold(*sent.request, peer->address,
                        std::string(r->str, r->len), false, now)) {
    // Held, and sent at once to the member the MOVED names.
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
    deliver_(sent.client, sent.part, std::move(relayed));
  }
  if (!peer->waiting.empty()) pump_timer_.Fire();
}

bool ClusterForwarder::Hold(Request& request, const std::string& from,
                            std::string why, bool maybe_run,
                            int64_t next_try_ms) {
  if (!request.shard) return false;
  if (held_bytes_ + request.bytes > options_.max_bytes) {
    Log(LogLevel::kVerbose,
        "Cluster: held commands at cluster-forward-max-bytes; one for %s "
        "gets its error now",
        from.c_str());
    return false;
  }
  request.maybe_run = request.maybe_run || maybe_run;
  if (!request.held) ++stats_.cluster_forward_held;
  request.held = true;
  shards_.pass_over(*request.shard, from);
  held_bytes_ += request.bytes;
  stats_.cluster_forward_held_bytes = held_bytes_;
  held_.push_back(Held{std::move(request), next_try_ms, std::move(why)});
  if (!deadline_timer_.pending()) deadline_timer_.Start(kDeadlineCheckMs);
  return true;
}

bool ClusterForwarder::NoLongerMaster(size_t shard,
                                      const std::string& address) const {
  const std::optional<cluster::Address> master = shards_.master_of(shard);
  return master && master->ToString() != address;
}

void ClusterForwarder::ResendHeld(int64_t now) {
  std::deque<Held> still;
  std::deque<Held> due;
  due.swap(held_);
  for (Held& held : due) {
    if (held.next_try_ms > now) {
      still.push_back(std::move(held));
      continue;
    }
    Request request = std::move(held.request);
    held_bytes_ -= request.bytes;
    if (now >= request.hold_until_ms) {
      Fail(request.client, request.part,
           std::string(errors::kForwardDownPrefix) + "shard " +
               shards_.name_of(*request.shard) +
               " has no reachable master within cluster-failover-hold (" +
               std::to_string(options_.hold_ms) + " ms; last: " + held.why +
               ")" +
               std::string(request.maybe_run ? errors::kForwardMaybeRun
                                             : errors::kForwardNotRun));
      continue;
    }
    const std::optional<cluster::Address> to =
        shards_.master_of(*request.shard);
    if (!to) {
      Fail(request.client, request.part,
           std::string(errors::kForwardDownPrefix) +
               "the cluster map changed while the command was held" +
               std::string(errors::kForwardNotRun));
      continue;
    }
    request.deadline_ms = now + options_.timeout_ms;
    Enqueue(*to, std::move(request));
  }
  for (Held& held : still) held_.push_back(std::move(held));
  stats_.cluster_forward_held_bytes = held_bytes_;
}

void ClusterForwarder::CheckDeadlines() {
  const int64_t now = NowMs();
  ResendHeld(now);
  bool busy = !held_.empty();
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
      // Replies come in order: the rest cannot come sooner. Destroying the
      // link calls nothing: every command on it is answered here.
      Log(LogLevel::kWarning,
          "Cluster: %s gave no reply within %lld ms; closing the link",
          peer.address.c_str(), static_cast<long long>(options_.timeout_ms));
      const std::string why = peer.address + " gave no reply within " +
                              std::to_string(options_.timeout_ms) + " ms";
      peer.link.reset();
      while (!peer.in_flight.empty()) {
        InFlight sent = std::move(peer.in_flight.front());
        peer.in_flight.pop_front();
        peer.bytes_in_flight -= sent.bytes;
        stats_.cluster_forward_bytes_in_flight -= sent.bytes;
        if (sent.client == 0) continue;
        const std::string line = std::string(errors::kForwardTimeoutPrefix) +
                                 why + std::string(errors::kForwardMaybeRun);
        // A node that stopped answering while another member became its
        // shard's master (a master stopping during a failover): the
        // command goes to the new master. Otherwise the node may be
        // running it: TIMEOUT.
        if (!sent.request || !sent.request->shard ||
            !NoLongerMaster(*sent.request->shard, peer.address) ||
            !Hold(*sent.request, peer.address, line, true, now)) {
          Fail(sent.client, sent.part, line);
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
