// FrontierImpl's side of a hot backup (frontier.h; the copy itself is
// storage/backup_copy.cc): on the thread that owns the environment,
// BeginBackup() brings the files on disk up to date, lists what to copy
// and pins the log files the copy's recovery needs; EndBackup() unpins
// them. In between the environment is used as usual: the copy reads the
// files under it, as Berkeley DB's hot-backup procedure allows, and its
// catastrophic recovery replays the logs over whatever it read.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>

#include "storage/frontier_impl.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;

// True if `inner` is `outer` or lies below it (both canonical).
bool IsWithin(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// The log file names log_archive() lists with `flags` (relative names).
StatusOr<std::set<std::string>> ArchiveList(DbEnv* env, u_int32_t flags) {
  char** list = nullptr;
  Status s = bdb::FromDb(env->log_archive(&list, flags), "log_archive");
  if (!s.ok()) return s;
  std::set<std::string> names;
  if (list != nullptr) {
    for (char** p = list; *p != nullptr; ++p) names.insert(*p);
    free(list);
  }
  return names;
}

// The number of the oldest log file recovery still needs: the first log
// file (DB_ARCH_LOG) after every one no longer in use (no flags). An
// earlier checkpoint may have handed unused ones to the FileSyncer, which
// unlinks them (oldest first) meanwhile, and Berkeley DB's list of unused
// files stops at the first one missing. So the unused ones are listed
// first: a file unlinked after that is missing from both lists or from the
// second only, and the first file after the unused ones is in use either
// way.
StatusOr<uint32_t> FirstLogInUse(DbEnv* env) {
  StatusOr<std::set<std::string>> unused = ArchiveList(env, 0);
  if (!unused.ok()) return unused.status();
  StatusOr<std::set<std::string>> all = ArchiveList(env, DB_ARCH_LOG);
  if (!all.ok()) return all.status();
  // Sorted: log.<10 digits>.
  auto first =
      unused->empty() ? all->begin() : all->upper_bound(*unused->rbegin());
  if (first == all->end() || first->size() != 14) {
    return Status::IOError("backup: no log file in use");
  }
  return static_cast<uint32_t>(std::strtoul(first->c_str() + 4, nullptr, 10));
}

// Validates `target_dir` for a backup of `data_dir`: the canonical target.
StatusOr<fs::path> CheckTarget(const std::string& target_dir,
                               const std::string& data_dir) {
  fs::path target(target_dir);
  if (target_dir.empty() || !target.is_absolute()) {
    return Status::InvalidArgument("backup target '" + target_dir +
                                   "' is not an absolute path");
  }
  std::error_code ec;
  target = fs::weakly_canonical(target, ec);
  if (ec) {
    return Status::InvalidArgument("backup target '" + target_dir +
                                   "': " + ec.message());
  }
  if (!target.has_filename()) target = target.parent_path();
  const fs::path data = fs::weakly_canonical(data_dir, ec);
  // The copy is built in "<target>.partial", which is emptied first.
  const fs::path partial = target.string() + ".partial";
  if (ec || IsWithin(target, data) || IsWithin(data, target) ||
      IsWithin(partial, data) || IsWithin(data, partial)) {
    return Status::InvalidArgument("backup target '" + target_dir +
                                   "' must be outside the data directory '" +
                                   data_dir + "' and not contain it");
  }
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec) || !fs::is_empty(target, ec)) {
      return Status::InvalidArgument("backup target '" + target_dir +
                                     "' exists and is not an empty directory");
    }
  }
  return target;
}

}  // namespace

StatusOr<BackupPlan> FrontierImpl::BeginBackup(const std::string& target_dir) {
  if (closed_) return Status::IOError("frontier is closed");
  if (backup_pinned_) {
    return Status::InvalidArgument(
        "a backup is already in progress: wait for its reply");
  }
  if (Status s = EndOpenPass(); !s.ok()) return s;
  StatusOr<fs::path> target = CheckTarget(target_dir, opts_.dir);
  if (!target.ok()) return target.status();
  BackupPlan plan;
  plan.source_dir = opts_.dir;
  plan.target_dir = target->string();
  plan.partial_dir = plan.target_dir + ".partial";
  // Built under another name and renamed when complete, so `target_dir`
  // never holds half a backup. A leftover of an interrupted BACKUP is
  // replaced.
  std::error_code ec;
  fs::remove_all(plan.partial_dir, ec);
  if (!ec) fs::create_directories(plan.partial_dir, ec);
  if (ec) {
    return Status::IOError("backup: cannot create " + plan.partial_dir + ": " +
                           ec.message());
  }
  // Dirty pages go to the database files and the log is flushed: the files
  // on disk hold every commit so far. No transaction is open (the pass
  // ended), so the logs from the checkpoint's on are all recovery needs.
  // Pinned before the checkpoint, so that it hands no log file to the
  // FileSyncer: only removals queued by earlier checkpoints, of files
  // unused then and now, may still be under way (see FirstLogInUse).
  backup_pinned_ = true;
  Status s = Checkpoint();
  if (s.ok()) {
    StatusOr<uint32_t> first = FirstLogInUse(env_.get());
    s = first.status();
    if (s.ok()) plan.first_log = *first;
    // The site journal's replay reads from its replay point's file on
    // (the checkpoint just stored one).
    if (const std::optional<DB_LSN> from = sites_.replay_from()) {
      plan.first_log = std::min(plan.first_log, from->file);
    }
  }
  // Every database file of the directory, not only those open here: a
  // file of another crawl, or one created since the start, is copied too.
  if (s.ok()) {
    StatusOr<std::vector<BackupPlan::DataFile>> files =
        ListDatabaseFiles(opts_.dir);
    s = files.status();
    if (s.ok()) plan.data_files = std::move(files).value();
    if (s.ok() && plan.data_files.empty()) {
      s = Status::IOError("backup: no database file in " + opts_.dir);
    }
  }
  // Berkeley DB's flag for a hot backup: operations that would skip the
  // log (bulk loads) log as usual while it is set.
  if (s.ok()) {
    s = bdb::FromDb(env_->set_flags(DB_HOTBACKUP_IN_PROGRESS, 1),
                    "set_flags(DB_HOTBACKUP_IN_PROGRESS)");
  }
  if (!s.ok()) {
    backup_pinned_ = false;
    fs::remove_all(plan.partial_dir, ec);
    return s;
  }
  return plan;
}

void FrontierImpl::EndBackup() {
  if (!backup_pinned_) return;
  backup_pinned_ = false;
  if (!closed_) (void)env_->set_flags(DB_HOTBACKUP_IN_PROGRESS, 0);
}

Status FrontierImpl::Backup(const std::string& target_dir) {
  StatusOr<BackupPlan> plan = BeginBackup(target_dir);
  if (!plan.ok()) return plan.status();
  const std::atomic<bool> never_cancelled{false};
  Status s = CopyBackup(*plan, never_cancelled);
  EndBackup();
  return s;
}

}  // namespace frontier
