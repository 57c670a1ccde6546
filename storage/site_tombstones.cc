// SiteTombstones (site_tombstones.h): the tombstones in meta.db and the
// removals' positions.
#include "storage/site_tombstones.h"

#include <string_view>

namespace frontier {

namespace {

constexpr std::string_view kDeletingPrefix = "deleting:";

std::string DeletingKey(uint64_t site_fp) {
  std::string key(kDeletingPrefix);
  key.append(std::string_view(EncodeSiteKey(site_fp)));
  return key;
}

// Where the removal of `site_fp` starts: the host's first key, or
// (domain scope) the first record of urls.db.
std::string StartOf(uint64_t site_fp, bool by_host) {
  return by_host ? std::string(EncodeSiteKey(site_fp)) : std::string();
}

}  // namespace

Status SiteTombstones::Put(DbTxn* t, bdb::Database* meta, uint64_t site_fp) {
  return meta->Put(t, DeletingKey(site_fp), "");
}

Status SiteTombstones::Remove(DbTxn* t, bdb::Database* meta, uint64_t site_fp) {
  return meta->Delete(t, DeletingKey(site_fp));
}

void SiteTombstones::Add(uint64_t site_fp, bool by_host) {
  sites_[site_fp] = StartOf(site_fp, by_host);
}

Status SiteTombstones::Load(bdb::Database* meta, bool by_host) {
  sites_.clear();
  bdb::Cursor c;
  Status s = c.Open(meta, nullptr);
  std::string key;
  if (s.ok()) s = c.Seek(kDeletingPrefix, &key, nullptr);
  while (s.ok() && key.starts_with(kDeletingPrefix)) {
    std::string_view fp_bytes =
        std::string_view(key).substr(kDeletingPrefix.size());
    if (fp_bytes.size() != 8) {
      return Status::Corruption("undecodable tombstone");
    }
    uint64_t site_fp = 0;
    for (char ch : fp_bytes) {
      site_fp = (site_fp << 8) | static_cast<uint8_t>(ch);
    }
    sites_[site_fp] = StartOf(site_fp, by_host);
    s = c.Next(&key, nullptr);
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  return c.Close();
}

}  // namespace frontier
