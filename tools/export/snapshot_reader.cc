// SnapshotReader (snapshot_reader.h).
#include "export/snapshot_reader.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "storage/frontier.h"

namespace frontier::exporter {
namespace {
constexpr std::string_view kDeletingPrefix = "deleting:";  // as the server's
constexpr u_int32_t kCacheBytes = 256u << 20;
}  // namespace

SnapshotReader::~SnapshotReader() {
  urls_.Close();
  sites_.Close();
  policy_.Close();
  data_.Close();
  meta_.Close();
  env_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status SnapshotReader::Open(const std::string& dir, const std::string& crawl) {
  if (!std::filesystem::exists(dir + "/urls.db")) {
    return Status::IOError("'" + dir + "' holds no frontierd data (urls.db)");
  }
  // The server's lock: a directory a server has open is refused.
  const std::string lock_path = dir + "/frontierd.lock";
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) {
    return Status::IOError("cannot open " + lock_path + ": " +
                           std::strerror(errno));
  }
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return Status::IOError("dir '" + dir +
                           "' is in use by a frontierd process: export a "
                           "BACKUP copy of it (--from host:port)");
  }
  env_.reset(new DbEnv(DB_CXX_NO_EXCEPTIONS));
  env_->set_errpfx("frontierd-export(bdb)");
  env_->set_errfile(stderr);
  Status s =
      bdb::FromDb(env_->set_cachesize(0, kCacheBytes, 1), "set_cachesize");
  if (!s.ok()) return s;
  s = bdb::FromDb(env_->open(dir.c_str(),
                             DB_CREATE | DB_INIT_LOG | DB_INIT_MPOOL |
                                 DB_INIT_TXN | DB_RECOVER | DB_PRIVATE,
                             0644),
                  "open environment in '" + dir + "'");
  uint32_t id = 0;
  if (s.ok()) s = FindCrawl(crawl, &id);
  // A crawl's own files; robots rules (policy.db) are the server's, shared.
  if (s.ok()) s = urls_.Open(env_.get(), CrawlFile(id, "urls.db").c_str(), 0);
  if (s.ok()) s = sites_.Open(env_.get(), CrawlFile(id, "sites.db").c_str(), 0);
  if (s.ok()) s = policy_.Open(env_.get(), "policy.db", 0);
  if (s.ok()) s = data_.Open(env_.get(), CrawlFile(id, "data.db").c_str(), 0);
  if (s.ok()) s = meta_.Open(env_.get(), CrawlFile(id, "meta.db").c_str(), 0);
  if (s.ok()) s = LoadDeleting();
  return s;
}

Status SnapshotReader::FindCrawl(const std::string& name, uint32_t* id) {
  *id = 0;
  if (name == Frontier::kDefaultCrawl) return Status::OK();
  const std::string not_found = "no crawl named '" + name + "' in the copy";
  bdb::Database registry;
  Status s = registry.Open(env_.get(), "crawls.db", 0);
  if (!s.ok()) return Status::NotFound(not_found);  // no crawl was made
  std::string value;
  s = registry.Get(nullptr, name, &value);
  if (s.ok() && !DecodeCrawlId(value, id)) {
    s = Status::Corruption("undecodable crawl registry record");
  }
  registry.Close();
  if (s.IsNotFound()) return Status::NotFound(not_found);
  return s;
}

Status SnapshotReader::LoadDeleting() {
  bdb::Cursor c;
  Status s = c.Open(&meta_, nullptr);
  std::string key;
  if (s.ok()) s = c.Seek(kDeletingPrefix, &key, nullptr);
  while (s.ok() && key.starts_with(kDeletingPrefix)) {
    std::string_view fp = std::string_view(key).substr(kDeletingPrefix.size());
    if (fp.size() != 8) return Status::Corruption("undecodable tombstone");
    uint64_t site_fp = 0;
    for (char ch : fp) site_fp = (site_fp << 8) | static_cast<uint8_t>(ch);
    deleting_.insert(site_fp);
    s = c.Next(&key, nullptr);
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  return c.Close();
}

Status SnapshotReader::ForEachSite(
    const std::function<Status(const SiteRecord&)>& fn) {
  bdb::BulkScan scan;
  Status s = scan.Open(&sites_, nullptr);
  std::string_view key, value;
  while (s.ok() && (s = scan.Next(&key, &value)).ok()) {
    SiteRecord rec;
    if (!DecodeSiteRecord(value, &rec)) {
      return Status::Corruption("undecodable site record");
    }
    if (deleting_.contains(Fingerprint(rec.name))) continue;
    s = fn(rec);
  }
  if (!s.IsNotFound()) return s;
  return scan.Close();
}

Status SnapshotReader::ForEachPolicy(
    const std::function<Status(const PolicyRecord&)>& fn) {
  bdb::BulkScan scan;
  Status s = scan.Open(&policy_, nullptr);
  std::string_view key, value;
  while (s.ok() && (s = scan.Next(&key, &value)).ok()) {
    PolicyRecord rec;
    if (!DecodePolicyRecord(value, &rec)) {
      return Status::Corruption("undecodable robots policy record");
    }
    s = fn(rec);
  }
  if (!s.IsNotFound()) return s;
  return scan.Close();
}

Status SnapshotReader::ForEachUrl(
    const std::function<Status(const UrlRecord&,
                               const std::optional<std::string>&)>& fn) {
  bdb::BulkScan scan;
  Status s = scan.Open(&urls_, nullptr);
  std::string_view key, value;
  std::optional<std::string> data;
  std::string stored;
  while (s.ok() && (s = scan.Next(&key, &value)).ok()) {
    UrlRecord rec;
    if (!DecodeUrlRecord(value, &rec)) {
      return Status::Corruption("undecodable URL record");
    }
    if (deleting_.contains(rec.site_fp)) continue;
    data.reset();
    if (rec.has_data) {
      s = data_.Get(nullptr, key, &stored);
      if (!s.ok()) return s;
      std::string_view v;
      if (!DecodeUrlData(stored, &v)) {
        return Status::Corruption("undecodable data record of " + rec.url);
      }
      data.emplace(v);
    }
    s = fn(rec, data);
  }
  if (!s.IsNotFound()) return s;
  return scan.Close();
}

}  // namespace frontier::exporter
