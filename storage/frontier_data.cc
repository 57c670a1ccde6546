// FrontierImpl: per-URL values (ADD ... DATA, POP ... WITHDATA, URLINFO).
//
// A value lives in data.db under the URL's U key, apart from the URL
// record, so that the records a crawl reads and writes on every verb stay
// as small as they were: a URL without a value costs one bit of its
// record (UrlRecord::has_data) and no access to data.db. A value is
// written in the transaction that stores or changes its URL, and removed
// with the URL (DeleteEntryOfUrl, both SITE DELETE paths).
#include <string>

#include "storage/frontier_impl.h"

namespace frontier {

Status FrontierImpl::CheckDataSize(std::string_view data) const {
  if (data.size() <= opts_.max_url_data) return Status::OK();
  return Status::InvalidArgument(
      "DATA value of " + std::to_string(data.size()) +
      " bytes is longer than max-url-data (" +
      std::to_string(opts_.max_url_data) + " bytes)");
}

Status FrontierImpl::SetData(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                             std::optional<std::string_view> data) {
  if (!data) {
    if (!rec->has_data) return Status::OK();
    rec->has_data = false;
    Status s = data_.Delete(t, EncodeUrlKey(key));
    return s.IsNotFound() ? Status::OK() : s;
  }
  rec->has_data = true;
  std::string value;
  EncodeUrlData(*data, &value);
  return data_.Put(t, EncodeUrlKey(key), value);
}

Status FrontierImpl::LoadData(DbTxn* t, const UrlKey& key,
                              const UrlRecord& rec,
                              std::optional<std::string>* out) {
  out->reset();
  if (!rec.has_data) return Status::OK();
  std::string stored;
  Status s = data_.Get(t, EncodeUrlKey(key), &stored);
  if (s.IsNotFound()) {
    return Status::Corruption("URL record " + rec.url +
                              " says it has a value; data.db has none");
  }
  if (!s.ok()) return s;
  std::string_view value;
  if (!DecodeUrlData(stored, &value)) {
    return Status::Corruption("undecodable value of " + rec.url);
  }
  out->emplace(value);
  return Status::OK();
}

StatusOr<std::vector<PoppedUrl>> FrontierImpl::PopWithData(
    std::optional<size_t> partition, size_t count, int64_t lease_ms,
    int64_t now_ms) {
  if (partition && *partition >= sched_.partitions()) {
    return Status::InvalidArgument("unknown partition");
  }
  return PopPairs(partition, std::nullopt, count, lease_ms, now_ms);
}

StatusOr<std::vector<PoppedUrl>> FrontierImpl::PopSite(std::string_view site,
                                                       size_t count,
                                                       int64_t lease_ms,
                                                       int64_t now_ms) {
  StatusOr<NamedSite> named = ResolveSite(site);
  if (!named.ok()) return named.status();
  return PopPairs(std::nullopt, named->fp, count, lease_ms, now_ms);
}

StatusOr<std::vector<PoppedUrl>> FrontierImpl::PopPairs(
    std::optional<size_t> partition, std::optional<uint64_t> site_fp,
    size_t count, int64_t lease_ms, int64_t now_ms) {
  std::vector<std::optional<std::string>> data;
  StatusOr<std::vector<std::string>> urls =
      PopFrom(partition, count, lease_ms, now_ms, &data, site_fp);
  if (!urls.ok()) return urls.status();
  std::vector<PoppedUrl> popped(urls->size());
  for (size_t i = 0; i < popped.size(); ++i) {
    popped[i].url = std::move((*urls)[i]);
    popped[i].data = std::move(data[i]);
  }
  return popped;
}

StatusOr<uint64_t> FrontierImpl::DataRecordsForTesting() {
  bdb::Cursor c;
  Status s = c.Open(&data_, nullptr);
  std::string key;
  uint64_t n = 0;
  if (s.ok()) s = c.First(&key, nullptr);
  while (s.ok()) {
    ++n;
    s = c.Next(&key, nullptr);
  }
  if (!s.IsNotFound()) return s;
  s = c.Close();
  if (!s.ok()) return s;
  return n;
}

}  // namespace frontier
