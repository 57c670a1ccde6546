// UrlValues (url_values.h): data.db's reads and writes.
#include "storage/url_values.h"

#include <string>

namespace frontier {

Status UrlValues::Set(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                      std::optional<std::string_view> data) {
  if (!data) {
    if (!rec->has_data) return Status::OK();
    rec->has_data = false;
    return Delete(t, key);
  }
  rec->has_data = true;
  EncodeUrlData(*data, &buf_);
  return db_.Put(t, EncodeUrlKey(key), buf_);
}

Status UrlValues::Load(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                       std::optional<std::string>* out) {
  out->reset();
  if (!rec.has_data) return Status::OK();
  std::string stored;
  Status s = db_.Get(t, EncodeUrlKey(key), &stored);
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

Status UrlValues::CheckSize(std::string_view data, size_t max_bytes) {
  if (data.size() <= max_bytes) return Status::OK();
  return Status::InvalidArgument("DATA value of " +
                                 std::to_string(data.size()) +
                                 " bytes is longer than max-url-data (" +
                                 std::to_string(max_bytes) + " bytes)");
}

Status UrlValues::Delete(DbTxn* t, const UrlKey& key) {
  Status s = db_.Delete(t, EncodeUrlKey(key));
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace frontier
