// FrontierImpl: batched verbs (MADD, DRUM's check+update, and MSEEN, its
// check without update). Both visit their URLs in U key order.
#include <algorithm>
#include <cstdint>

#include "storage/frontier_impl.h"

namespace frontier {

std::vector<uint32_t> FrontierImpl::InKeyOrder(
    const std::vector<StatusOr<Resolved>>& targets) {
  std::vector<uint32_t> order;
  order.reserve(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].ok()) order.push_back(static_cast<uint32_t>(i));
  }
  // U's key is host fingerprint then URL fingerprint, big-endian: sorting
  // by the pair walks the B-tree left to right, one host's pages together.
  // Stable: a URL given twice is seen first where it is first given.
  auto key_of = [&](uint32_t i) {
    const UrlKey& k = targets[i]->key;
    return std::pair(k.host_fp, k.url_fp);
  };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return key_of(a) < key_of(b);
  });
  return order;
}

StatusOr<std::vector<StatusOr<AddOutcome>>> FrontierImpl::AddMany(
    std::string_view ref, const std::vector<std::string_view>& urls,
    int64_t now_ms) {
  return AddLinks(ref, urls, nullptr, now_ms);
}

StatusOr<std::vector<StatusOr<AddOutcome>>> FrontierImpl::AddManyWithData(
    std::string_view ref, const std::vector<std::string_view>& urls,
    const std::vector<std::string_view>& data, int64_t now_ms) {
  if (data.size() != urls.size()) {
    return Status::InvalidArgument("every URL needs a value");
  }
  for (std::string_view value : data) {
    Status s = UrlValues::CheckSize(value, opts_.max_url_data);
    if (!s.ok()) return s;
  }
  return AddLinks(ref, urls, &data, now_ms);
}

StatusOr<std::vector<StatusOr<AddOutcome>>> FrontierImpl::AddLinksOfRemoteRef(
    const RemoteRef& ref, const std::vector<std::string_view>& urls,
    const std::vector<std::string_view>* data, int64_t now_ms) {
  if (data != nullptr) {
    if (data->size() != urls.size()) {
      return Status::InvalidArgument("every URL needs a value");
    }
    for (std::string_view value : *data) {
      Status s = UrlValues::CheckSize(value, opts_.max_url_data);
      if (!s.ok()) return s;
    }
  }
  RefContext given;
  given.depth_site_fp = Fingerprint(ref.depth_site);
  given.depth = ref.depth;
  return AddLinks(ref.url, urls, data, now_ms, &given);
}

StatusOr<std::vector<StatusOr<AddOutcome>>> FrontierImpl::AddLinks(
    std::string_view ref, const std::vector<std::string_view>& urls,
    const std::vector<std::string_view>* data, int64_t now_ms,
    const RefContext* given) {
  std::optional<Resolved> source;
  if (!ref.empty()) {
    StatusOr<Resolved> r = resolver_.Url(ref, "invalid ref URL");
    if (!r.ok()) return r.status();
    source = std::move(r).value();
  }
  std::vector<StatusOr<Resolved>> targets;
  targets.reserve(urls.size());
  for (std::string_view u : urls) {
    targets.push_back(resolver_.Url(u, "invalid URL"));
  }
  std::vector<uint32_t> order = InKeyOrder(targets);
  std::vector<bool> out_of_scope(targets.size(), false);
  for (uint32_t i : order) {
    out_of_scope[i] = OutOfScope(*targets[i], source ? &*source : nullptr);
  }
  std::erase_if(order, [&](uint32_t i) { return out_of_scope[i]; });

  std::vector<StatusOr<AddOutcome>> results;
  Status s = RunWrite([&](DbTxn* t) {
    results.assign(targets.size(), StatusOr<AddOutcome>(AddOutcome::kKnown));
    for (size_t i = 0; i < targets.size(); ++i) {
      if (!targets[i].ok()) results[i] = targets[i].status();
      if (out_of_scope[i]) results[i] = AddOutcome::kOutOfScope;
    }
    RefContext ctx;
    if (given != nullptr) {
      ctx = *given;
    } else if (source) {
      Status rs = LoadRefContext(t, *source, &ctx);
      if (!rs.ok()) return rs;
    }
    AddOptions options;
    for (uint32_t i : order) {
      if (data != nullptr) options.data = (*data)[i];
      AddOutcome outcome = AddOutcome::kKnown;
      const bool has_ref = source || given != nullptr;
      Status as = AddOne(t, *targets[i], has_ref ? &ctx : nullptr, options,
                         now_ms, /*likely_new=*/false, &outcome);
      if (as.IsInvalidArgument()) {
        results[i] = as;
      } else if (!as.ok()) {
        return as;
      } else {
        results[i] = outcome;
      }
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return results;
}

StatusOr<std::vector<StatusOr<bool>>> FrontierImpl::SeenMany(
    const std::vector<std::string_view>& urls) {
  std::vector<StatusOr<Resolved>> targets;
  targets.reserve(urls.size());
  for (std::string_view u : urls) {
    targets.push_back(resolver_.Url(u, "invalid URL"));
  }
  const std::vector<uint32_t> order = InKeyOrder(targets);

  std::vector<StatusOr<bool>> results(urls.size(), StatusOr<bool>(false));
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!targets[i].ok()) results[i] = targets[i].status();
  }
  if (order.empty()) return results;

  // As Seen(): no transaction, so nothing to commit and no log record.
  bdb::Cursor cursor;
  Status s = cursor.Open(&urls_.db(), nullptr);
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
    // Two URLs with one fingerprint: the record names the one stored. A
    // record of a site being deleted is gone already (LoadUrl).
    results[i] = rec.url == target.norm.url && !tombstones_.IsDeleted(rec);
  }
  s = cursor.Close();
  if (!s.ok()) return s;
  return results;
}

}  // namespace frontier
