#include "server/backup_runner.h"

#include <system_error>
#include <utility>

namespace frontier {

BackupRunner::BackupRunner(event_base* base) : inbox_(base) {}

BackupRunner::~BackupRunner() { Stop(); }

Status BackupRunner::Start(BackupPlan plan, Done done) {
  if (!inbox_.ok()) {
    DiscardBackup(plan);
    return Status::IOError("backup: cannot start its thread: no eventfd");
  }
  Join();  // the thread of the previous copy, which has ended
  cancel_.store(false);
  const uint64_t generation = generation_;
  const BackupPlan kept = plan;  // for DiscardBackup if the thread fails
  try {
    thread_ = std::thread([this, generation, plan = std::move(plan),
                           done = std::move(done)]() mutable {
      Status s = CopyBackup(plan, cancel_);
      inbox_.Post([this, generation, s, done = std::move(done)] {
        if (generation != generation_) return;  // stopped meanwhile
        Join();
        busy_ = false;
        done(s);
      });
    });
  } catch (const std::system_error& e) {
    DiscardBackup(kept);
    return Status::IOError(std::string("backup: cannot start its thread: ") +
                           e.what());
  }
  busy_ = true;
  return Status::OK();
}

void BackupRunner::Stop() {
  cancel_.store(true);
  ++generation_;
  Join();
  busy_ = false;
}

void BackupRunner::Join() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace frontier
