// ListURLs (service.h): the URLs of a crawl, or of one queue, that contain
// the filter, from position `start`, at most `size` of them: a UrlScan
// finds the page's URLs, URLINFO (in batches) reads what each one is, and
// the items are streamed back.
#include <algorithm>

#include "urlfrontier/convert.h"
#include "urlfrontier/service.h"
#include "urlfrontier/url_scan.h"
#include "urlfrontier/write_stream.h"

namespace frontier::urlfrontier {
namespace {

// A page without a size: as ListQueues.
constexpr uint64_t kDefaultPageSize = 100;
// At most this many URLs for one call, as GetURLs.
constexpr uint64_t kMaxPageSize = 10000;
// URLINFO commands in one batch.
constexpr size_t kInfoBatch = 500;

class ListUrlsReactor : public WriteStream<pb::URLItem> {
 public:
  ListUrlsReactor(std::shared_ptr<Caller> caller, RpcStats* stats,
                  const pb::ListUrlParams& params)
      : WriteStream(std::move(caller), stats, Rpc::kListURLs),
        crawl_(CrawlName(params.crawlid())),
        start_(params.start()),
        size_(std::min<uint64_t>(
            params.size() == 0 ? kDefaultPageSize : params.size(),
            kMaxPageSize)) {
    UrlScanParams scan{crawl_, params.key(), params.filter(),
                       params.ignorecase()};
    Pin();
    UrlScan::Start(
        caller_, std::move(scan),
        [this](std::vector<std::string>& urls) {
          for (std::string& url : urls) {
            if (seen_++ >= start_) page_.push_back(std::move(url));
            if (page_.size() == size_) return false;
          }
          return true;
        },
        [this](const grpc::Status& status) {
          if (status.ok()) {
            ReadNext();
          } else {
            End(status);
          }
          Unpin();
        });
  }

 private:
  // URLINFO for the next batch of the page, or the writes once all read.
  void ReadNext() {
    if (read_ == page_.size()) {
      WriteNext();
      return;
    }
    std::vector<Caller::Command> commands = {{"CRAWL", crawl_}};
    const size_t end = std::min(page_.size(), read_ + kInfoBatch);
    for (size_t i = read_; i < end; ++i) {
      commands.push_back({"URLINFO", page_[i]});
    }
    read_ = end;
    Call(std::move(commands), [this](std::vector<RespValue>& replies) {
      for (size_t i = 1; i < replies.size(); ++i) {
        // Nil: removed since the scan saw it.
        pb::URLItem item;
        if (FillUrlItem(replies[i], crawl_, &item)) {
          messages_.push_back(std::move(item));
        }
      }
      ReadNext();
    });
  }

  const std::string crawl_;
  const uint64_t start_;
  const uint64_t size_;
  // Touched by one thread at a time, as messages_.
  uint64_t seen_ = 0;
  std::vector<std::string> page_;
  size_t read_ = 0;
};

}  // namespace

grpc::ServerWriteReactor<pb::URLItem>* Service::ListURLs(
    Ctx* ctx, const pb::ListUrlParams* request) {
  return new ListUrlsReactor(OpenCaller(ctx), options_.stats, *request);
}

}  // namespace frontier::urlfrontier
