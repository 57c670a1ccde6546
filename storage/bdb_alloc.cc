#include "storage/bdb_alloc.h"

#include <db.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace frontier::bdb {
namespace {

constexpr uint32_t kMagic = 0xfd0a110c;
constexpr uint32_t kPlain = 0xffffffff;  // Header::pool of a malloc'd block
// A pool's first block is small, so that a size asked for a few times
// (while recovery reads the log, say) costs little; each next block is
// twice the last, up to kMaxBlock.
constexpr size_t kFirstBlock = size_t{64} << 10;
constexpr size_t kMaxBlock = size_t{1} << 20;
// Berkeley DB's page sizes that frontierd uses are 4 and 8 KiB; a buffer
// is a page and a header of about 100 bytes. Smaller requests, and pages
// asked for bare (copies made while splitting), go to malloc.
constexpr size_t kMinPage = 4096;
constexpr size_t kMaxPage = 64 * 1024;
constexpr size_t kMaxHeader = 256;
constexpr size_t kMaxPools = 32;

struct alignas(16) Header {
  uint32_t magic;
  uint32_t pool;  // index into g.pools, or kPlain
  uint64_t size;  // bytes asked for
};
static_assert(sizeof(Header) == 16);

struct Pool {
  size_t size = 0;        // bytes asked for, rounded up to 16
  void* free = nullptr;   // freed slots, linked through their first word
  char* next = nullptr;   // unused part of the newest block
  char* end = nullptr;
  size_t block = 0;       // bytes of the newest block
  uint64_t in_use = 0;
};

struct Pools {
  std::mutex mu;
  Pool pools[kMaxPools];
  size_t count = 0;  // guarded by mu
  uint64_t block_bytes = 0;
  std::atomic<uint64_t> other_in_use{0};
};

Pools& G() {
  static Pools* g = new Pools;  // never destroyed: Free may run at exit
  return *g;
}

// Whether `bytes` has the shape of a cache buffer: a power-of-two page
// and a header of at most kMaxHeader bytes.
bool PageShaped(size_t bytes) {
  for (size_t page = kMinPage; page <= kMaxPage; page *= 2) {
    if (bytes > page && bytes - page <= kMaxHeader) return true;
  }
  return false;
}

size_t RoundUp16(size_t n) { return (n + 15) & ~size_t{15}; }

Header* HeaderOf(void* p) {
  Header* h = static_cast<Header*>(p) - 1;
  if (h->magic != kMagic) {
    std::fprintf(stderr,
                 "frontierd: bdb::Free of a pointer the allocator did not "
                 "hand out\n");
    std::abort();
  }
  return h;
}

void* AllocatePlain(size_t bytes) {
  auto* h = static_cast<Header*>(std::malloc(sizeof(Header) + bytes));
  if (h == nullptr) return nullptr;
  *h = Header{kMagic, kPlain, bytes};
  G().other_in_use.fetch_add(1, std::memory_order_relaxed);
  return h + 1;
}

// Returns a slot of `g.pools[i]`, carving a new block if none is free.
// g.mu must be held.
void* TakeSlot(Pools& g, uint32_t i) {
  Pool& pool = g.pools[i];
  const size_t slot = sizeof(Header) + pool.size;
  char* s = static_cast<char*>(pool.free);
  if (s != nullptr) {
    std::memcpy(&pool.free, s, sizeof(void*));
  } else {
    if (pool.end - pool.next < static_cast<ptrdiff_t>(slot)) {
      size_t bytes = pool.block == 0 ? kFirstBlock
                                     : std::min(2 * pool.block, kMaxBlock);
      bytes = std::max(bytes, 4 * slot);
      void* block = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block == MAP_FAILED) return nullptr;
      pool.next = static_cast<char*>(block);
      pool.end = pool.next + bytes;
      pool.block = bytes;
      g.block_bytes += bytes;
    }
    s = pool.next;
    pool.next += slot;
  }
  ++pool.in_use;
  auto* h = reinterpret_cast<Header*>(s);
  *h = Header{kMagic, i, pool.size};
  return h + 1;
}

}  // namespace

void* Allocate(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (!PageShaped(bytes)) return AllocatePlain(bytes);
  const size_t size = RoundUp16(bytes);
  Pools& g = G();
  std::lock_guard<std::mutex> lock(g.mu);
  uint32_t i = 0;
  while (i < g.count && g.pools[i].size != size) ++i;
  if (i == g.count) {
    if (g.count == kMaxPools) return AllocatePlain(bytes);
    g.pools[g.count++].size = size;
  }
  return TakeSlot(g, i);
}

void Free(void* p) {
  if (p == nullptr) return;
  Header* h = HeaderOf(p);
  if (h->pool == kPlain) {
    G().other_in_use.fetch_sub(1, std::memory_order_relaxed);
    h->magic = 0;
    std::free(h);
    return;
  }
  Pools& g = G();
  std::lock_guard<std::mutex> lock(g.mu);
  Pool& pool = g.pools[h->pool];
  h->magic = 0;
  std::memcpy(h, &pool.free, sizeof(void*));
  pool.free = h;
  --pool.in_use;
}

void* Reallocate(void* p, size_t bytes) {
  if (p == nullptr) return Allocate(bytes);
  if (bytes == 0) bytes = 1;
  Header* h = HeaderOf(p);
  if (h->pool == kPlain && !PageShaped(bytes)) {
    auto* moved =
        static_cast<Header*>(std::realloc(h, sizeof(Header) + bytes));
    if (moved == nullptr) return nullptr;
    moved->size = bytes;
    return moved + 1;
  }
  if (h->pool != kPlain && RoundUp16(bytes) == h->size) return p;
  void* q = Allocate(bytes);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, h->size < bytes ? h->size : bytes);
  Free(p);
  return q;
}

void InstallAllocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    G();
    db_env_set_func_malloc(Allocate);
    db_env_set_func_realloc(Reallocate);
    db_env_set_func_free(Free);
  });
}

AllocatorStats GetAllocatorStats() {
  Pools& g = G();
  AllocatorStats st;
  std::lock_guard<std::mutex> lock(g.mu);
  for (size_t i = 0; i < g.count; ++i) st.pooled_in_use += g.pools[i].in_use;
  st.pooled_bytes = g.block_bytes;
  st.pools = g.count;
  st.other_in_use = g.other_in_use.load(std::memory_order_relaxed);
  return st;
}

}  // namespace frontier::bdb
