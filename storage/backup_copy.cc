// CopyBackup (backup_copy.h): the half of a hot backup that runs off the
// event loop. It reads the live directory with descriptors of its own and
// never calls the live environment; Berkeley DB is used only for the
// copy's own recovery, in a private environment.
#include "storage/backup_copy.h"

#include <db_cxx.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "storage/bdb.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;

// Writes to the copy go out in blocks of this size.
constexpr size_t kWriteBlock = size_t{1} << 20;

Status Errno(const std::string& what, int err) {
  return Status::IOError("backup: " + what + ": " + std::strerror(err));
}

Status Cancelled() { return Status::IOError("backup cancelled"); }

// Closes a descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status FsyncPath(const fs::path& path, bool directory) {
  Fd fd(::open(path.c_str(),
               (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC));
  if (fd.get() < 0) return Errno("cannot open " + path.string(), errno);
  if (::fsync(fd.get()) != 0) return Errno("fsync " + path.string(), errno);
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
  if (ec) {
    return Status::IOError("backup: cannot list " + dir.string() + ": " +
                           ec.message());
  }
  return FsyncPath(dir, true);
}

Status WriteAll(int fd, const char* data, size_t size, const fs::path& to) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write " + to.string(), errno);
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::OK();
}

// Copies `from` to the new file `to`, reading `unit` bytes at a time at
// offsets that are multiples of it, so that a database page is read by one
// read(2) whole (Berkeley DB's hot-backup procedure). A short read is the
// end of the file as it is now; a piece shorter than `unit` there is a
// page still being written, left to recovery. With `up_to_hole` the copy
// stops at the first hole: a log file is written in order, and its unused
// tail is sparse (storage/frontier_open.cc, TrimLogTail).
Status CopyFile(const fs::path& from, const fs::path& to, size_t unit,
                bool up_to_hole, const std::atomic<bool>& cancel) {
  Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) return Errno("cannot open " + from.string(), errno);
  Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (out.get() < 0) return Errno("cannot create " + to.string(), errno);
  off_t end = -1;  // -1: until a short read
  if (up_to_hole) {
    const off_t hole = ::lseek(in.get(), 0, SEEK_HOLE);
    if (hole >= 0) end = hole;
  }
  const size_t block = std::max(kWriteBlock / unit, size_t{1}) * unit;
  std::unique_ptr<char[]> buf(new char[block]);
  off_t offset = 0;
  for (;;) {
    if (cancel.load(std::memory_order_relaxed)) return Cancelled();
    size_t filled = 0;
    bool at_end = false;
    while (filled < block) {
      size_t want = unit;
      if (end >= 0) {
        const off_t left = end - offset - static_cast<off_t>(filled);
        if (left <= 0) {
          at_end = true;
          break;
        }
        want = std::min(want, static_cast<size_t>(left));
      }
      const ssize_t n = ::pread(in.get(), buf.get() + filled, want,
                                offset + static_cast<off_t>(filled));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Errno("read " + from.string(), errno);
      if (static_cast<size_t>(n) < unit && !up_to_hole) {
        at_end = true;  // the end now, or a page being appended: not kept
        break;
      }
      filled += static_cast<size_t>(n);
      if (static_cast<size_t>(n) < want || n == 0) {
        at_end = true;
        break;
      }
    }
    Status s = WriteAll(out.get(), buf.get(), filled, to);
    if (!s.ok()) return s;
    offset += static_cast<off_t>(filled);
    if (at_end) return Status::OK();
  }
}

std::string LogName(uint32_t number) {
  char name[32];
  std::snprintf(name, sizeof(name), "log.%010u", number);
  return name;
}

// The numbers of the log files in `dir` from `first` on, in order. The
// pinned first one must be there.
StatusOr<std::vector<uint32_t>> LogsFrom(const fs::path& dir, uint32_t first) {
  std::vector<uint32_t> numbers;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != 14 || name.rfind("log.", 0) != 0) continue;
    char* parsed_end = nullptr;
    const unsigned long n = std::strtoul(name.c_str() + 4, &parsed_end, 10);
    if (*parsed_end != '\0' || n < first) continue;
    numbers.push_back(static_cast<uint32_t>(n));
  }
  if (ec) return Errno("cannot list " + dir.string(), ec.value());
  std::sort(numbers.begin(), numbers.end());
  if (numbers.empty() || numbers.front() != first) {
    return Status::IOError("backup: log file " + LogName(first) +
                           " is missing from " + dir.string());
  }
  return numbers;
}

// Catastrophic recovery of the copy in `dir` (db_hotbackup's last steps):
// every log record copied is replayed onto the copied pages, whatever
// state each page was read in, and the logs recovery no longer needs are
// removed from the copy.
Status RecoverCopy(const fs::path& dir, uint64_t cache_bytes) {
  DbEnv env(DB_CXX_NO_EXCEPTIONS);
  env.set_errpfx("frontierd(backup)");
  env.set_errfile(stderr);
  // The process's Berkeley DB allocator is storage/bdb_alloc.h's; memory
  // handed back to callers comes from malloc, as in every environment.
  Status s = bdb::FromDb(env.set_alloc(std::malloc, std::realloc, std::free),
                         "set_alloc");
  if (s.ok()) {
    s = bdb::FromDb(
        env.set_cachesize(static_cast<u_int32_t>(cache_bytes >> 30),
                          static_cast<u_int32_t>(cache_bytes & ((1u << 30) - 1)),
                          1),
        "set_cachesize");
  }
  if (s.ok()) {
    s = bdb::FromDb(env.open(dir.c_str(),
                             DB_CREATE | DB_INIT_LOG | DB_INIT_MPOOL |
                                 DB_INIT_TXN | DB_RECOVER_FATAL | DB_PRIVATE,
                             0644),
                    "recover the copy in '" + dir.string() + "'");
  }
  if (s.ok()) {
    char** unused = nullptr;
    s = bdb::FromDb(env.log_archive(&unused, DB_ARCH_REMOVE), "log_archive");
    if (unused != nullptr) free(unused);
  }
  Status closed = bdb::FromDb(env.close(0), "close the copy's environment");
  return s.ok() ? closed : s;
}

Status BuildCopy(const BackupPlan& plan, const std::atomic<bool>& cancel) {
  const fs::path source(plan.source_dir);
  const fs::path partial(plan.partial_dir);
  // The database files first, then the logs: the write-ahead rule put in
  // the log every change that a copied page holds, before the page.
  for (const BackupPlan::DataFile& file : plan.data_files) {
    Status s = CopyFile(source / file.name, partial / file.name,
                        std::max<uint32_t>(file.page_size, 512),
                        /*up_to_hole=*/false, cancel);
    if (!s.ok()) return s;
  }
  StatusOr<std::vector<uint32_t>> logs = LogsFrom(source, plan.first_log);
  if (!logs.ok()) return logs.status();
  for (uint32_t number : *logs) {
    const std::string name = LogName(number);
    Status s = CopyFile(source / name, partial / name, kWriteBlock,
                        /*up_to_hole=*/true, cancel);
    if (!s.ok()) return s;
  }
  if (cancel.load()) return Cancelled();
  Status s = RecoverCopy(partial, plan.recovery_cache_bytes);
  if (s.ok()) s = FsyncTree(partial);
  return s;
}

}  // namespace

Status CopyBackup(const BackupPlan& plan, const std::atomic<bool>& cancel) {
  Status s = BuildCopy(plan, cancel);
  const fs::path partial(plan.partial_dir);
  const fs::path target(plan.target_dir);
  std::error_code ec;
  if (s.ok()) {
    fs::rename(partial, target, ec);  // replaces an empty directory
    if (ec) {
      s = Status::IOError("backup: cannot rename " + partial.string() +
                          " to " + target.string() + ": " + ec.message());
    }
  }
  if (s.ok()) s = FsyncPath(target.parent_path(), true);
  if (!s.ok()) DiscardBackup(plan);
  return s;
}

void DiscardBackup(const BackupPlan& plan) {
  std::error_code ignored;
  fs::remove_all(plan.partial_dir, ignored);
}

}  // namespace frontier
