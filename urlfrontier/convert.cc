#include "urlfrontier/convert.h"

#include <cctype>

#include "urlfrontier/metadata_codec.h"

namespace frontier::urlfrontier {
namespace {

constexpr const char* kStates[] = {"queued",    "leased", "done",
                                   "scheduled", "dead",   "excluded"};

int64_t IntField(const RespValue& info, std::string_view name) {
  const RespValue* v = info.Field(name);
  return v == nullptr ? 0 : v->AsInt().value_or(0);
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string CrawlName(std::string_view crawl_id) {
  return crawl_id.empty() ? std::string("DEFAULT") : std::string(crawl_id);
}

bool ValidCrawlName(std::string_view crawl) {
  if (crawl.empty() || crawl.size() > 255) return false;
  for (unsigned char c : crawl) {
    if (c <= ' ' || c == 0x7f) return false;
  }
  std::string upper(crawl);
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper != "LIST" && upper != "INFO" && upper != "DELETE";
}

std::string QueueKeyOf(std::string_view url) {
  size_t start = url.find("://");
  if (start == std::string_view::npos) return std::string(url);
  start += 3;
  std::string_view authority = url.substr(start);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  // A port goes; an IPv6 literal keeps its brackets and colons.
  const size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos &&
      authority.find(']', colon) == std::string_view::npos) {
    authority = authority.substr(0, colon);
  }
  return std::string(authority);
}

grpc::Status StatusOfError(const RespValue& error) {
  const std::string& text = error.str;
  grpc::StatusCode code = grpc::StatusCode::UNAVAILABLE;
  if (StartsWith(text, "NOAUTH") || StartsWith(text, "WRONGPASS")) {
    code = grpc::StatusCode::UNAUTHENTICATED;
  } else if (StartsWith(text, "NOPERM") || StartsWith(text, "DENIED")) {
    code = grpc::StatusCode::PERMISSION_DENIED;
  } else if (StartsWith(text, "ERR no such")) {
    code = grpc::StatusCode::NOT_FOUND;
  } else if (StartsWith(text, "ERR ")) {
    code = grpc::StatusCode::INVALID_ARGUMENT;
  }
  return grpc::Status(code, text);
}

grpc::Status FirstError(const std::vector<RespValue>& replies) {
  for (const RespValue& reply : replies) {
    if (reply.is_error()) return StatusOfError(reply);
  }
  return grpc::Status::OK;
}

void FillUrlInfo(const std::string& url, const RespValue& data,
                 const std::string& crawl, pb::URLInfo* info) {
  info->set_url(url);
  info->set_key(QueueKeyOf(url));
  info->set_crawlid(crawl);
  if (data.type != RespValue::Type::kString || data.str.empty()) return;
  auto& out = *info->mutable_metadata();
  std::optional<Metadata> metadata = DecodeMetadata(data.str);
  if (!metadata) {
    out["data"].add_values(data.str);
    return;
  }
  for (auto& [key, values] : *metadata) {
    pb::StringList& list = out[key];
    for (std::string& value : values) list.add_values(std::move(value));
  }
}

bool FillUrlItem(const RespValue& urlinfo, const std::string& crawl,
                 pb::URLItem* item) {
  const RespValue* url = urlinfo.Field("url");
  if (url == nullptr) return false;
  const RespValue* data = urlinfo.Field("data");
  const RespValue* state = urlinfo.Field("state");
  const std::string s = state == nullptr ? "" : state->str;
  pb::URLInfo* info;
  if (s == "done" || s == "scheduled" || s == "dead") {
    pb::KnownURLItem* known = item->mutable_known();
    if (s == "scheduled") {
      known->set_refetchable_from_date(
          static_cast<uint64_t>(IntField(urlinfo, "due")));
    }
    info = known->mutable_info();
  } else {
    info = item->mutable_discovered()->mutable_info();
  }
  FillUrlInfo(url->str, data == nullptr ? RespValue() : *data, crawl, info);
  item->set_id(url->str);
  item->set_creation_date(static_cast<uint64_t>(IntField(urlinfo, "created")));
  return true;
}

void FillStats(const RespValue& info, pb::Stats* stats) {
  const int64_t leased = IntField(info, "leased");
  stats->set_size(static_cast<uint64_t>(IntField(info, "queued") + leased +
                                        IntField(info, "scheduled")));
  stats->set_inprocess(static_cast<uint32_t>(leased));
  for (const char* state : kStates) {
    (*stats->mutable_counts())[state] =
        static_cast<uint64_t>(IntField(info, state));
  }
  stats->set_numberofqueues(static_cast<uint64_t>(IntField(info, "sites")));
}

}  // namespace frontier::urlfrontier
