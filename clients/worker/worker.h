// The crawl loop of frontier-worker: leases URLs from frontierd with BPOP on
// one connection, fetches them (up to --concurrency at once), and reports
// each page on a second connection (MADD its links, then CONFIRM, or FAIL),
// so that a waiting BPOP never delays a report. Stop() (from a signal) stops
// leasing; in-flight fetches get --grace seconds, then are handed back.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/resp_connection.h"
#include "fetcher.h"
#include "options.h"
#include "page_store.h"

namespace worker {

// What a run did, printed when it ends.
struct Totals {
  int64_t leased = 0;       // URLs handed out by BPOP
  int64_t fetched = 0;      // fetches reported with CONFIRM
  int64_t confirmed = 0;    // CONFIRMs of leased URLs that replied 1
  int64_t failed = 0;       // FAILs for transient errors
  int64_t links = 0;        // links sent with MADD
  int64_t new_links = 0;    // of which new to the frontier
  int64_t handed_back = 0;  // leases given back unfetched at shutdown
  int64_t errors = 0;       // error replies from frontierd
};

class Worker {
 public:
  // Connects twice to frontierd and sets up libcurl and the page store.
  // Returns nullptr and sets *error if any of it fails.
  static std::unique_ptr<Worker> Create(const Options& o, std::string* error);

  // Crawls until stopped. `stop_fd` is the read end of a pipe that becomes
  // readable when a signal asks the worker to stop (each byte is one
  // signal: the second ends the grace period). A lost frontierd is
  // reconnected to for --reconnect seconds. Returns false, with *error
  // set, if frontierd was lost for good; true after a stop by signal, or
  // with --exit-when-done once the frontier is drained (done()).
  bool Run(int stop_fd, std::string* error);

  const Totals& totals() const { return totals_; }
  // True if Run() ended because the frontier had nothing left.
  bool done() const { return done_; }

 private:
  Worker(const Options& o, std::unique_ptr<frontier_client::Connection> lease,
         std::unique_ptr<frontier_client::Connection> report,
         std::unique_ptr<Fetcher> fetcher, std::unique_ptr<PageStore> store)
      : o_(o),
        lease_(std::move(lease)),
        report_(std::move(report)),
        fetcher_(std::move(fetcher)),
        store_(std::move(store)) {}

  enum class Step { kGoOn, kStopped, kLost };
  // One turn of the loop: lease, wait, report.
  Step RunOnce(int stop_fd);
  // After a lost connection: abandons what is in flight and opens both
  // connections again, retrying for o_.reconnect seconds. False with
  // *error set if it gave up, false with *error empty if a signal came.
  bool Reconnect(int stop_fd, std::string* error);
  bool SendBpop(int count);
  // Handles a complete BPOP reply: starts fetches, or hands the URLs back
  // when stopping.
  bool OnLeases(const redisReply& reply);
  // Sends `commands` pipelined and reads their replies; false if the
  // connection failed.
  bool Send(const std::vector<std::vector<std::string>>& commands,
            std::vector<frontier_client::ReplyPtr>* replies);
  bool Report(const FetchResult& r);
  bool HandBackAll(const std::vector<std::string>& urls);
  // --exit-when-done: asks STATS whether the frontier has no URL queued or
  // leased. False if it has, or on an error reply (counted); nullopt if
  // the connection failed.
  std::optional<bool> FrontierDrained();
  void Log(const FetchResult& r, size_t links, int64_t new_links);

  Options o_;
  std::unique_ptr<frontier_client::Connection> lease_;
  std::unique_ptr<frontier_client::Connection> report_;
  std::unique_ptr<Fetcher> fetcher_;
  std::unique_ptr<PageStore> store_;
  Totals totals_;
  bool bpop_outstanding_ = false;
  bool stopping_ = false;
  bool done_ = false;
  std::chrono::steady_clock::time_point grace_end_;
  std::chrono::steady_clock::time_point next_bpop_;  // after an error reply
};

}  // namespace worker
