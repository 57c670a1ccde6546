// FrontierImpl: batched verbs (MSEEN, DRUM's check without update).
#include <algorithm>
#include <cstdint>

#include "storage/frontier_impl.h"

namespace frontier {

StatusOr<std::vector<StatusOr<bool>>> FrontierImpl::SeenMany(
    const std::vector<std::string_view>& urls) {
  std::vector<StatusOr<Resolved>> targets;
  targets.reserve(urls.size());
  std::vector<uint32_t> order;  // indices of the valid URLs, in key order
  order.reserve(urls.size());
  for (std::string_view u : urls) {
    targets.push_back(Resolve(u, "invalid URL"));
    if (targets.back().ok()) {
      order.push_back(static_cast<uint32_t>(targets.size() - 1));
    }
  }
  // U's key is host fingerprint then URL fingerprint, big-endian: sorting
  // by the pair walks the B-tree left to right, one host's pages together.
  auto key_of = [&](uint32_t i) {
    const UrlKey& k = targets[i]->key;
    return std::pair(k.host_fp, k.url_fp);
  };
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return key_of(a) < key_of(b); });

  std::vector<StatusOr<bool>> results(urls.size(), StatusOr<bool>(false));
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!targets[i].ok()) results[i] = targets[i].status();
  }
  if (order.empty()) return results;

  // As Seen(): no transaction, so nothing to commit and no log record.
  bdb::Cursor cursor;
  Status s = cursor.Open(&urls_, nullptr);
  if (!s.ok()) return s;
  std::string value;
  UrlRecord rec;
  const UrlKey* loaded = nullptr;  // the key `rec` holds, if any
  for (uint32_t i : order) {
    const Resolved& target = *targets[i];
    if (loaded == nullptr || !(*loaded == target.key)) {
      loaded = nullptr;
      s = cursor.Find(EncodeUrlKey(target.key), &value);
      if (s.IsNotFound()) {
        results[i] = false;
        continue;
      }
      if (!s.ok()) return s;
      if (!DecodeUrlRecord(value, &rec)) {
        return Status::Corruption("undecodable URL record");
      }
      loaded = &target.key;
    }
    // Two URLs with one fingerprint: the record names the one stored.
    results[i] = rec.url == target.norm.url;
  }
  s = cursor.Close();
  if (!s.ok()) return s;
  return results;
}

}  // namespace frontier
