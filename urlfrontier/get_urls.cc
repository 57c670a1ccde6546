// GetURLs (service.h): POP ... WITHDATA in the crawl asked for, or in each
// crawl in turn for AnyCrawlID, and the URLs popped streamed back.
#include <algorithm>
#include <deque>
#include <mutex>

#include "urlfrontier/convert.h"
#include "urlfrontier/reactor_pins.h"
#include "urlfrontier/service.h"

namespace frontier::urlfrontier {
namespace {

// Without limits from the client: as many queues as this, one URL each.
constexpr uint32_t kDefaultQueues = 1000;
// At most this many URLs for one call, whatever the limits.
constexpr uint64_t kMaxUrlsPerCall = 10000;

class GetUrlsReactor : public grpc::ServerWriteReactor<pb::URLInfo> {
 public:
  // Counts the call in `stats`, which must outlive it.
  GetUrlsReactor(std::shared_ptr<Caller> caller, RpcStats* stats,
                 const pb::GetParams& params)
      : caller_(std::move(caller)), stats_(stats) {
    stats_->Started(Rpc::kGetURLs);
    const uint64_t queues =
        params.max_queues() == 0 ? kDefaultQueues : params.max_queues();
    const uint64_t per_queue =
        std::max<uint32_t>(params.max_urls_per_queue(), 1);
    wanted_ = std::min(queues * per_queue, kMaxUrlsPerCall);
    lease_ = params.delay_requestable();
    if (!params.key().empty()) {
      End(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                       "GetURLs for one queue (key) is not built"));
      return;
    }
    if (params.item_case() == pb::GetParams::kAnyCrawlID) {
      Pin();
      caller_->Call(
          {{"CRAWL", "LIST"}},
          [this](const grpc::Status& status, std::vector<RespValue>& replies) {
            if (!status.ok() || replies[0].is_error()) {
              End(status.ok() ? StatusOfError(replies[0]) : status);
            } else {
              for (RespValue& name : replies[0].elements) {
                crawls_.push_back(std::move(name.str));
              }
              PopNext();
            }
            Unpin();
          });
      return;
    }
    crawls_.push_back(CrawlName(params.crawlid()));
    PopNext();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "write failed"));
      return;
    }
    WriteNext();
  }

  void OnCancel() override {
    caller_->Fail(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  }

  void OnDone() override {
    if (pins_.Done()) delete this;
  }

 private:
  // Pops from the next crawl, or writes what was popped once every crawl
  // was asked or enough came.
  void PopNext() {
    if (next_crawl_ == crawls_.size() || popped_.size() >= wanted_) {
      WriteNext();
      return;
    }
    const std::string crawl = crawls_[next_crawl_++];
    Caller::Command pop = {
        "POP", "COUNT", std::to_string(wanted_ - popped_.size()), "WITHDATA"};
    if (lease_ > 0) {
      pop.push_back("LEASE");
      pop.push_back(std::to_string(lease_));
    }
    Pin();
    caller_->Call({{"CRAWL", crawl}, std::move(pop)},
                  [this, crawl](const grpc::Status& status,
                                std::vector<RespValue>& replies) {
                    grpc::Status s = status.ok() ? FirstError(replies) : status;
                    if (!s.ok()) {
                      End(s);
                    } else {
                      for (const RespValue& pair : replies[1].elements) {
                        if (pair.elements.size() != 2) continue;
                        FillUrlInfo(pair.elements[0].str, pair.elements[1],
                                    crawl, &popped_.emplace_back());
                      }
                      PopNext();
                    }
                    Unpin();
                  });
  }

  // One write at a time: the next URL, or the end.
  void WriteNext() {
    if (next_write_ < popped_.size()) {
      StartWrite(&popped_[next_write_++]);
    } else {
      End(grpc::Status::OK);
    }
  }

  void End(grpc::Status status) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_) return;
      finished_ = true;
    }
    stats_->Ended(Rpc::kGetURLs, status.ok());
    Finish(std::move(status));
  }

  void Pin() { pins_.Pin(); }
  void Unpin() {
    if (pins_.Unpin()) delete this;
  }

  std::shared_ptr<Caller> caller_;
  RpcStats* const stats_;
  uint64_t wanted_ = 0;
  uint32_t lease_ = 0;
  // Touched by one thread at a time: the batches run one after the other,
  // and writes start only after the last of them.
  std::vector<std::string> crawls_;
  size_t next_crawl_ = 0;
  std::deque<pb::URLInfo> popped_;
  size_t next_write_ = 0;

  ReactorPins pins_;
  std::mutex mu_;
  bool finished_ = false;
};

}  // namespace

grpc::ServerWriteReactor<pb::URLInfo>* Service::GetURLs(
    Ctx* ctx, const pb::GetParams* request) {
  return new GetUrlsReactor(OpenCaller(ctx), options_.stats, *request);
}

}  // namespace frontier::urlfrontier
