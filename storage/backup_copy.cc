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
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "storage/bdb.h"
#include "storage/journal.h"

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

// Writes `size` bytes at the end of `fd` (at `offset`) and pushes them to
// the disk behind: the previous block's writeback is waited for and this
// one's started. A copy of hundreds of MB left dirty for the final fsync
// would flood the disk queue at once, and the server's own log fsyncs
// (which acknowledge writes) would wait behind it; this way at most two
// blocks of the copy are ever in flight.
Status WriteAll(int fd, const char* data, size_t size, off_t offset,
                const fs::path& to) {
  const size_t total = size;
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write " + to.string(), errno);
    data += n;
    size -= static_cast<size_t>(n);
  }
  if (offset > 0) {  // best effort: the final fsync is what counts
    const off_t before =
        std::max<off_t>(offset - static_cast<off_t>(kWriteBlock), 0);
    (void)::sync_file_range(fd, before, offset - before,
                            SYNC_FILE_RANGE_WAIT_BEFORE |
                                SYNC_FILE_RANGE_WRITE |
                                SYNC_FILE_RANGE_WAIT_AFTER);
  }
  (void)::sync_file_range(fd, offset, static_cast<off_t>(total),
                          SYNC_FILE_RANGE_WRITE);
  return Status::OK();
}

// pread until `size` bytes or the end of the file: the bytes read.
StatusOr<size_t> ReadAt(int fd, char* buf, size_t size, off_t offset,
                        const fs::path& from) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n =
        ::pread(fd, buf + got, size - got, offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("read " + from.string(), errno);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

// Copies a database file a block of whole pages at a time. The live
// environment may be writing a page while it is read, and a read that
// meets a write half done would hold half of each (Berkeley DB asks for
// copies in page-size units for this reason; Linux promises nothing of the
// kind). So each block is read twice and a page that differs between the
// reads is read again until two reads in a row agree: a page caught in
// the middle of a write would have to be caught the same way twice. A
// piece shorter than a page at the end is a page being appended, left to
// recovery, which rebuilds it from the log.
Status CopyDatabase(const fs::path& from, const fs::path& to, size_t page,
                    const std::atomic<bool>& cancel) {
  constexpr int kMaxRereads = 1000;
  Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) {
    // Removed since the plan was made (a CRAWL DELETE): the removal is in
    // the log the copy's recovery replays, so there is nothing to copy.
    if (errno == ENOENT) return Status::OK();
    return Errno("cannot open " + from.string(), errno);
  }
  Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (out.get() < 0) return Errno("cannot create " + to.string(), errno);
  const size_t block = std::max(kWriteBlock / page, size_t{1}) * page;
  std::unique_ptr<char[]> first(new char[block]);
  std::unique_ptr<char[]> second(new char[block]);
  for (off_t offset = 0;; offset += static_cast<off_t>(block)) {
    if (cancel.load(std::memory_order_relaxed)) return Cancelled();
    StatusOr<size_t> got = ReadAt(in.get(), first.get(), block, offset, from);
    if (!got.ok()) return got.status();
    const size_t whole = *got / page * page;
    StatusOr<size_t> again =
        ReadAt(in.get(), second.get(), whole, offset, from);
    if (!again.ok()) return again.status();
    if (*again != whole) {
      return Status::IOError("backup: " + from.string() + " shrank");
    }
    for (size_t at = 0; at < whole; at += page) {
      for (int tries = 0;
           std::memcmp(first.get() + at, second.get() + at, page) != 0;
           ++tries) {
        if (tries == kMaxRereads) {
          return Status::IOError("backup: a page of " + from.string() +
                                 " kept changing while read");
        }
        std::memcpy(first.get() + at, second.get() + at, page);
        StatusOr<size_t> re = ReadAt(in.get(), second.get() + at, page,
                                     offset + static_cast<off_t>(at), from);
        if (!re.ok()) return re.status();
        if (*re != page) {
          return Status::IOError("backup: " + from.string() + " shrank");
        }
      }
    }
    Status s = WriteAll(out.get(), first.get(), whole, offset, to);
    if (!s.ok()) return s;
    if (*got < block) return Status::OK();  // the end of the file, now
  }
}

// Copies a log file as far as it is written now: up to its first hole,
// for a log file is written in order and its unused tail is sparse
// (storage/frontier_open.cc, TrimLogTail). A record cut at the end is the
// end of the log for recovery.
Status CopyLog(const fs::path& from, const fs::path& to,
               const std::atomic<bool>& cancel) {
  Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) return Errno("cannot open " + from.string(), errno);
  Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (out.get() < 0) return Errno("cannot create " + to.string(), errno);
  off_t end = ::lseek(in.get(), 0, SEEK_HOLE);
  if (end < 0) end = std::numeric_limits<off_t>::max();  // no hole support
  std::unique_ptr<char[]> buf(new char[kWriteBlock]);
  for (off_t offset = 0; offset < end;) {
    if (cancel.load(std::memory_order_relaxed)) return Cancelled();
    const size_t want = static_cast<size_t>(
        std::min<off_t>(static_cast<off_t>(kWriteBlock), end - offset));
    StatusOr<size_t> got = ReadAt(in.get(), buf.get(), want, offset, from);
    if (!got.ok()) return got.status();
    Status s = WriteAll(out.get(), buf.get(), *got, offset, to);
    if (!s.ok()) return s;
    if (*got < want) break;
    offset += static_cast<off_t>(*got);
  }
  return Status::OK();
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

// The page size a database file's meta page records (db_page.h's DBMETA:
// the magic at bytes 12-15, the page size at 20-23, in the byte order of
// the machine that made it), or 0 if `path` is not a Berkeley DB database.
StatusOr<uint32_t> PageSizeOf(const fs::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Errno("cannot open " + path.string(), errno);
  unsigned char header[24];
  StatusOr<size_t> got = ReadAt(fd.get(), reinterpret_cast<char*>(header),
                                sizeof(header), 0, path);
  if (!got.ok()) return got.status();
  if (*got < sizeof(header)) return 0;
  auto word = [&header](size_t at, bool swapped) {
    uint32_t v = 0;
    std::memcpy(&v, header + at, sizeof(v));
    return swapped ? __builtin_bswap32(v) : v;
  };
  for (bool swapped : {false, true}) {
    const uint32_t magic = word(12, swapped);
    if (magic == DB_BTREEMAGIC || magic == DB_HASHMAGIC ||
        magic == DB_HEAPMAGIC || magic == DB_QAMMAGIC) {
      return word(20, swapped);
    }
  }
  return 0;
}

// Removes the copy's log files its recovery no longer needs, but none from
// the site journal's replay point on (meta.db "journal_from",
// storage/journal.h): the restored server replays the journal from there.
Status RemoveCopiedLogs(DbEnv* env) {
  std::optional<DB_LSN> from;
  {
    bdb::Database meta;
    Status s = meta.Open(env, "meta.db", 0);
    std::string value;
    if (s.ok()) s = meta.Get(nullptr, "journal_from", &value);
    if (s.ok()) {
      DB_LSN lsn{};
      if (!journal::DecodeLsn(value, &lsn)) {
        return Status::Corruption("backup: undecodable journal replay point");
      }
      from = lsn;
    } else if (!s.IsNotFound()) {
      return s;
    }
    if (Status c = meta.Close(); !c.ok()) return c;
  }
  char** unused = nullptr;
  Status s = bdb::FromDb(env->log_archive(&unused, DB_ARCH_ABS), "log_archive");
  if (unused == nullptr) return s;
  for (char** p = unused; s.ok() && *p != nullptr; ++p) {
    const fs::path path(*p);
    const std::string name = path.filename().string();
    const uint32_t number =
        static_cast<uint32_t>(std::strtoul(name.c_str() + 4, nullptr, 10));
    if (from && number >= from->file) continue;
    std::error_code ec;
    fs::remove(path, ec);
    if (ec) s = Status::IOError("backup: cannot remove " + path.string());
  }
  free(unused);
  return s;
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
        env.set_cachesize(
            static_cast<u_int32_t>(cache_bytes >> 30),
            static_cast<u_int32_t>(cache_bytes & ((1u << 30) - 1)), 1),
        "set_cachesize");
  }
  if (s.ok()) {
    s = bdb::FromDb(env.set_app_dispatch(journal::Dispatch),
                    "set_app_dispatch");
  }
  if (s.ok()) {
    s = bdb::FromDb(env.open(dir.c_str(),
                             DB_CREATE | DB_INIT_LOG | DB_INIT_MPOOL |
                                 DB_INIT_TXN | DB_RECOVER_FATAL | DB_PRIVATE,
                             0644),
                    "recover the copy in '" + dir.string() + "'");
  }
  if (s.ok()) s = RemoveCopiedLogs(&env);
  Status closed = bdb::FromDb(env.close(0), "close the copy's environment");
  return s.ok() ? closed : s;
}

Status BuildCopy(const BackupPlan& plan, const std::atomic<bool>& cancel) {
  const fs::path source(plan.source_dir);
  const fs::path partial(plan.partial_dir);
  // The database files first, then the logs: the write-ahead rule put in
  // the log every change that a copied page holds, before the page.
  for (const BackupPlan::DataFile& file : plan.data_files) {
    Status s = CopyDatabase(source / file.name, partial / file.name,
                            std::max<uint32_t>(file.page_size, 512), cancel);
    if (!s.ok()) return s;
  }
  StatusOr<std::vector<uint32_t>> logs = LogsFrom(source, plan.first_log);
  if (!logs.ok()) return logs.status();
  for (uint32_t number : *logs) {
    const std::string name = LogName(number);
    Status s = CopyLog(source / name, partial / name, cancel);
    if (!s.ok()) return s;
  }
  if (cancel.load()) return Cancelled();
  Status s = RecoverCopy(partial, plan.recovery_cache_bytes);
  if (s.ok()) s = FsyncTree(partial);
  return s;
}

}  // namespace

StatusOr<std::vector<BackupPlan::DataFile>> ListDatabaseFiles(
    const std::string& dir) {
  std::vector<BackupPlan::DataFile> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || name.rfind("log.", 0) == 0 ||
        name.rfind("__db.", 0) == 0) {
      continue;
    }
    StatusOr<uint32_t> page_size = PageSizeOf(entry.path());
    if (!page_size.ok()) return page_size.status();
    if (*page_size == 0) continue;  // not a database (frontierd.lock)
    files.push_back({name, *page_size});
  }
  if (ec) return Errno("cannot list " + dir, ec.value());
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return files;
}

Status CopyBackup(const BackupPlan& plan, const std::atomic<bool>& cancel) {
  Status s = BuildCopy(plan, cancel);
  const fs::path partial(plan.partial_dir);
  const fs::path target(plan.target_dir);
  std::error_code ec;
  if (s.ok()) {
    fs::rename(partial, target, ec);  // replaces an empty directory
    if (ec) {
      s = Status::IOError("backup: cannot rename " + partial.string() + " to " +
                          target.string() + ": " + ec.message());
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
