// The Server's FAILOVER (docs/replication.md, "Moving the master on
// purpose"): a planned hand-over of the master role, on the loop thread.
//
//   1. The master checks the target (a connected replica of its group
//      whose client address it knows), notes the end of its own log and
//      steps down (Frontier::HandoverStep kStepDown): from then on it is a
//      replica with its elections off, so nothing more is written
//      anywhere, and a write sent to it is answered READONLY (a Sentinel
//      client reconnects to the master it is then told of).
//   2. Every kHandoverTickMs it asks the target, over the target's RESP
//      port (ReplicaAnnouncer's link, as a replica's announcement), to
//      REPLICATION TAKEOVER <that log end> <deadline>: the target answers
//      TRYAGAIN while its log is shorter, else becomes master (kTakeOver)
//      and answers OK. So the new master has every write the old one
//      acknowledged: nothing is rolled back anywhere. The target refuses
//      a request read after the deadline (wall clock, ms since the epoch:
//      the sites' clocks are assumed within kTakeOverAnswerMs), so one
//      that reaches it late (it was stopped, say) never makes a second
//      master.
//   3. Once this site hears of the new master (NEWMASTER) it turns its
//      elections on again and answers the FAILOVER client +OK.
//   At the deadline (TIMEOUT) before the target's OK, or on ABORT, this
//   site becomes master again (kTakeOver) and answers an error; with a
//   request unanswered at the deadline, not before it is answered or
//   kTakeOverAnswerMs old.
#include "server/auth.h"
#include "server/clock.h"
#include "server/log.h"
#include "server/reply.h"
#include "server/replication_config.h"
#include "server/server.h"

namespace frontier {
namespace {

// How often the target is asked while it catches up.
constexpr int64_t kHandoverTickMs = 5;
// How long one request to the target may go unanswered.
constexpr int64_t kTakeOverAnswerMs = 500;
// After the target's OK, while this site has not heard of the new master:
// how often it asks the group who is master.
constexpr int64_t kAskMasterMs = 100;
// After the target's OK: how long this site waits to hear of the new
// master before it turns its elections on all the same.
constexpr int64_t kFollowGraceMs = 5000;

}  // namespace

Status Server::StartHandover(const std::string& target, int64_t timeout_ms,
                             uint64_t client_id) {
  if (repl_role_ == ReplicationRole::kNone) {
    return Status::InvalidArgument(
        "FAILOVER needs replication yes: this server is a single node");
  }
  if (handover_) {
    return Status::InvalidArgument("FAILOVER already in progress.");
  }
  if (repl_role_ != ReplicationRole::kMaster) {
    return Status::InvalidArgument(
        "FAILOVER is not valid when server is a replica.");
  }
  const ReplicationState state = frontier_.Replication();
  std::optional<Handover> chosen;
  uint64_t best = 0;
  for (const ReplicationPeer& peer : state.peers) {
    const std::string repl =
        FormatReplicationSite(ReplicationSite{peer.host, peer.port});
    const std::string address = ClientAddressOf(repl);
    if (!target.empty()) {
      if (target != address && target != repl) continue;
      if (!peer.connected || address.empty()) {
        return Status::InvalidArgument(
            "FAILOVER target " + target +
            " is not reachable now (not connected, or its client address "
            "not heard yet): nothing changed");
      }
      chosen = Handover{.repl = repl, .address = address};
      break;
    }
    if (!peer.connected || address.empty()) continue;
    const std::optional<ReplicaReport> report = progress_.Find(repl);
    const uint64_t offset = report ? report->offset : 0;
    if (!chosen || offset > best) {
      chosen = Handover{.repl = repl, .address = address};
      best = offset;
    }
  }
  if (!chosen) {
    return Status::InvalidArgument(
        target.empty()
            ? "FAILOVER requires connected replicas: nothing changed"
            : "FAILOVER target " + target +
                  " is not a replica of this group: nothing changed");
  }
  // The pass before this command is committed (an admin command runs
  // outside it): the log ends here, and no more is written on this site.
  const uint64_t offset = frontier_.Replication().log_offset;
  Status s = frontier_.HandoverStep(HandoverStep::kStepDown);
  if (!s.ok()) return s;
  repl_role_ = ReplicationRole::kReplica;
  const int64_t now = NowMs();
  chosen->client = client_id;
  chosen->offset = offset;
  chosen->started_ms = now;
  chosen->deadline_ms = now + timeout_ms;
  handover_ = std::move(chosen);
  if (!handover_timer_) {
    handover_timer_ = std::make_unique<Timer>(
        base_.get(), Timer::Kind::kPeriodic, [this] { HandoverTick(); });
  }
  Log(LogLevel::kNotice,
      "Replication: FAILOVER: stepped down; handing the master role to %s "
      "(%s) once its log reaches %llu",
      handover_->address.c_str(), handover_->repl.c_str(),
      static_cast<unsigned long long>(offset));
  if (!handover_link_) {
    handover_link_ = std::make_unique<ReplicaAnnouncer>(base_.get());
  }
  handover_timer_->Start(kHandoverTickMs);
  HandoverTick();
  return Status::OK();
}

void Server::HandoverTick() {
  if (!handover_) return;
  const int64_t now = NowMs();
  if (handover_->taken_over) {
    const std::string master = frontier_.Replication().master;
    if (master != handover_->repl &&
        now < handover_->deadline_ms + kFollowGraceMs) {
      if (now - handover_->asked_ms >= kAskMasterMs) {
        handover_->asked_ms = now;
        (void)frontier_.HandoverStep(HandoverStep::kAskMaster);
      }
      return;
    }
    if (master != handover_->repl) {
      Log(LogLevel::kWarning,
          "Replication: FAILOVER: %s took over but this site has not heard "
          "of it; elections on again",
          handover_->address.c_str());
    }
    EndHandover(Status::OK());
    return;
  }
  const bool in_flight = handover_->asked_ms != 0 &&
                         now - handover_->asked_ms < kTakeOverAnswerMs;
  if (now >= handover_->deadline_ms && !in_flight) {
    EndHandover(Status::Unavailable(
        "FAILOVER timed out: " + handover_->address +
        " did not take over within the TIMEOUT (its log not caught up, or "
        "no answer)"));
    return;
  }
  if (in_flight || now >= handover_->deadline_ms) return;
  ReplicaAnnouncer::Options options;
  options.timeout_ms = kTakeOverAnswerMs;
  InternalLogin login = InternalCredentials(config_);
  options.user = std::move(login.user);
  options.pass = std::move(login.pass);
  const bool asked = handover_link_->Ask(
      handover_->address,
      {"REPLICATION", "TAKEOVER", std::to_string(handover_->offset),
       std::to_string(handover_->deadline_ms)},
      options, now, [this](bool error, const std::string& text) {
        if (!handover_ || handover_->taken_over) return;
        handover_->asked_ms = 0;
        if (!error) {
          handover_->taken_over = true;
          handover_->asked_ms = NowMs();
          Log(LogLevel::kNotice,
              "Replication: FAILOVER: %s is the master now (%lld ms)",
              handover_->address.c_str(),
              static_cast<long long>(NowMs() - handover_->started_ms));
          return;
        }
        if (text.starts_with("TRYAGAIN")) return;  // asked again next tick
        EndHandover(
            Status::Unavailable("FAILOVER refused by " + handover_->address +
                                ": " + text));
      });
  if (asked) handover_->asked_ms = now;
}

void Server::EndHandover(const Status& error) {
  Handover done = std::move(*handover_);
  handover_.reset();
  handover_timer_->Stop();  // (this may run in its callback)
  Status s;
  if (done.taken_over) {
    s = frontier_.HandoverStep(HandoverStep::kElectionsOn);
  } else {
    // The target never said it took over: a request still in flight is
    // dropped, and this site takes its role back.
    handover_link_->Cancel();
    s = frontier_.HandoverStep(HandoverStep::kTakeOver);
    if (s.ok()) {
      repl_role_ = ReplicationRole::kMaster;
    } else {
      (void)frontier_.HandoverStep(HandoverStep::kElectionsOn);
    }
  }
  if (!s.ok()) {
    Log(LogLevel::kWarning, "Replication: FAILOVER: %s", s.ToString().c_str());
  }
  if (!done.taken_over) {
    Log(LogLevel::kWarning, "Replication: FAILOVER to %s given up (%s)%s",
        done.address.c_str(), error.message().c_str(),
        s.ok() ? "; this site is the master again" : "");
  }
  Connection* conn = Find(done.client);
  if (conn == nullptr || conn->state() != Connection::State::kBlocked) return;
  ReplyWriter writer(&conn->pending());
  if (done.taken_over) {
    writer.Ok();
  } else {
    writer.Error("ERR " + error.message() +
                 (s.ok() ? "; this site is the master again"
                         : "; the group elects a master: " + s.message()));
  }
  Unblock(*conn);
}

Status Server::AbortHandover() {
  if (!handover_) return Status::InvalidArgument("No failover in progress.");
  if (handover_->taken_over) {
    return Status::InvalidArgument(
        "the target has taken over already: too late to abort");
  }
  EndHandover(Status::Unavailable("FAILOVER aborted"));
  return Status::OK();
}

std::string_view Server::HandoverState() const {
  if (!handover_) return "no-failover";
  return handover_->taken_over ? "failover-in-progress" : "waiting-for-sync";
}

Status Server::TakeOverMaster(uint64_t offset, int64_t deadline_ms) {
  if (repl_role_ == ReplicationRole::kMaster) return Status::OK();
  if (repl_role_ != ReplicationRole::kReplica) {
    return Status::InvalidArgument(
        "this server is a single node (replication no)");
  }
  if (config_.repl_priority <= 0) {
    return Status::InvalidArgument(
        "this site has repl-priority 0: it never becomes master");
  }
  if (NowMs() > deadline_ms) {
    return Status::InvalidArgument(
        "the hand-over's deadline has passed: its master takes its role "
        "back");
  }
  const uint64_t own = frontier_.Replication().log_offset;
  if (own < offset) {
    return Status::TryAgain("this site's log ends at " + std::to_string(own) +
                            ", the master's at " + std::to_string(offset));
  }
  Status s = frontier_.HandoverStep(HandoverStep::kTakeOver);
  if (!s.ok()) return s;
  repl_role_ = ReplicationRole::kMaster;
  progress_.Clear();
  Log(LogLevel::kNotice,
      "Replication: this site took over the master role (FAILOVER)");
  // kTakeOver wrote the new master's first record already, without
  // waiting for acknowledgements (Frontier::HandoverStep): this pass
  // commits nothing, and the answer leaves at once.
  return Status::OK();
}

}  // namespace frontier
