// PutURLs and PutDiscovered (service.h): each item becomes ADD (a
// discovered URL) or ADD ... REPLACE, RECRAWL and CONFIRM (a known one),
// each batch MADD, in the item's crawl; the acks go out once the loop has
// released the replies, that is once the writes are durable.
#include <chrono>
#include <cstdio>

#include "urlfrontier/acked_stream.h"
#include "urlfrontier/convert.h"
#include "urlfrontier/metadata_codec.h"
#include "urlfrontier/service.h"

namespace frontier::urlfrontier {
namespace {

using AckStatus = pb::AckMessage::Status;

constexpr size_t kSkipped = static_cast<size_t>(-1);

pb::AckMessage Ack(const std::string& id, AckStatus status) {
  pb::AckMessage ack;
  ack.set_id(id);
  ack.set_status(status);
  return ack;
}

Metadata MetadataOf(const pb::URLInfo& info) {
  Metadata metadata;
  for (const auto& [key, list] : info.metadata()) {
    metadata[key].assign(list.values().begin(), list.values().end());
  }
  return metadata;
}

// What one ADD reply (or one MADD element) means for the item: stored or
// known (OK), refused for good (an invalid URL, over a limit, out of
// scope: SKIPPED), or not done this time (any other error: FAIL).
AckStatus StatusOfAdd(const RespValue& reply) {
  if (reply.is_error()) {
    return reply.str.rfind("ERR ", 0) == 0 ? pb::AckMessage::SKIPPED
                                           : pb::AckMessage::FAIL;
  }
  return reply.integer >= 0 ? pb::AckMessage::OK : pb::AckMessage::SKIPPED;
}

// Seconds from now to `epoch_seconds`, at least a millisecond (RECRAWL
// takes 0 as "no period").
std::string SecondsUntil(uint64_t epoch_seconds) {
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  const double secs = std::max(static_cast<double>(epoch_seconds) - now, 0.001);
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", secs);
  return text;
}

// The crawl a stream's internal client is in, so that CRAWL goes only
// before the items that change it. Touched only by the stream's reads, one
// at a time.
struct CrawlTracker {
  std::string current;  // "" = not known (at the start, after an error)

  // Appends CRAWL to `commands` if `crawl_id` is not the current crawl.
  // Returns whether it did (then the batch's first reply is CRAWL's).
  bool Select(const std::string& crawl_id,
              std::vector<Caller::Command>* commands) {
    const std::string crawl = CrawlName(crawl_id);
    if (crawl == current) return false;
    current = crawl;
    commands->push_back({"CRAWL", crawl});
    return true;
  }
};

// The commands of one URLItem: its ADD, then for a known URL the update.
std::vector<Caller::Command> ItemCommands(const pb::URLItem& item,
                                          const pb::URLInfo& info) {
  const std::string& url = info.url();
  Caller::Command add = {"ADD", url, ""};
  const std::string data = EncodeMetadata(MetadataOf(info));
  if (!data.empty()) {
    add.push_back("DATA");
    add.push_back(data);
  }
  if (!item.has_known()) return {std::move(add)};
  // A known URL's metadata replaces what it had; it is done for good (no
  // recrawl period, confirmed) or done until its refetch date (a period
  // that brings it back then).
  add.push_back("REPLACE");
  std::vector<Caller::Command> commands = {
      std::move(add), {"RECRAWL", url, "0"}, {"CONFIRM", url}};
  const uint64_t refetch = item.known().refetchable_from_date();
  if (refetch != 0) {
    commands.push_back({"RECRAWL", url, SecondsUntil(refetch)});
  }
  return commands;
}

}  // namespace

grpc::ServerBidiReactor<pb::URLItem, pb::AckMessage>* Service::PutURLs(
    Ctx* ctx) {
  using Stream = AckedStream<pb::URLItem, pb::AckMessage>;
  auto crawls = std::make_shared<CrawlTracker>();
  return new Stream(
      OpenCaller(ctx), options_.max_in_flight, options_.stats, Rpc::kPutURLs,
      [crawls](pb::URLItem& item) {
        const pb::URLInfo& info =
            item.has_known() ? item.known().info() : item.discovered().info();
        std::string id = item.id().empty() ? info.url() : item.id();
        Stream::Work work;
        if (!ValidCrawlName(CrawlName(info.crawlid()))) {
          work.commands.push_back({"PING"});
          work.answer = [id = std::move(id)](const grpc::Status&,
                                             std::vector<RespValue>&) {
            return Ack(id, pb::AckMessage::SKIPPED);
          };
          return work;
        }
        const bool selects = crawls->Select(info.crawlid(), &work.commands);
        for (Caller::Command& c : ItemCommands(item, info)) {
          work.commands.push_back(std::move(c));
        }
        work.answer = [crawls, id = std::move(id), selects](
                          const grpc::Status& status,
                          std::vector<RespValue>& replies) {
          if (!status.ok()) return Ack(id, pb::AckMessage::FAIL);
          const size_t first = selects ? 1 : 0;
          if (selects && replies[0].is_error()) {
            // CRAWL refused (NOPERM): the ADD ran in the crawl the
            // connection was in; which one is not known any more.
            crawls->current.clear();
            return Ack(id, pb::AckMessage::FAIL);
          }
          AckStatus result = StatusOfAdd(replies[first]);
          for (size_t i = first + 1; i < replies.size(); ++i) {
            if (replies[i].is_error()) result = pb::AckMessage::FAIL;
          }
          return Ack(id, result);
        };
        return work;
      });
}

grpc::ServerBidiReactor<pb::DiscoveredBatch, pb::BatchAck>*
Service::PutDiscovered(Ctx* ctx) {
  using Stream = AckedStream<pb::DiscoveredBatch, pb::BatchAck>;
  return new Stream(OpenCaller(ctx), options_.max_in_flight, options_.stats,
                    Rpc::kPutDiscovered, [](pb::DiscoveredBatch& batch) {
                      // One MADD per crawl met in the batch, in order; each
                      // URL's status is its element of its MADD's reply.
                      Stream::Work work;
                      CrawlTracker crawls;
                      // Per item: its MADD's index among the commands and its
                      // element in that MADD's reply; kSkipped for an item of
                      // an invalid crawl.
                      std::vector<std::pair<size_t, size_t>> where;
                      size_t madd = kSkipped;
                      for (const pb::URLInfo& info : batch.items()) {
                        const std::string crawl = CrawlName(info.crawlid());
                        if (!ValidCrawlName(crawl)) {
                          where.emplace_back(kSkipped, 0);
                          continue;
                        }
                        if (madd == kSkipped || crawl != crawls.current) {
                          crawls.Select(info.crawlid(), &work.commands);
                          work.commands.push_back({"MADD", "", "DATA"});
                          madd = work.commands.size() - 1;
                        }
                        Caller::Command& command = work.commands[madd];
                        where.emplace_back(madd, (command.size() - 3) / 2);
                        command.push_back(info.url());
                        command.push_back(EncodeMetadata(MetadataOf(info)));
                      }
                      if (work.commands.empty())
                        work.commands.push_back({"PING"});
                      work.answer = [id = batch.id(), where = std::move(where)](
                                        const grpc::Status& status,
                                        std::vector<RespValue>& replies) {
                        pb::BatchAck ack;
                        ack.set_id(id);
                        for (const auto& [reply, element] : where) {
                          AckStatus s = pb::AckMessage::FAIL;
                          if (reply == kSkipped) {
                            s = pb::AckMessage::SKIPPED;
                          } else if (status.ok()) {
                            // Every MADD follows its CRAWL: a refused CRAWL
                            // (NOPERM) means the MADD ran elsewhere.
                            if (replies[reply - 1].is_error()) {
                              ack.add_statuses(pb::AckMessage::FAIL);
                              continue;
                            }
                            const RespValue& r = replies[reply];
                            s = r.is_error() ? StatusOfAdd(r)
                                             : StatusOfAdd(r.elements[element]);
                          }
                          ack.add_statuses(s);
                        }
                        return ack;
                      };
                      return work;
                    });
}

}  // namespace frontier::urlfrontier
