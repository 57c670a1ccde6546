// Reads a frontierd data directory that no server has open: a BACKUP copy
// (the export's usual source) or a stopped server's directory. Opens it
// with Berkeley DB's recovery, as a server's start would (a BACKUP copy
// holds a log to replay), then reads the records through storage/'s own
// decoders. Not for a directory a running server has open: the server
// holds its lock (storage/frontier_open.cc) and this reader checks it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "storage/bdb.h"
#include "storage/crawl_space.h"
#include "storage/policy_records.h"
#include "storage/records.h"
#include "util/status.h"

namespace frontier::exporter {

class SnapshotReader {
 public:
  SnapshotReader() = default;
  ~SnapshotReader();
  SnapshotReader(const SnapshotReader&) = delete;
  SnapshotReader& operator=(const SnapshotReader&) = delete;

  // Opens `dir` to read crawl `crawl` (Frontier::kDefaultCrawl: the
  // directory's original databases). IOError if it is not a frontierd
  // directory, is locked by a server, or Berkeley DB cannot open it;
  // NotFound if it holds no crawl of that name.
  Status Open(const std::string& dir, const std::string& crawl);

  // Each scan calls `fn` once per record in key order and stops at the
  // first error (a callback's non-OK status is returned as it is).
  // Corruption for a record that does not decode.
  Status ForEachSite(const std::function<Status(const SiteRecord&)>& fn);
  Status ForEachPolicy(const std::function<Status(const PolicyRecord&)>& fn);
  // URLs of sites being removed (SITE DELETE under way) are skipped, as
  // the server treats them as gone. `data` is nullopt without a value.
  Status ForEachUrl(
      const std::function<Status(const UrlRecord&,
                                 const std::optional<std::string>&)>& fn);

 private:
  Status LoadDeleting();
  // The id of crawl `name` in crawls.db (0 for the default crawl).
  Status FindCrawl(const std::string& name, uint32_t* id);
  bdb::EnvPtr env_;
  bdb::Database urls_, sites_, policy_, data_, meta_;
  std::set<uint64_t> deleting_;
  int lock_fd_ = -1;
};

}  // namespace frontier::exporter
