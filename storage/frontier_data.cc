// FrontierImpl: the pops that carry per-URL values (POP ... WITHDATA, POP
// SITE). The values themselves are UrlValues' (url_values.h):
// written in the transaction that stores or changes their URL, and
// removed with the URL (DeleteEntryOfUrl, both SITE DELETE paths).
#include <string>

#include "storage/frontier_impl.h"

namespace frontier {

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
  StatusOr<NamedSite> named = resolver_.Site(site);
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
  Status s = c.Open(&values_.db(), nullptr);
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
