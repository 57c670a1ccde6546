// The power-loss harness's recorder: an LD_PRELOAD library that appends a
// record (trace_format.h) for every operation that changes a file, or the
// entries, of one data directory, so that materialise.h can rebuild the
// directory as the disk held it at any point.
//
// Environment:
//   POWERLOSS_DIR    the data directory (only its top-level entries are
//                    followed; Berkeley DB and frontierd keep no others)
//   POWERLOSS_TRACE  the record stream, appended to; must be outside the dir
//   POWERLOSS_KILL   optional trigger "<event>:<n>": SIGKILL the process
//                    just before the n-th (from 1) event of that kind, so a
//                    power cut lands inside a window exactly. Events:
//                    data-write (a write to a *.db file: write-behind,
//                    checkpoints), log-write, log-create (a new log file),
//                    unlink, sync (fsync/fdatasync of a file), dir-sync.
//   POWERLOSS_ARM    optional: events count only once this file exists,
//                    so that a trigger never fires while the server starts
//
// Interposed, because these are the calls libdb-5.3.so imports for I/O
// (nm -D: open, write, writev, pwrite, ftruncate, fdatasync, rename,
// unlink, close; no fsync, no fallocate, no sync_file_range) and the ones
// frontierd makes itself (fsync of the directory, sync_file_range, the
// *at and 64 variants a libc may route through): open/open64/openat/
// openat64/creat/__open_2, write, writev, pwrite/pwrite64, pwritev/
// pwritev2, ftruncate/ftruncate64, fsync, fdatasync, sync_file_range,
// sync/syncfs, rename/renameat/renameat2, unlink/unlinkat, close.
// Not followed: dup'ed descriptors, mmap'ed writes (libdb maps only its
// regions, which DB_PRIVATE keeps in the heap), paths with "..".
//
// This file holds the shims alone; recorder.cc does the recording.
#include <fcntl.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "powerloss/recorder.h"

namespace {

using namespace frontier::powerloss::recorder;

mode_t ModeArg(int flags, va_list ap) {
  if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
    return static_cast<mode_t>(va_arg(ap, int));
  }
  return 0;
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return TracedOpen(AT_FDCWD, path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return TracedOpen(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}

int __open_2(const char* path, int flags) {
  return TracedOpen(AT_FDCWD, path, flags, 0);
}

int __open64_2(const char* path, int flags) {
  return TracedOpen(AT_FDCWD, path, flags | O_LARGEFILE, 0);
}

int openat(int at, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return TracedOpen(at, path, flags, mode);
}

int openat64(int at, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return TracedOpen(at, path, flags | O_LARGEFILE, mode);
}

int creat(const char* path, mode_t mode) {
  return TracedOpen(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int creat64(const char* path, mode_t mode) {
  return TracedOpen(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE,
                    mode);
}

ssize_t write(int fd, const void* buf, size_t n) {
  if (Tracked(fd) <= 0) return real.write(fd, buf, n);
  struct iovec iov = {const_cast<void*>(buf), n};
  return TracedWrite(fd, &iov, 1, -1, 0);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  if (Tracked(fd) <= 0) return real.writev(fd, iov, iovcnt);
  return TracedWrite(fd, iov, iovcnt, -1, 0);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (Tracked(fd) <= 0) return real.pwrite(fd, buf, n, offset);
  struct iovec iov = {const_cast<void*>(buf), n};
  return TracedWrite(fd, &iov, 1, offset, 0);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t offset) {
  return pwrite(fd, buf, n, offset);
}

ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  if (Tracked(fd) <= 0) return real.pwritev(fd, iov, iovcnt, offset);
  return TracedWrite(fd, iov, iovcnt, offset, 0);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  return pwritev(fd, iov, iovcnt, offset);
}

ssize_t pwritev2(int fd, const struct iovec* iov, int iovcnt, off_t offset,
                 int flags) {
  if (Tracked(fd) <= 0) return real.pwritev2(fd, iov, iovcnt, offset, flags);
  return TracedWrite(fd, iov, iovcnt, offset, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec* iov, int iovcnt, off_t offset,
                    int flags) {
  return pwritev2(fd, iov, iovcnt, offset, flags);
}

int ftruncate(int fd, off_t length) { return TracedTruncate(fd, length); }

int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

int fsync(int fd) { return TracedSync(fd, real.fsync, false); }

int fdatasync(int fd) { return TracedSync(fd, real.fdatasync, false); }

int syncfs(int fd) { return TracedSync(fd, real.syncfs, true); }

void sync() {
  TracedSync(
      -1,
      [](int) {
        real.sync();
        return 0;
      },
      true);
}

int sync_file_range(int fd, off64_t offset, off64_t nbytes,
                    unsigned int flags) {
  return TracedSyncRange(fd, offset, nbytes, flags);
}

int rename(const char* from, const char* to) {
  return TracedRename(AT_FDCWD, from, AT_FDCWD, to, 0);
}

int renameat(int from_at, const char* from, int to_at, const char* to) {
  return TracedRename(from_at, from, to_at, to, 0);
}

int renameat2(int from_at, const char* from, int to_at, const char* to,
              unsigned int flags) {
  return TracedRename(from_at, from, to_at, to, flags);
}

int unlink(const char* path) { return TracedUnlink(AT_FDCWD, path, 0); }

int unlinkat(int at, const char* path, int flags) {
  return TracedUnlink(at, path, flags);
}

int close(int fd) { return TracedClose(fd); }

}  // extern "C"
