// Berkeley DB's own memory, kept at the size it asks for.
//
// In a private environment (DB_PRIVATE) Berkeley DB mallocs every buffer
// of its cache, a page and its header (8 KiB + about 100 bytes for
// urls.db), and frees it when the page is evicted. A general allocator
// serves such a request from the size class above it: jemalloc's is
// 10 KiB, so a 256 MB cache took about 320 MB of RSS (docs/performance.md,
// "Cache buffers at their size"). This allocator keeps requests of a
// page-and-header shape (a power of two from 4 to 64 KiB, plus 1 to 256
// bytes) in pools of slots of exactly that size, carved from blocks of
// 64 KiB growing to 1 MiB; everything else goes to malloc. A freed slot is
// reused by the next buffer of its size; blocks are kept for the life of
// the process (the cache is bounded, so they are too).
//
// Every pointer handed out carries a 16-byte header that says where it
// came from, so Free and Reallocate must only be given pointers of
// Allocate/Reallocate (Free aborts on anything else).
#pragma once

#include <cstddef>
#include <cstdint>

namespace frontier::bdb {

// Makes Allocate, Reallocate and Free Berkeley DB's process-wide malloc,
// realloc and free (db_env_set_func_*). Idempotent and thread-safe; call
// it before the first environment is created. Memory that Berkeley DB
// hands to its caller (statistics, DB_DBT_MALLOC) would then come from
// Allocate too: so every DB_ENV must also be given the C library's
// functions with DB_ENV->set_alloc, and callers free that memory with
// free() as before.
void InstallAllocator();

void* Allocate(size_t bytes);
void* Reallocate(void* p, size_t bytes);
void Free(void* p);

struct AllocatorStats {
  uint64_t pooled_in_use = 0;   // slots handed out and not freed
  uint64_t pooled_bytes = 0;    // bytes of the blocks the pools hold
  uint64_t pools = 0;           // distinct slot sizes seen
  uint64_t other_in_use = 0;    // live allocations passed to malloc
};
AllocatorStats GetAllocatorStats();

}  // namespace frontier::bdb
