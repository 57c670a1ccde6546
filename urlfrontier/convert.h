// Between frontierd's RESP replies and URL Frontier's messages: queue keys,
// crawl names, error replies as gRPC statuses, and the messages built from
// POP, URLINFO and CRAWL INFO replies (docs/urlfrontier.md has the
// mapping).
#pragma once

#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

#include "urlfrontier.pb.h"
#include "urlfrontier/resp_value.h"

namespace frontier::urlfrontier {

namespace pb = ::urlfrontier;

// The crawl a crawlID names: "" is frontierd's default crawl.
std::string CrawlName(std::string_view crawl_id);

// Whether frontierd takes `crawl` as a crawl name (1 to 255 bytes, no
// spaces or control characters, not LIST, INFO or DELETE in any case;
// docs/commands.md, "Crawls"). Checked before a CRAWL is sent, so that an
// item never lands in the crawl the connection was in before.
bool ValidCrawlName(std::string_view crawl);

// The queue key of a normalised URL: its host (the site under
// politeness-scope host, frontierd's default).
std::string QueueKeyOf(std::string_view url);

// An error reply as a gRPC status: NOAUTH/WRONGPASS -> UNAUTHENTICATED,
// NOPERM -> PERMISSION_DENIED, "ERR no such ..." -> NOT_FOUND, other ERR
// -> INVALID_ARGUMENT, anything else (MISCONF, READONLY, NOREPLICAS...)
// -> UNAVAILABLE.
grpc::Status StatusOfError(const RespValue& error);
// The first error among `replies`, or OK.
grpc::Status FirstError(const std::vector<RespValue>& replies);

// A popped URL with its value (POP ... WITHDATA's pair) as a URLInfo of
// `crawl`. A value that is not encoded metadata (a RESP client's) shows as
// the one key "data".
void FillUrlInfo(const std::string& url, const RespValue& data,
                 const std::string& crawl, pb::URLInfo* info);

// URLINFO's reply as a URLItem: a URL done or scheduled is a known item
// (refetchable_from_date = its due date, 0 when done for good), any other
// a discovered one. False if the reply is nil (no such URL).
bool FillUrlItem(const RespValue& urlinfo, const std::string& crawl,
                 pb::URLItem* item);

// CRAWL INFO's or SITE INFO's fields as Stats: size = URLs not completed
// (queued, leased, scheduled), inProcess = leased, counts = every state.
void FillStats(const RespValue& info, pb::Stats* stats);

}  // namespace frontier::urlfrontier
