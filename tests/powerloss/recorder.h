// The power-loss recorder's core, shared by the LD_PRELOAD shims
// (powerloss_preload.cc) and its implementation (recorder.cc). Each
// Traced* call does what the libc call it is named after does, through the
// real function, and appends a record (trace_format.h) when it changed a
// file or an entry of the followed directory; each may SIGKILL the
// process first when POWERLOSS_KILL names its event (powerloss_preload.cc
// describes the environment).
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>

namespace frontier::powerloss::recorder {

// The interposed functions' real definitions (dlsym RTLD_NEXT), resolved
// before the first traced call.
struct Real {
  int (*open)(const char*, int, ...);
  int (*openat)(int, const char*, int, ...);
  ssize_t (*write)(int, const void*, size_t);
  ssize_t (*writev)(int, const struct iovec*, int);
  ssize_t (*pwrite)(int, const void*, size_t, off_t);
  ssize_t (*pwritev)(int, const struct iovec*, int, off_t);
  ssize_t (*pwritev2)(int, const struct iovec*, int, off_t, int);
  int (*ftruncate)(int, off_t);
  int (*fsync)(int);
  int (*fdatasync)(int);
  int (*sync_file_range)(int, off64_t, off64_t, unsigned int);
  void (*sync)();
  int (*syncfs)(int);
  int (*renameat2)(int, const char*, int, const char*, unsigned int);
  int (*renameat)(int, const char*, int, const char*);
  int (*rename)(const char*, const char*);
  int (*unlinkat)(int, const char*, int);
  int (*unlink)(const char*);
  int (*close)(int);
};
extern Real real;

// The id of the file `fd` is open on: 0 if it is not followed, -1 if it is
// the followed directory itself.
int64_t Tracked(int fd);
int TracedOpen(int at, const char* path, int flags, mode_t mode);
// A write of `iov` at `offset` (-1: the file offset) to a followed file.
ssize_t TracedWrite(int fd, const struct iovec* iov, int iovcnt, off_t offset,
                    int flags2);
int TracedTruncate(int fd, off_t length);
// fsync/fdatasync (`fn`) of one descriptor, or sync/syncfs (`whole_fs`).
int TracedSync(int fd, int (*fn)(int), bool whole_fs);
int TracedSyncRange(int fd, off64_t offset, off64_t nbytes, unsigned int flags);
int TracedRename(int old_at, const char* old_path, int new_at,
                 const char* new_path, unsigned int flags);
int TracedUnlink(int at, const char* path, int flags);
int TracedClose(int fd);

}  // namespace frontier::powerloss::recorder
