// Service: frontierd's implementation of URL Frontier's gRPC service
// (proto/urlfrontier.proto), on gRPC's callback API. Each rpc becomes RESP
// commands that a Caller runs in the event loop on an internal client of
// its own, so the command table checks and runs them exactly as it would a
// socket client's (users and roles, crawls, durability before the reply).
// This class only turns messages into commands and replies into messages.
// The rpcs it does not override answer UNIMPLEMENTED (gRPC's default);
// docs/urlfrontier.md lists them.
#pragma once

#include <memory>
#include <string>

#include "urlfrontier.grpc.pb.h"
#include "urlfrontier/caller.h"
#include "urlfrontier/rpc_stats.h"

namespace frontier::urlfrontier {

// What a Service needs from the server around it.
struct ServiceOptions {
  // The internal clients' opener; must outlive the Service.
  CommandChannel* channel = nullptr;
  // Where calls, errors and open calls are counted; must outlive the
  // Service.
  RpcStats* stats = nullptr;
  // "host:port" of this node, for ListNodes.
  std::string node;
  // PutURLs/PutDiscovered: items read and not yet acked, per stream; the
  // stream reads no further until acks go out.
  size_t max_in_flight = 256;
};

class Service final : public ::urlfrontier::URLFrontier::CallbackService {
 public:
  explicit Service(ServiceOptions options);

  using Ctx = grpc::CallbackServerContext;
  using Unary = grpc::ServerUnaryReactor;

  Unary* ListNodes(Ctx* ctx, const ::urlfrontier::Empty* request,
                   ::urlfrontier::StringList* reply) override;
  Unary* ListCrawls(Ctx* ctx, const ::urlfrontier::Local* request,
                    ::urlfrontier::StringList* reply) override;
  Unary* DeleteCrawl(Ctx* ctx, const ::urlfrontier::DeleteCrawlMessage* request,
                     ::urlfrontier::Long* reply) override;
  Unary* GetStats(Ctx* ctx,
                  const ::urlfrontier::QueueWithinCrawlParams* request,
                  ::urlfrontier::Stats* reply) override;
  Unary* DeleteQueue(Ctx* ctx,
                     const ::urlfrontier::QueueWithinCrawlParams* request,
                     ::urlfrontier::Long* reply) override;
  Unary* BlockQueueUntil(Ctx* ctx,
                         const ::urlfrontier::BlockQueueParams* request,
                         ::urlfrontier::Empty* reply) override;
  Unary* SetDelay(Ctx* ctx, const ::urlfrontier::QueueDelayParams* request,
                  ::urlfrontier::Empty* reply) override;
  Unary* SetLogLevel(Ctx* ctx, const ::urlfrontier::LogLevelParams* request,
                     ::urlfrontier::Empty* reply) override;
  Unary* GetURLStatus(Ctx* ctx, const ::urlfrontier::URLStatusRequest* request,
                      ::urlfrontier::URLItem* reply) override;
  Unary* ListQueues(Ctx* ctx, const ::urlfrontier::Pagination* request,
                    ::urlfrontier::QueueList* reply) override;
  Unary* CountURLs(Ctx* ctx, const ::urlfrontier::CountUrlParams* request,
                   ::urlfrontier::Long* reply) override;
  Unary* SetActive(Ctx* ctx, const ::urlfrontier::Active* request,
                   ::urlfrontier::Empty* reply) override;
  Unary* GetActive(Ctx* ctx, const ::urlfrontier::Local* request,
                   ::urlfrontier::Boolean* reply) override;
  Unary* SetCrawlLimit(Ctx* ctx, const ::urlfrontier::CrawlLimitParams* request,
                       ::urlfrontier::Empty* reply) override;
  // purge_urls.cc
  Unary* PurgeURLs(Ctx* ctx, const ::urlfrontier::PurgeUrlParams* request,
                   ::urlfrontier::Long* reply) override;

  grpc::ServerWriteReactor<::urlfrontier::URLInfo>* GetURLs(
      Ctx* ctx, const ::urlfrontier::GetParams* request) override;
  grpc::ServerWriteReactor<::urlfrontier::URLItem>* ListURLs(
      Ctx* ctx, const ::urlfrontier::ListUrlParams* request) override;
  grpc::ServerBidiReactor<::urlfrontier::URLItem, ::urlfrontier::AckMessage>*
  PutURLs(Ctx* ctx) override;
  grpc::ServerBidiReactor<::urlfrontier::DiscoveredBatch,
                          ::urlfrontier::BatchAck>*
  PutDiscovered(Ctx* ctx) override;

 private:
  // A Caller for one call: its peer, and the user and password of its
  // metadata ("user", "password") when it has them.
  std::shared_ptr<Caller> OpenCaller(Ctx* ctx);
  // Runs `commands` as one batch for a call of `rpc`; `fill` turns their
  // replies into the reply message and returns the call's status.
  Unary* RunUnary(Ctx* ctx, Rpc rpc, std::vector<Caller::Command> commands,
                  std::function<grpc::Status(std::vector<RespValue>&)> fill);

  // A unary call that ends at once with `status`, counted.
  Unary* Answer(Ctx* ctx, Rpc rpc, grpc::Status status);

  ServiceOptions options_;
};

}  // namespace frontier::urlfrontier
