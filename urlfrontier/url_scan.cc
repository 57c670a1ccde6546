#include "urlfrontier/url_scan.h"

#include <utility>

#include "urlfrontier/convert.h"

namespace frontier::urlfrontier {
namespace {
// URL records read by one URLS.
constexpr const char* kSlice = "1000";
}  // namespace

UrlScan::UrlScan(std::shared_ptr<Caller> caller, UrlScanParams params,
                 Slice slice, Done done)
    : caller_(std::move(caller)),
      params_(std::move(params)),
      slice_(std::move(slice)),
      done_(std::move(done)) {}

void UrlScan::Start(std::shared_ptr<Caller> caller, UrlScanParams params,
                    Slice slice, Done done) {
  std::shared_ptr<UrlScan> scan(new UrlScan(
      std::move(caller), std::move(params), std::move(slice), std::move(done)));
  scan->caller_->Call(
      {{"CRAWL", "INFO", scan->params_.crawl}},
      [scan](const grpc::Status& status, std::vector<RespValue>& replies) {
        grpc::Status s = status.ok() ? FirstError(replies) : status;
        if (!s.ok()) return scan->done_(s);
        scan->Next();
      });
}

void UrlScan::Next() {
  Caller::Command urls = {"URLS", "CURSOR", cursor_, "COUNT", kSlice};
  if (!params_.key.empty()) {
    urls.insert(urls.end(), {"SITE", params_.key});
  }
  if (!params_.filter.empty()) {
    urls.insert(urls.end(), {"MATCH", params_.filter});
    if (params_.ignore_case) urls.push_back("NOCASE");
  }
  caller_->Call(
      {{"CRAWL", params_.crawl}, std::move(urls)},
      [self = shared_from_this()](const grpc::Status& status,
                                  std::vector<RespValue>& replies) {
        grpc::Status s = status.ok() ? FirstError(replies) : status;
        if (s.ok() && replies[1].elements.size() != 2) {
          s = grpc::Status(grpc::StatusCode::INTERNAL, "unexpected URLS reply");
        }
        if (!s.ok()) return self->done_(s);
        std::vector<std::string> found;
        for (RespValue& url : replies[1].elements[1].elements) {
          found.push_back(std::move(url.str));
        }
        self->cursor_ = replies[1].elements[0].str;
        if (!self->slice_(found) || self->cursor_ == "0") {
          return self->done_(grpc::Status::OK);
        }
        self->Next();
      });
}

}  // namespace frontier::urlfrontier
