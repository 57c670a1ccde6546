// A hot backup in two halves (docs/operations.md, "Backup and restore"):
// Frontier::BeginBackup() on the thread that owns the environment prepares
// a BackupPlan (checkpoint, log flush, the files to copy, the log files
// pinned against removal); CopyBackup() then executes the plan on any
// thread, without touching the live environment, following Berkeley DB's
// documented hot-backup procedure: the database files first, in whole
// pages (each read until two reads agree), then the log files from the
// first one still needed, then catastrophic recovery of the copy in a
// private environment of its own.
// Frontier::EndBackup() finally releases the pin.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace frontier {

struct BackupPlan {
  struct DataFile {
    std::string name;        // relative to source_dir, e.g. "urls.db"
    uint32_t page_size = 0;  // the database's page size, in bytes
  };
  std::string source_dir;   // the live data directory (also its logs)
  std::string target_dir;   // canonical, absolute: where the copy ends up
  std::string partial_dir;  // target_dir + ".partial": where it is built
  std::vector<DataFile> data_files;
  // The first log file recovery of the copy needs (log.<first_log>): the
  // one of the checkpoint BeginBackup took. Every later one is copied too.
  uint32_t first_log = 0;
  // Cache for the copy's recovery, in bytes.
  uint64_t recovery_cache_bytes = 32u << 20;
};

// The Berkeley DB database files in `dir` (whatever created them: every
// crawl's, say) with their page sizes, read from each file's meta page;
// log files, region files and files that are not databases are left out.
// For BeginBackup, on the thread that owns the environment, with no
// transaction open (so no database is half created). IOError if `dir`
// cannot be listed or a database's header not read.
StatusOr<std::vector<BackupPlan::DataFile>> ListDatabaseFiles(
    const std::string& dir);

// Builds the copy `plan` describes in plan.partial_dir (which must exist
// and be empty), runs catastrophic recovery on it, fsyncs its files and
// directory and renames it to plan.target_dir (an absent or empty
// directory), then fsyncs the parent. Reads the live directory's files
// only: the live environment may go on writing meanwhile, provided it
// removes no log file from plan.first_log on (the pin). Returns OK once
// the copy is complete and durable; otherwise IOError (or Corruption from
// recovery) and removes plan.partial_dir. If `cancel` becomes true the copy
// stops soon with an IOError ("backup cancelled"). Runs on any thread; at
// most one at a time per plan.
Status CopyBackup(const BackupPlan& plan, const std::atomic<bool>& cancel);

// Removes plan.partial_dir, for a plan CopyBackup() will never run.
void DiscardBackup(const BackupPlan& plan);

}  // namespace frontier
