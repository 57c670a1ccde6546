// The record stream of the power-loss harness: what the preload library
// (powerloss_preload.cc) appends for every file operation under the data
// directory, and what the materialiser (materialise.h) reads back.
//
// A record is a RecordHeader followed by `name_len` bytes of name,
// `name2_len` bytes of a second name (rename's target) and `length` bytes
// of data (a write's bytes). Integers are in host byte order: the stream is
// read back on the machine that wrote it. A record is appended only after
// the operation it describes returned, so a process killed in the middle of
// one leaves either the whole record or a torn tail, which readers drop.
#pragma once

#include <cstdint>

namespace frontier::powerloss {

inline constexpr uint32_t kRecordMagic = 0x52544c50;  // "PLTR"

enum class Op : uint8_t {
  kCreate = 1,  // a new directory entry `name` for file `id`
  kOpen,        // first sight of the existing file `name` as `id`
  kWrite,       // `length` bytes at `offset` of file `id`
  kTruncate,    // file `id` cut or extended to `offset` bytes
  kSync,        // fsync/fdatasync of `id`: records before `offset` are durable
  kDirSync,     // fsync of the directory: entries before `offset` are durable
  kSyncAll,     // sync()/syncfs(): everything before `offset` is durable
  kRename,      // entry `name` renamed to `name2` (replacing it)
  kUnlink,      // entry `name` removed
  kSyncRange,   // sync_file_range of `id`: starts writeback, promises nothing
  kCut,         // the trigger fired here (`name` says which); SIGKILL follows
};

struct RecordHeader {
  uint32_t magic;
  uint8_t op;
  uint8_t pad[3];
  uint64_t seq;     // the record's index in the stream, from 0
  uint64_t id;      // file id (stable across renames), 0 if none
  uint64_t offset;  // see Op
  uint64_t length;  // bytes of data after the names
  uint32_t name_len;
  uint32_t name2_len;
};

}  // namespace frontier::powerloss
