// GetURLs (service.h): POP ... WITHDATA (SITE key, for one queue) in the
// crawl asked for, or in each crawl in turn for AnyCrawlID, and the URLs
// popped streamed back.
#include <algorithm>

#include "urlfrontier/convert.h"
#include "urlfrontier/service.h"
#include "urlfrontier/write_stream.h"

namespace frontier::urlfrontier {
namespace {

// Without limits from the client: as many queues as this, one URL each.
constexpr uint32_t kDefaultQueues = 1000;
// At most this many URLs for one call, whatever the limits.
constexpr uint64_t kMaxUrlsPerCall = 10000;

class GetUrlsReactor : public WriteStream<pb::URLInfo> {
 public:
  GetUrlsReactor(std::shared_ptr<Caller> caller, RpcStats* stats,
                 const pb::GetParams& params)
      : WriteStream(std::move(caller), stats, Rpc::kGetURLs) {
    const uint64_t queues =
        params.max_queues() == 0 ? kDefaultQueues : params.max_queues();
    const uint64_t per_queue =
        std::max<uint32_t>(params.max_urls_per_queue(), 1);
    // With a key, one queue: max_queues does not count.
    key_ = params.key();
    wanted_ = std::min(key_.empty() ? queues * per_queue : per_queue,
                       kMaxUrlsPerCall);
    lease_ = params.delay_requestable();
    if (params.item_case() == pb::GetParams::kAnyCrawlID) {
      Call({{"CRAWL", "LIST"}}, [this](std::vector<RespValue>& replies) {
        for (RespValue& name : replies[0].elements) {
          crawls_.push_back(std::move(name.str));
        }
        PopNext();
      });
      return;
    }
    crawls_.push_back(CrawlName(params.crawlid()));
    PopNext();
  }

 private:
  // Pops from the next crawl, or writes what was popped once every crawl
  // was asked or enough came.
  void PopNext() {
    if (next_crawl_ == crawls_.size() || messages_.size() >= wanted_) {
      WriteNext();
      return;
    }
    const std::string crawl = crawls_[next_crawl_++];
    Caller::Command pop = {
        "POP", "COUNT", std::to_string(wanted_ - messages_.size()), "WITHDATA"};
    if (lease_ > 0) {
      pop.push_back("LEASE");
      pop.push_back(std::to_string(lease_));
    }
    if (!key_.empty()) {
      pop.push_back("SITE");
      pop.push_back(key_);
    }
    Call({{"CRAWL", crawl}, std::move(pop)},
         [this, crawl](std::vector<RespValue>& replies) {
           for (const RespValue& pair : replies[1].elements) {
             if (pair.elements.size() != 2) continue;
             FillUrlInfo(pair.elements[0].str, pair.elements[1], crawl,
                         &messages_.emplace_back());
           }
           PopNext();
         });
  }

  uint64_t wanted_ = 0;
  uint32_t lease_ = 0;
  std::string key_;  // only this queue (site), when not empty
  // Touched by one thread at a time: the batches run one after the other,
  // and writes start only after the last of them.
  std::vector<std::string> crawls_;
  size_t next_crawl_ = 0;
};

}  // namespace

grpc::ServerWriteReactor<pb::URLInfo>* Service::GetURLs(
    Ctx* ctx, const pb::GetParams* request) {
  return new GetUrlsReactor(OpenCaller(ctx), options_.stats, *request);
}

}  // namespace frontier::urlfrontier
