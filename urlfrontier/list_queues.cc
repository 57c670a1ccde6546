// ListQueues (service.h): SITE LIST scans in the crawl, a slice of 1,000
// site records a command, so a large crawl's scan runs between the loop's
// passes instead of holding it; the page asked for is kept, the rest
// counted.
#include <memory>

#include "urlfrontier/convert.h"
#include "urlfrontier/service.h"

namespace frontier::urlfrontier {
namespace {

// Site records read by one SITE LIST.
constexpr const char* kSlice = "1000";
// A page without a size: URL Frontier's default.
constexpr uint32_t kDefaultPageSize = 100;

class QueueScan : public std::enable_shared_from_this<QueueScan> {
 public:
  QueueScan(std::shared_ptr<Caller> caller, RpcStats* stats,
            grpc::ServerUnaryReactor* reactor, const pb::Pagination& request,
            pb::QueueList* reply)
      : caller_(std::move(caller)),
        stats_(stats),
        reactor_(reactor),
        reply_(reply),
        crawl_(CrawlName(request.crawlid())),
        start_(request.start()),
        size_(request.size() == 0 ? kDefaultPageSize : request.size()) {
    // Active = has URLs to hand out and is not blocked: ready now, or
    // waiting for its delay or a lease to end.
    if (request.include_inactive()) {
      filters_ = {"ALL"};
    } else {
      filters_ = {"READY", "WAITING"};
    }
    reply_->set_start(start_);
    reply_->set_crawlid(request.crawlid());
  }

  void Next(bool first) {
    std::vector<Caller::Command> commands;
    if (first) commands.push_back({"CRAWL", crawl_});
    commands.push_back({"SITE", "LIST", filters_[filter_], "CURSOR", cursor_,
                        "COUNT", kSlice});
    caller_->Call(std::move(commands),
                  [self = shared_from_this()](const grpc::Status& status,
                                              std::vector<RespValue>& replies) {
                    self->Take(status, replies);
                  });
  }

 private:
  void Take(const grpc::Status& status, std::vector<RespValue>& replies) {
    grpc::Status s = status.ok() ? FirstError(replies) : status;
    const RespValue& page = replies.empty() ? RespValue() : replies.back();
    if (s.ok() && (page.elements.size() != 2)) {
      s = grpc::Status(grpc::StatusCode::INTERNAL, "unexpected SITE LIST");
    }
    if (!s.ok()) {
      End(s);
      return;
    }
    for (const RespValue& site : page.elements[1].elements) {
      if (total_ >= start_ && total_ - start_ < size_) {
        reply_->add_values(site.str);
      }
      ++total_;
    }
    cursor_ = page.elements[0].str;
    if (cursor_ == "0") {
      if (++filter_ == filters_.size()) {
        reply_->set_total(total_);
        reply_->set_size(static_cast<uint32_t>(reply_->values_size()));
        End(grpc::Status::OK);
        return;
      }
    }
    Next(false);
  }

  void End(const grpc::Status& status) {
    stats_->Ended(Rpc::kListQueues, status.ok());
    reactor_->Finish(status);
  }

  std::shared_ptr<Caller> caller_;
  RpcStats* stats_;
  grpc::ServerUnaryReactor* reactor_;
  pb::QueueList* reply_;
  const std::string crawl_;
  const uint64_t start_;
  const uint64_t size_;
  std::vector<std::string> filters_;
  size_t filter_ = 0;
  std::string cursor_ = "0";
  uint64_t total_ = 0;
};

}  // namespace

Service::Unary* Service::ListQueues(Ctx* ctx, const pb::Pagination* request,
                                    pb::QueueList* reply) {
  Unary* reactor = ctx->DefaultReactor();
  options_.stats->Started(Rpc::kListQueues);
  std::make_shared<QueueScan>(OpenCaller(ctx), options_.stats, reactor,
                              *request, reply)
      ->Next(true);
  return reactor;
}

}  // namespace frontier::urlfrontier
