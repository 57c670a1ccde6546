// The Server's BACKUP (server.h): the loop prepares the backup and pins
// the logs (Frontier::BeginBackup), the BackupRunner's thread copies and
// recovers the copy, and its result comes back to the loop, which unpins
// the logs (Frontier::EndBackup) and answers the client that asked. Other
// clients are served all the while (docs/operations.md, "Backup and restore").
#include "server/clock.h"
#include "server/log.h"
#include "server/reply.h"
#include "server/server.h"

namespace frontier {

Status Server::StartBackup(const std::string& target_dir, uint64_t client_id) {
  // Refused while one runs: Frontier::BeginBackup says so (its pin).
  const int64_t begun_ms = NowMs();
  StatusOr<BackupPlan> plan = frontier_.BeginBackup(target_dir);
  if (!plan.ok()) return plan.status();
  const std::string target = plan->target_dir;
  Status s =
      backup_->Start(std::move(plan).value(),
                     [this](const Status& status) { OnBackupDone(status); });
  if (!s.ok()) {
    frontier_.EndBackup();
    return s;
  }
  backup_client_ = client_id;
  backup_target_ = target;
  backup_started_ms_ = begun_ms;
  // What the loop was held for: the checkpoint and the log flush.
  Log(LogLevel::kNotice, "BACKUP to %s started (checkpoint %lld ms)",
      backup_target_.c_str(), static_cast<long long>(NowMs() - begun_ms));
  return Status::OK();
}

void Server::OnBackupDone(const Status& status) {
  frontier_.EndBackup();
  const long long ms = NowMs() - backup_started_ms_;
  if (status.ok()) {
    Log(LogLevel::kNotice, "BACKUP to %s done in %lld ms",
        backup_target_.c_str(), ms);
  } else {
    Log(LogLevel::kWarning, "BACKUP to %s failed after %lld ms: %s",
        backup_target_.c_str(), ms, status.ToString().c_str());
  }
  Connection* conn = Find(backup_client_);
  backup_client_ = 0;
  if (conn == nullptr || conn->state() != Connection::State::kBlocked) {
    return;  // it disconnected meanwhile: the backup stands all the same
  }
  ReplyWriter writer(&conn->pending());
  if (status.ok()) {
    writer.Ok();
  } else {
    ReplyStatus(writer, status);
  }
  Unblock(*conn);
}

void Server::CancelBackup() {
  if (!backup_->busy()) return;
  Log(LogLevel::kWarning, "BACKUP to %s cancelled: the server is stopping",
      backup_target_.c_str());
  backup_->Stop();  // the copy removes what it built
  frontier_.EndBackup();
  Connection* conn = Find(backup_client_);
  backup_client_ = 0;
  if (conn == nullptr || conn->state() != Connection::State::kBlocked) return;
  // Called after the held replies were synced and released: nothing in
  // pending() waits for a sync.
  ReplyWriter writer(&conn->pending());
  ReplyStatus(writer,
              Status::IOError("backup cancelled: the server is stopping"));
  conn->set_state(Connection::State::kOpen);
  conn->ReleasePending();  // sent by DrainOutputs, with the others
}

}  // namespace frontier
