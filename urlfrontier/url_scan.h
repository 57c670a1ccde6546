// UrlScan: one crawl's URLs, a slice at a time, for ListURLs and CountURLs
// (docs/urlfrontier.md). Each slice is one `URLS ... COUNT 1000` command,
// so a scan of millions of URLs runs between the loop's passes instead of
// holding it. Checks first that the crawl exists (`CRAWL INFO`: a scan
// never creates one).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "urlfrontier/caller.h"

namespace frontier::urlfrontier {

struct UrlScanParams {
  std::string crawl;   // frontierd's crawl name (CrawlName())
  std::string key;     // the queue (site); "" = every queue
  std::string filter;  // only URLs containing it; "" = every URL
  bool ignore_case = false;
};

class UrlScan : public std::enable_shared_from_this<UrlScan> {
 public:
  // The URLs of one slice (possibly none); return false to stop the scan.
  using Slice = std::function<bool(std::vector<std::string>& urls)>;
  // Once: OK when the scan ended (or a Slice stopped it), else why not.
  using Done = std::function<void(const grpc::Status& status)>;

  // Starts the scan on `caller`; `slice` and `done` run on the thread
  // that delivers the replies, one at a time.
  static void Start(std::shared_ptr<Caller> caller, UrlScanParams params,
                    Slice slice, Done done);

 private:
  UrlScan(std::shared_ptr<Caller> caller, UrlScanParams params, Slice slice,
          Done done);
  void Next();

  std::shared_ptr<Caller> caller_;
  const UrlScanParams params_;
  Slice slice_;
  Done done_;
  std::string cursor_ = "0";
};

}  // namespace frontier::urlfrontier
