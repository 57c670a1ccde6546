// PurgeURLs (service.h): the URLs of a crawl, or of one queue, first
// stored more than `days` days ago are removed by PURGE, one slice of
// URL records a command (one transaction each), so a purge of millions of
// URLs runs between the loop's passes; the answer is the sum of the
// slices' counts, sent once the last slice is durable.
#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "urlfrontier/convert.h"
#include "urlfrontier/service.h"

namespace frontier::urlfrontier {
namespace {

// URL records read by one PURGE (its own cap is 1,000).
constexpr const char* kSlice = "250";

class Purge : public std::enable_shared_from_this<Purge> {
 public:
  using Done = std::function<void(const grpc::Status&, uint64_t removed)>;

  Purge(std::shared_ptr<Caller> caller, std::string crawl, std::string key,
        int64_t before_s, Done done)
      : caller_(std::move(caller)),
        crawl_(std::move(crawl)),
        key_(std::move(key)),
        before_(std::to_string(before_s)),
        done_(std::move(done)) {}

  // Checks that the crawl exists (a purge never creates one: an unknown
  // crawl has nothing to remove, 0), then runs the slices.
  void Start() {
    caller_->Call({{"CRAWL", "INFO", crawl_}},
                  [self = shared_from_this()](const grpc::Status& status,
                                              std::vector<RespValue>& replies) {
                    if (!status.ok()) return self->done_(status, 0);
                    grpc::Status s = FirstError(replies);
                    if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
                      return self->done_(grpc::Status::OK, 0);
                    }
                    if (!s.ok()) return self->done_(s, 0);
                    self->Next();
                  });
  }

 private:
  void Next() {
    Caller::Command purge = {"PURGE",   "BEFORE", before_, "CURSOR",
                             cursor_,   "COUNT",  kSlice};
    if (!key_.empty()) purge.insert(purge.end(), {"SITE", key_});
    caller_->Call(
        {{"CRAWL", crawl_}, std::move(purge)},
        [self = shared_from_this()](const grpc::Status& status,
                                    std::vector<RespValue>& replies) {
          grpc::Status s = status.ok() ? FirstError(replies) : status;
          if (s.ok() && replies[1].elements.size() != 2) {
            s = grpc::Status(grpc::StatusCode::INTERNAL,
                             "unexpected PURGE reply");
          }
          if (!s.ok()) return self->done_(s, self->removed_);
          self->removed_ += static_cast<uint64_t>(
              replies[1].elements[1].AsInt().value_or(0));
          self->cursor_ = replies[1].elements[0].str;
          if (self->cursor_ == "0") {
            return self->done_(grpc::Status::OK, self->removed_);
          }
          self->Next();
        });
  }

  std::shared_ptr<Caller> caller_;
  const std::string crawl_;
  const std::string key_;
  const std::string before_;
  Done done_;
  std::string cursor_ = "0";
  uint64_t removed_ = 0;
};

}  // namespace

Service::Unary* Service::PurgeURLs(Ctx* ctx,
                                   const ::urlfrontier::PurgeUrlParams* request,
                                   ::urlfrontier::Long* reply) {
  constexpr int64_t kDay = 24 * 60 * 60;
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  // Created strictly before now less `days` days (0 days: before now).
  const int64_t before_s =
      std::max<int64_t>(0, now_s - static_cast<int64_t>(request->days()) * kDay);
  Unary* reactor = ctx->DefaultReactor();
  RpcStats* stats = options_.stats;
  stats->Started(Rpc::kPurgeURLs);
  auto purge = std::make_shared<Purge>(
      OpenCaller(ctx), CrawlName(request->crawlid()), request->key(), before_s,
      [reactor, reply, stats](const grpc::Status& status, uint64_t removed) {
        if (status.ok()) reply->set_value(removed);
        stats->Ended(Rpc::kPurgeURLs, status.ok());
        reactor->Finish(status);
      });
  purge->Start();
  return reactor;
}

}  // namespace frontier::urlfrontier
