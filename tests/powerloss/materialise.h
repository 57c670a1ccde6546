// The power-loss harness's disk model: rebuilds a data directory "as the
// disk held it" from the directory as it was when a traced run began and
// the record stream the preload library (powerloss_preload.cc) wrote
// during that run.
//
// The model (docs/design.md, "Power loss"):
// - File data: a write or truncate of a file is durable once an fsync or
//   fdatasync of that file began after the write returned (or sync()).
//   Nothing else makes it durable: sync_file_range starts writeback and
//   promises nothing; a process exit or kill -9 changes nothing.
// - Directory entries (create, rename, unlink): durable once an fsync of
//   the directory began after them (POSIX; kStrict). kJournal instead
//   models a journalling file system such as ext4 or XFS, where an fsync
//   of any file commits the journal and with it every earlier entry.
// - The files of the base directory are durable as they are.
// - Landing: kSyncedOnly keeps exactly the durable operations; kPrefix
//   also lets a random prefix of the rest land; kSubset lets each of the
//   rest land at random (a disk may reorder writes), with directory
//   operations still as a prefix of theirs.
// Not modelled: torn writes inside one write() (sector tearing), data of a
// file written through mmap, and files in subdirectories.
#pragma once

#include <cstdint>
#include <string>

namespace frontier::powerloss {

enum class Landing { kSyncedOnly, kPrefix, kSubset };
enum class DirModel { kStrict, kJournal };

struct MaterialiseOptions {
  Landing landing = Landing::kSyncedOnly;
  DirModel dirs = DirModel::kStrict;
  uint64_t seed = 0;  // for kPrefix and kSubset
};

// What a trace held and what the materialised directory kept of it.
struct TraceSummary {
  uint64_t records = 0;
  uint64_t writes = 0;        // kWrite and kTruncate records
  uint64_t syncs = 0;         // kSync, kDirSync, kSyncAll records
  uint64_t dir_ops = 0;       // kCreate, kRename, kUnlink records
  uint64_t landed = 0;        // writes and dir ops the copy holds
  uint64_t dropped = 0;       // writes and dir ops it does not
  std::string cut_event;      // the trigger that killed the run, if one did
  bool torn_tail = false;     // the stream ended inside a record
};

// Writes into `out_dir` (which must exist and be empty) the directory as the
// disk held it at the end of the stream `trace_path`, whose run began with
// `base_dir` as it is now (`base_dir` may be empty: no files). Returns ""
// on success, else what went wrong. `summary` may be null.
std::string Materialise(const std::string& base_dir,
                        const std::string& trace_path,
                        const std::string& out_dir,
                        const MaterialiseOptions& options,
                        TraceSummary* summary);

// One line per record of `trace_path`, for a person reading a trace.
std::string DumpTrace(const std::string& trace_path);

}  // namespace frontier::powerloss
