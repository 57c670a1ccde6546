// The power-loss recorder's core (recorder.h): the state of the
// descriptors and inodes it follows, the record stream, the kill trigger,
// and one traced form of each call the LD_PRELOAD shims
// (powerloss_preload.cc) interpose.
//
// Untracked descriptors cost one array read: write() may run in a signal
// handler, so that path takes no lock and allocates nothing.
#include "powerloss/recorder.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "powerloss/trace_format.h"

namespace frontier::powerloss::recorder {

Real real;

namespace {

using frontier::powerloss::kRecordMagic;
using frontier::powerloss::Op;
using frontier::powerloss::RecordHeader;

constexpr int kMaxFds = 1 << 16;
constexpr int64_t kDirFd = -1;  // ids_[fd] of a descriptor of the dir itself

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
char dir[PATH_MAX];  // realpath of POWERLOSS_DIR; empty = record nothing
size_t dir_len = 0;
int trace_fd = -1;
uint64_t next_seq = 0;
uint64_t next_id = 1;
std::atomic<int64_t> ids[kMaxFds];  // 0 = untracked
std::atomic<bool> dsync[kMaxFds];   // opened with O_SYNC/O_DSYNC
std::atomic<ino_t> inos[kMaxFds];   // the inode a tracked descriptor was
char kill_event[32];
char arm_path[PATH_MAX];
long kill_at = 0;
long kill_count = 0;

struct Inode {
  dev_t dev;
  ino_t ino;
  uint64_t id;
};
std::vector<Inode>* inodes;  // under mu

template <typename F>
void Resolve(F* f, const char* name) {
  *f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// Resolves the real functions; idempotent, so that a call made before the
// constructor ran (another library's initialiser) still works.
void ResolveAll() {
  static std::atomic<bool> done{false};
  if (done.load()) return;
  Resolve(&real.open, "open");
  Resolve(&real.openat, "openat");
  Resolve(&real.write, "write");
  Resolve(&real.writev, "writev");
  Resolve(&real.pwrite, "pwrite");
  Resolve(&real.pwritev, "pwritev");
  Resolve(&real.pwritev2, "pwritev2");
  Resolve(&real.ftruncate, "ftruncate");
  Resolve(&real.fsync, "fsync");
  Resolve(&real.fdatasync, "fdatasync");
  Resolve(&real.sync_file_range, "sync_file_range");
  Resolve(&real.sync, "sync");
  Resolve(&real.syncfs, "syncfs");
  Resolve(&real.renameat2, "renameat2");
  Resolve(&real.renameat, "renameat");
  Resolve(&real.rename, "rename");
  Resolve(&real.unlinkat, "unlinkat");
  Resolve(&real.unlink, "unlink");
  Resolve(&real.close, "close");
  done.store(true);
}

__attribute__((constructor)) void Init() {
  ResolveAll();
  pthread_mutex_lock(&mu);
  inodes = new std::vector<Inode>();
  pthread_mutex_unlock(&mu);
  const char* d = getenv("POWERLOSS_DIR");
  const char* t = getenv("POWERLOSS_TRACE");
  if (d == nullptr || t == nullptr) return;
  if (realpath(d, dir) == nullptr) {
    dir[0] = '\0';
    return;
  }
  dir_len = strlen(dir);
  trace_fd = real.open(t, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (trace_fd < 0) dir[0] = '\0';
  dir_len = strlen(dir);
  if (const char* a = getenv("POWERLOSS_ARM")) {
    snprintf(arm_path, sizeof(arm_path), "%s", a);
  }
  if (const char* k = getenv("POWERLOSS_KILL")) {
    const char* colon = strchr(k, ':');
    if (colon != nullptr &&
        static_cast<size_t>(colon - k) < sizeof(kill_event)) {
      memcpy(kill_event, k, colon - k);
      kill_event[colon - k] = '\0';
      kill_at = strtol(colon + 1, nullptr, 10);
    }
  }
}

// The name of `path` inside the dir, written to `name`: true if `path`
// (relative to `at`, a descriptor or AT_FDCWD) is a top-level entry of the
// dir, or the dir itself (then `name` is empty).
bool NameIn(int at, const char* path, char (&name)[PATH_MAX]) {
  if (dir_len == 0 || path == nullptr) return false;
  char full[2 * PATH_MAX];
  if (path[0] == '/') {
    snprintf(full, sizeof(full), "%s", path);
  } else {
    char base[PATH_MAX];
    if (at == AT_FDCWD) {
      if (getcwd(base, sizeof(base)) == nullptr) return false;
    } else if (at >= 0 && at < kMaxFds && ids[at].load() == kDirFd) {
      snprintf(base, sizeof(base), "%s", dir);
    } else {
      return false;
    }
    snprintf(full, sizeof(full), "%s/%s", base, path);
  }
  // Collapse "//" and "/./"; drop a trailing "/" or "/.".
  char clean[2 * PATH_MAX];
  size_t n = 0;
  for (const char* p = full; *p != '\0';) {
    if (*p == '/') {
      while (*p == '/') ++p;
      if (p[0] == '.' && (p[1] == '/' || p[1] == '\0')) {
        ++p;
        continue;
      }
      if (p[0] == '.' && p[1] == '.') return false;
      if (*p == '\0') break;
      clean[n++] = '/';
      continue;
    }
    clean[n++] = *p++;
  }
  clean[n] = '\0';
  if (strncmp(clean, dir, dir_len) != 0) return false;
  const char* rest = clean + dir_len;
  if (*rest == '\0') {
    name[0] = '\0';
    return true;
  }
  if (*rest != '/' || strchr(rest + 1, '/') != nullptr) return false;
  snprintf(name, PATH_MAX, "%s", rest + 1);
  return true;
}

// Appends one record; `mu` held. Returns its seq.
uint64_t Append(Op op, uint64_t id, uint64_t offset, const char* name,
                const char* name2, const struct iovec* iov, int iovcnt,
                uint64_t length) {
  RecordHeader h{};
  h.magic = kRecordMagic;
  h.op = static_cast<uint8_t>(op);
  h.seq = next_seq++;
  h.id = id;
  h.offset = offset;
  h.length = length;
  h.name_len = name ? static_cast<uint32_t>(strlen(name)) : 0;
  h.name2_len = name2 ? static_cast<uint32_t>(strlen(name2)) : 0;
  std::vector<char> buf(sizeof(h) + h.name_len + h.name2_len + length);
  char* p = buf.data();
  memcpy(p, &h, sizeof(h));
  p += sizeof(h);
  if (h.name_len) memcpy(p, name, h.name_len);
  p += h.name_len;
  if (h.name2_len) memcpy(p, name2, h.name2_len);
  p += h.name2_len;
  uint64_t left = length;
  for (int i = 0; i < iovcnt && left > 0; ++i) {
    const uint64_t take = iov[i].iov_len < left ? iov[i].iov_len : left;
    memcpy(p, iov[i].iov_base, take);
    p += take;
    left -= take;
  }
  for (size_t done = 0; done < buf.size();) {
    const ssize_t w =
        real.write(trace_fd, buf.data() + done, buf.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) abort();  // a lost record would make the model lie
    done += static_cast<size_t>(w);
  }
  return h.seq;
}

// Counts an event of kind `event`; at the trigger's n-th, records the cut
// and kills the process. `mu` held.
void MaybeCut(const char* event) {
  if (kill_at <= 0 || strcmp(event, kill_event) != 0) return;
  static bool armed = false;
  if (!armed && arm_path[0] != '\0') {
    struct stat st;
    if (stat(arm_path, &st) != 0) return;
  }
  armed = true;
  if (++kill_count != kill_at) return;
  Append(Op::kCut, 0, 0, event, nullptr, nullptr, 0, 0);
  kill(getpid(), SIGKILL);
  for (;;) pause();
}

uint64_t IdOf(const struct stat& st, bool* fresh) {
  for (const Inode& i : *inodes) {
    if (i.dev == st.st_dev && i.ino == st.st_ino) {
      *fresh = false;
      return i.id;
    }
  }
  *fresh = true;
  inodes->push_back(Inode{st.st_dev, st.st_ino, next_id});
  return next_id++;
}

// Forgets the inode behind `name` (about to lose its last name), so that
// a new file that reuses the inode number gets a new id. `mu` held.
void Forget(const char* name) {
  char full[2 * PATH_MAX];
  snprintf(full, sizeof(full), "%s/%s", dir, name);
  struct stat st;
  if (stat(full, &st) != 0) return;
  for (size_t i = 0; i < inodes->size(); ++i) {
    if ((*inodes)[i].dev == st.st_dev && (*inodes)[i].ino == st.st_ino) {
      inodes->erase(inodes->begin() + static_cast<long>(i));
      return;
    }
  }
}

bool IsLogName(const char* name) { return strncmp(name, "log.", 4) == 0; }

// Which file an id is, for the data-write/log-write events.
std::vector<std::pair<uint64_t, bool>>* log_ids;  // (id, is a log file)

void NoteKind(uint64_t id, const char* name) {
  if (log_ids == nullptr)
    log_ids = new std::vector<std::pair<uint64_t, bool>>();
  log_ids->emplace_back(id, IsLogName(name));
}

const char* WriteEvent(uint64_t id) {
  if (log_ids != nullptr) {
    for (const auto& [i, log] : *log_ids) {
      if (i == id) return log ? "log-write" : "data-write";
    }
  }
  return "other-write";
}

}  // namespace

int TracedOpen(int at, const char* path, int flags, mode_t mode) {
  ResolveAll();
  char name[PATH_MAX];
  if (!NameIn(at, path, name)) return real.openat(at, path, flags, mode);
  pthread_mutex_lock(&mu);
  struct stat before;
  const bool existed = fstatat(at, path, &before, 0) == 0;
  if (!existed && (flags & O_CREAT) && name[0] != '\0' && IsLogName(name)) {
    MaybeCut("log-create");
  }
  const int fd = real.openat(at, path, flags, mode);
  const int err = errno;
  struct stat st;
  if (fd >= 0 && fd < kMaxFds && fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      if (name[0] == '\0') ids[fd].store(kDirFd);
    } else if (S_ISREG(st.st_mode) && name[0] != '\0') {
      bool fresh = false;
      const uint64_t id = IdOf(st, &fresh);
      if (fresh) NoteKind(id, name);
      if (!existed) {
        Append(Op::kCreate, id, 0, name, nullptr, nullptr, 0, 0);
      } else {
        if (fresh) Append(Op::kOpen, id, 0, name, nullptr, nullptr, 0, 0);
        if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY) {
          Append(Op::kTruncate, id, 0, nullptr, nullptr, nullptr, 0, 0);
        }
      }
      dsync[fd].store((flags & O_DSYNC) != 0);
      inos[fd].store(st.st_ino);
      ids[fd].store(static_cast<int64_t>(id));
    }
  }
  pthread_mutex_unlock(&mu);
  errno = err;
  return fd;
}

int64_t Tracked(int fd) {
  ResolveAll();
  if (fd < 0 || fd >= kMaxFds) return 0;
  return ids[fd].load(std::memory_order_relaxed);
}

// A write of `iov` at `offset` (-1: the file offset) to a tracked file.
ssize_t TracedWrite(int fd, const struct iovec* iov, int iovcnt, off_t offset,
                    int flags2) {
  pthread_mutex_lock(&mu);
  const uint64_t id = static_cast<uint64_t>(ids[fd].load());
  struct stat now;
  if (fstat(fd, &now) != 0 || !S_ISREG(now.st_mode) ||
      now.st_ino != inos[fd].load()) {
    // Closed behind our back (a libc-internal close) and reused.
    ids[fd].store(0);
    pthread_mutex_unlock(&mu);
    return offset < 0    ? real.writev(fd, iov, iovcnt)
           : flags2 != 0 ? real.pwritev2(fd, iov, iovcnt, offset, flags2)
                         : real.pwritev(fd, iov, iovcnt, offset);
  }
  MaybeCut(WriteEvent(id));
  off_t at = offset;
  if (at < 0) {
    if (fcntl(fd, F_GETFL) & O_APPEND) {
      struct stat st;
      at = fstat(fd, &st) == 0 ? st.st_size : 0;
    } else {
      at = lseek(fd, 0, SEEK_CUR);
    }
  }
  ssize_t w;
  if (offset < 0) {
    w = real.writev(fd, iov, iovcnt);
  } else if (flags2 != 0) {
    w = real.pwritev2(fd, iov, iovcnt, offset, flags2);
  } else {
    w = real.pwritev(fd, iov, iovcnt, offset);
  }
  const int err = errno;
  if (w > 0) {
    const uint64_t seq =
        Append(Op::kWrite, id, static_cast<uint64_t>(at), nullptr, nullptr, iov,
               iovcnt, static_cast<uint64_t>(w));
    if (dsync[fd].load() || (flags2 & (RWF_DSYNC | RWF_SYNC))) {
      Append(Op::kSync, id, seq + 1, nullptr, nullptr, nullptr, 0, 0);
    }
  }
  pthread_mutex_unlock(&mu);
  errno = err;
  return w;
}

// fsync/fdatasync/syncfs: the record covers what was recorded before the
// call began, and is appended once it returned.
int TracedSync(int fd, int (*fn)(int), bool whole_fs) {
  const int64_t id = Tracked(fd);
  if (id == 0 && !whole_fs) return fn(fd);
  pthread_mutex_lock(&mu);
  if (!whole_fs) MaybeCut(id == kDirFd ? "dir-sync" : "sync");
  const uint64_t covers = next_seq;
  pthread_mutex_unlock(&mu);
  const int rc = fn(fd);
  const int err = errno;
  if (rc == 0) {
    pthread_mutex_lock(&mu);
    if (whole_fs) {
      Append(Op::kSyncAll, 0, covers, nullptr, nullptr, nullptr, 0, 0);
    } else if (id == kDirFd) {
      Append(Op::kDirSync, 0, covers, nullptr, nullptr, nullptr, 0, 0);
    } else {
      Append(Op::kSync, static_cast<uint64_t>(id), covers, nullptr, nullptr,
             nullptr, 0, 0);
    }
    pthread_mutex_unlock(&mu);
  }
  errno = err;
  return rc;
}

int TracedRename(int old_at, const char* old_path, int new_at,
                 const char* new_path, unsigned int flags) {
  ResolveAll();
  char from[PATH_MAX], to[PATH_MAX];
  const bool in_from = NameIn(old_at, old_path, from) && from[0] != '\0';
  const bool in_to = NameIn(new_at, new_path, to) && to[0] != '\0';
  if (!in_from && !in_to) {
    return real.renameat2(old_at, old_path, new_at, new_path, flags);
  }
  pthread_mutex_lock(&mu);
  if (in_to) Forget(to);
  const int rc = real.renameat2(old_at, old_path, new_at, new_path, flags);
  const int err = errno;
  if (rc == 0) {
    if (in_from && in_to) {
      Append(Op::kRename, 0, 0, from, to, nullptr, 0, 0);
    } else if (in_from) {
      Append(Op::kUnlink, 0, 0, from, nullptr, nullptr, 0, 0);
    } else {
      // Moved in from elsewhere: a new entry whose data was never seen.
      struct stat st;
      char full[2 * PATH_MAX];
      snprintf(full, sizeof(full), "%s/%s", dir, to);
      if (stat(full, &st) == 0) {
        bool fresh = false;
        const uint64_t id = IdOf(st, &fresh);
        Append(Op::kCreate, id, 0, to, nullptr, nullptr, 0, 0);
      }
    }
  }
  pthread_mutex_unlock(&mu);
  errno = err;
  return rc;
}

int TracedUnlink(int at, const char* path, int flags) {
  ResolveAll();
  char name[PATH_MAX];
  if ((flags & AT_REMOVEDIR) || !NameIn(at, path, name) || name[0] == '\0') {
    return real.unlinkat(at, path, flags);
  }
  pthread_mutex_lock(&mu);
  MaybeCut("unlink");
  Forget(name);
  const int rc = real.unlinkat(at, path, flags);
  const int err = errno;
  if (rc == 0) Append(Op::kUnlink, 0, 0, name, nullptr, nullptr, 0, 0);
  pthread_mutex_unlock(&mu);
  errno = err;
  return rc;
}

int TracedTruncate(int fd, off_t length) {
  const int64_t id = Tracked(fd);
  if (id <= 0) return real.ftruncate(fd, length);
  pthread_mutex_lock(&mu);
  const int rc = real.ftruncate(fd, length);
  const int err = errno;
  if (rc == 0) {
    Append(Op::kTruncate, static_cast<uint64_t>(id),
           static_cast<uint64_t>(length), nullptr, nullptr, nullptr, 0, 0);
  }
  pthread_mutex_unlock(&mu);
  errno = err;
  return rc;
}

int TracedSyncRange(int fd, off64_t offset, off64_t nbytes,
                    unsigned int flags) {
  const int64_t id = Tracked(fd);
  const int rc = real.sync_file_range(fd, offset, nbytes, flags);
  if (id > 0 && rc == 0) {
    const int err = errno;
    pthread_mutex_lock(&mu);
    Append(Op::kSyncRange, static_cast<uint64_t>(id), 0, nullptr, nullptr,
           nullptr, 0, 0);
    pthread_mutex_unlock(&mu);
    errno = err;
  }
  return rc;
}

int TracedClose(int fd) {
  if (Tracked(fd) != 0) {
    pthread_mutex_lock(&mu);
    ids[fd].store(0);
    dsync[fd].store(false);
    const int rc = real.close(fd);
    const int err = errno;
    pthread_mutex_unlock(&mu);
    errno = err;
    return rc;
  }
  return real.close(fd);
}

}  // namespace frontier::powerloss::recorder
