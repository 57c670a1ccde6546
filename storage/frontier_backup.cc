// FrontierImpl::Backup: a hot backup of the data directory (frontier.h).
//
// The server calls it on its event loop, so nothing else touches the
// environment while it runs: after the checkpoint, the database files on
// disk hold every committed transaction and nothing changes them until
// the copy is done. DbEnv::backup copies the database files and then the
// log files, as Berkeley DB's documented hot-backup procedure does, so
// the copy would stay recoverable even if a writer did run meanwhile.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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

Status FsyncPath(const fs::path& path, bool directory) {
  int fd = ::open(path.c_str(),
                  (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    return Status::IOError("backup: cannot open " + path.string() + ": " +
                           std::strerror(errno));
  }
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) {
    return Status::IOError("backup: fsync " + path.string() + ": " +
                           std::strerror(err));
  }
  return Status::OK();
}

// Makes a finished copy durable: its files, then the directory itself.
Status FsyncTree(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    Status s = FsyncPath(entry.path(), false);
    if (!s.ok()) return s;
  }
  if (ec)
    return Status::IOError("backup: cannot list " + dir.string() + ": " +
                           ec.message());
  return FsyncPath(dir, true);
}

}  // namespace

Status FrontierImpl::Backup(const std::string& target_dir) {
  if (closed_) return Status::IOError("frontier is closed");
  if (Status s = EndOpenPass(); !s.ok()) return s;
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
  const fs::path data = fs::weakly_canonical(opts_.dir, ec);
  if (ec || IsWithin(target, data) || IsWithin(data, target)) {
    return Status::InvalidArgument("backup target '" + target_dir +
                                   "' must be outside the data directory '" +
                                   opts_.dir + "' and not contain it");
  }
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec) || !fs::is_empty(target, ec)) {
      return Status::InvalidArgument("backup target '" + target_dir +
                                     "' exists and is not an empty directory");
    }
  }
  fs::create_directories(target.parent_path(), ec);
  if (ec) {
    return Status::IOError("backup: cannot create " +
                           target.parent_path().string() + ": " + ec.message());
  }
  // Copied under another name and renamed when complete, so `target_dir`
  // never holds half a backup. A leftover from an interrupted BACKUP is
  // replaced.
  const fs::path partial = target.string() + ".partial";
  fs::remove_all(partial, ec);
  if (ec) {
    return Status::IOError("backup: cannot remove " + partial.string() + ": " +
                           ec.message());
  }

  // Dirty pages go to the database files and logs no longer needed are
  // removed: the copy is small and its recovery replays little.
  Status s = CheckpointAndDropLogs(/*drop_now=*/true);
  if (!s.ok()) return s;
  s = bdb::FromDb(env_->backup(partial.c_str(), DB_CREATE),
                  "backup to '" + partial.string() + "'");
  if (s.ok()) s = FsyncTree(partial);
  if (s.ok()) {
    fs::rename(partial, target, ec);  // replaces an empty directory
    if (ec) {
      s = Status::IOError("backup: cannot rename " + partial.string() + " to " +
                          target.string() + ": " + ec.message());
    }
  }
  if (s.ok()) s = FsyncPath(target.parent_path(), true);
  if (!s.ok()) {
    std::error_code ignored;
    fs::remove_all(partial, ignored);
  }
  return s;
}

}  // namespace frontier
