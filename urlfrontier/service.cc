// The unary rpcs of the Service (service.h); the streams are in
// get_urls.cc and put_urls.cc.
#include "urlfrontier/service.h"

#include <chrono>
#include <utility>

#include "urlfrontier/convert.h"
#include "urlfrontier/url_scan.h"

namespace frontier::urlfrontier {
namespace {

using Commands = std::vector<Caller::Command>;

// The metadata value of `key` in a call's client metadata, "" if absent.
std::string MetadataValue(grpc::CallbackServerContext* ctx,
                          std::string_view key) {
  const auto& md = ctx->client_metadata();
  auto it = md.find(grpc::string_ref(key.data(), key.size()));
  if (it == md.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// CRAWL INFO or SITE INFO's URL count: the sum of its states.
uint64_t UrlCount(const RespValue& info) {
  if (const RespValue* urls = info.Field("urls")) {
    return static_cast<uint64_t>(urls->AsInt().value_or(0));
  }
  uint64_t total = 0;
  for (const char* state :
       {"queued", "leased", "done", "scheduled", "dead", "excluded"}) {
    if (const RespValue* v = info.Field(state)) {
      total += static_cast<uint64_t>(v->AsInt().value_or(0));
    }
  }
  return total;
}

}  // namespace

Service::Service(ServiceOptions options) : options_(std::move(options)) {}

std::shared_ptr<Caller> Service::OpenCaller(Ctx* ctx) {
  return Caller::Open(*options_.channel, "grpc:" + ctx->peer(),
                      MetadataValue(ctx, "user"),
                      MetadataValue(ctx, "password"));
}

Service::Unary* Service::RunUnary(
    Ctx* ctx, Rpc rpc, Commands commands,
    std::function<grpc::Status(std::vector<RespValue>&)> fill) {
  Unary* reactor = ctx->DefaultReactor();
  RpcStats* stats = options_.stats;
  stats->Started(rpc);
  std::shared_ptr<Caller> caller = OpenCaller(ctx);
  // The continuation holds the Caller: it lives until the answer is in.
  caller->Call(
      std::move(commands),
      [reactor, caller, stats, rpc, fill = std::move(fill)](
          const grpc::Status& status, std::vector<RespValue>& replies) mutable {
        const grpc::Status result = status.ok() ? fill(replies) : status;
        stats->Ended(rpc, result.ok());
        reactor->Finish(result);
        caller.reset();
      });
  return reactor;
}

Service::Unary* Service::Answer(Ctx* ctx, Rpc rpc, grpc::Status status) {
  options_.stats->Started(rpc);
  options_.stats->Ended(rpc, status.ok());
  Unary* reactor = ctx->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

Service::Unary* Service::ListNodes(Ctx* ctx, const ::urlfrontier::Empty*,
                                   ::urlfrontier::StringList* reply) {
  // One node: frontierd's replicas follow it, they serve no frontier of
  // their own.
  reply->add_values(options_.node);
  return Answer(ctx, Rpc::kListNodes, grpc::Status::OK);
}

Service::Unary* Service::ListCrawls(Ctx* ctx, const ::urlfrontier::Local*,
                                    ::urlfrontier::StringList* reply) {
  return RunUnary(ctx, Rpc::kListCrawls, {{"CRAWL", "LIST"}},
                  [reply](std::vector<RespValue>& replies) {
                    if (replies[0].is_error()) {
                      return StatusOfError(replies[0]);
                    }
                    for (RespValue& name : replies[0].elements) {
                      reply->add_values(std::move(name.str));
                    }
                    return grpc::Status::OK;
                  });
}

Service::Unary* Service::DeleteCrawl(
    Ctx* ctx, const ::urlfrontier::DeleteCrawlMessage* request,
    ::urlfrontier::Long* reply) {
  const std::string crawl = CrawlName(request->value());
  // Counted and deleted in one batch: nothing of this client runs between.
  return RunUnary(ctx, Rpc::kDeleteCrawl,
                  {{"CRAWL", "INFO", crawl}, {"CRAWL", "DELETE", crawl}},
                  [reply](std::vector<RespValue>& replies) {
                    if (replies[1].is_error()) return StatusOfError(replies[1]);
                    // An unknown crawl deletes nothing: 0 URLs, as the
                    // reference.
                    if (!replies[0].is_error())
                      reply->set_value(UrlCount(replies[0]));
                    return grpc::Status::OK;
                  });
}

Service::Unary* Service::GetStats(
    Ctx* ctx, const ::urlfrontier::QueueWithinCrawlParams* request,
    ::urlfrontier::Stats* reply) {
  const std::string crawl = CrawlName(request->crawlid());
  reply->set_crawlid(request->crawlid());
  if (request->key().empty()) {
    return RunUnary(ctx, Rpc::kGetStats, {{"CRAWL", "INFO", crawl}},
                    [reply](std::vector<RespValue>& replies) {
                      if (replies[0].is_error()) {
                        return StatusOfError(replies[0]);
                      }
                      FillStats(replies[0], reply);
                      return grpc::Status::OK;
                    });
  }
  return RunUnary(ctx, Rpc::kGetStats,
                  {{"CRAWL", crawl}, {"SITE", "INFO", request->key()}},
                  [reply](std::vector<RespValue>& replies) {
                    grpc::Status s = FirstError(replies);
                    if (!s.ok()) return s;
                    FillStats(replies[1], reply);
                    reply->set_numberofqueues(replies[1].is_nil() ? 0 : 1);
                    return grpc::Status::OK;
                  });
}

Service::Unary* Service::DeleteQueue(
    Ctx* ctx, const ::urlfrontier::QueueWithinCrawlParams* request,
    ::urlfrontier::Long* reply) {
  return RunUnary(
      ctx, Rpc::kDeleteQueue,
      {{"CRAWL", CrawlName(request->crawlid())},
       {"SITE", "DELETE", request->key()}},
      [reply](std::vector<RespValue>& replies) {
        grpc::Status s = FirstError(replies);
        if (!s.ok()) return s;
        reply->set_value(static_cast<uint64_t>(replies[1].AsInt().value_or(0)));
        return grpc::Status::OK;
      });
}

Service::Unary* Service::BlockQueueUntil(
    Ctx* ctx, const ::urlfrontier::BlockQueueParams* request,
    ::urlfrontier::Empty*) {
  // A date for URL Frontier, a duration for SITE BLOCK; 0 (or a date
  // gone by) unblocks.
  const int64_t until = static_cast<int64_t>(request->time());
  const int64_t secs =
      until == 0 ? 0 : std::max<int64_t>(until - NowSeconds(), 0);
  return RunUnary(
      ctx, Rpc::kBlockQueueUntil,
      {{"CRAWL", CrawlName(request->crawlid())},
       {"SITE", "BLOCK", request->key(), std::to_string(secs)}},
      [](std::vector<RespValue>& replies) { return FirstError(replies); });
}

Service::Unary* Service::SetDelay(
    Ctx* ctx, const ::urlfrontier::QueueDelayParams* request,
    ::urlfrontier::Empty*) {
  const std::string secs = std::to_string(request->delay_requestable());
  Caller::Command command =
      request->key().empty()
          // Every queue: the server's default delay (politeness-delay).
          ? Caller::Command{"CONFIG", "SET", "politeness-delay", secs}
          : Caller::Command{"SITE", "DELAY", request->key(), secs};
  return RunUnary(
      ctx, Rpc::kSetDelay,
      {{"CRAWL", CrawlName(request->crawlid())}, std::move(command)},
      [](std::vector<RespValue>& replies) { return FirstError(replies); });
}

Service::Unary* Service::SetLogLevel(
    Ctx* ctx, const ::urlfrontier::LogLevelParams* request,
    ::urlfrontier::Empty*) {
  // frontierd has one log level for the whole process: the package is
  // not looked at.
  using Level = ::urlfrontier::LogLevelParams;
  const char* level = "notice";
  switch (request->level()) {
    case Level::TRACE:
      level = "debug";
      break;
    case Level::DEBUG:
      level = "verbose";
      break;
    case Level::INFO:
      level = "notice";
      break;
    default:
      level = "warning";
      break;
  }
  return RunUnary(
      ctx, Rpc::kSetLogLevel, {{"CONFIG", "SET", "loglevel", level}},
      [](std::vector<RespValue>& replies) { return FirstError(replies); });
}

Service::Unary* Service::GetURLStatus(
    Ctx* ctx, const ::urlfrontier::URLStatusRequest* request,
    ::urlfrontier::URLItem* reply) {
  const std::string crawl = CrawlName(request->crawlid());
  return RunUnary(
      ctx, Rpc::kGetURLStatus, {{"CRAWL", crawl}, {"URLINFO", request->url()}},
      [reply, crawl](std::vector<RespValue>& replies) {
        grpc::Status s = FirstError(replies);
        if (!s.ok()) return s;
        if (!FillUrlItem(replies[1], crawl, reply)) {
          return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown URL");
        }
        return grpc::Status::OK;
      });
}

Service::Unary* Service::CountURLs(Ctx* ctx,
                                   const ::urlfrontier::CountUrlParams* request,
                                   ::urlfrontier::Long* reply) {
  const std::string crawl = CrawlName(request->crawlid());
  if (!request->filter().empty()) {
    // The URLs that contain the filter: counted by a scan, in slices.
    Unary* reactor = ctx->DefaultReactor();
    RpcStats* stats = options_.stats;
    stats->Started(Rpc::kCountURLs);
    auto count = std::make_shared<uint64_t>(0);
    UrlScan::Start(
        OpenCaller(ctx),
        {crawl, request->key(), request->filter(), request->ignorecase()},
        [count](std::vector<std::string>& urls) {
          *count += urls.size();
          return true;
        },
        [reactor, reply, count, stats](const grpc::Status& status) {
          if (status.ok()) reply->set_value(*count);
          stats->Ended(Rpc::kCountURLs, status.ok());
          reactor->Finish(status);
        });
    return reactor;
  }
  Commands commands;
  if (request->key().empty()) {
    commands = {{"CRAWL", "INFO", crawl}};
  } else {
    commands = {{"CRAWL", crawl}, {"SITE", "INFO", request->key()}};
  }
  return RunUnary(ctx, Rpc::kCountURLs, std::move(commands),
                  [reply](std::vector<RespValue>& replies) {
                    grpc::Status s = FirstError(replies);
                    if (!s.ok()) return s;
                    reply->set_value(UrlCount(replies.back()));
                    return grpc::Status::OK;
                  });
}

Service::Unary* Service::SetActive(Ctx* ctx,
                                   const ::urlfrontier::Active* request,
                                   ::urlfrontier::Empty*) {
  // One switch for the node, every crawl, RESP's POP included.
  return RunUnary(
      ctx, Rpc::kSetActive, {{"PAUSE", request->state() ? "OFF" : "ON"}},
      [](std::vector<RespValue>& replies) { return FirstError(replies); });
}

Service::Unary* Service::GetActive(Ctx* ctx, const ::urlfrontier::Local*,
                                   ::urlfrontier::Boolean* reply) {
  return RunUnary(ctx, Rpc::kGetActive, {{"PAUSE", "STATUS"}},
                  [reply](std::vector<RespValue>& replies) {
                    grpc::Status s = FirstError(replies);
                    if (!s.ok()) return s;
                    reply->set_state(replies[0].AsInt().value_or(0) == 0);
                    return grpc::Status::OK;
                  });
}

Service::Unary* Service::SetCrawlLimit(
    Ctx* ctx, const ::urlfrontier::CrawlLimitParams* request,
    ::urlfrontier::Empty*) {
  return RunUnary(
      ctx, Rpc::kSetCrawlLimit,
      {{"CRAWL", CrawlName(request->crawlid())},
       {"SITE", "CRAWLLIMIT", request->key(), std::to_string(request->limit())}},
      [](std::vector<RespValue>& replies) { return FirstError(replies); });
}

}  // namespace frontier::urlfrontier
