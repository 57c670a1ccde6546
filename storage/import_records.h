// What Frontier::Import() takes: one URL, site or robots.txt origin of an
// exported frontier (docs/operations.md, "Export and import"), with every
// field checked for range by the caller and the rest (URL syntax, state
// consistency) by Import() itself, before its first write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "storage/policy_records.h"
#include "storage/records.h"

namespace frontier {

// A URL as exported. `state` is the stored state: an exported kLeased
// arrives here as kQueued (the worker holding it talks to the old server).
struct ImportUrl {
  std::string url;
  StoredState state = StoredState::kQueued;
  uint16_t depth = 1;
  uint16_t priority = 5000;
  uint16_t attempts = 0;
  uint64_t backlinks = 0;
  int64_t recrawl_ms = 0;
  int64_t due_ms = 0;  // kScheduled*: when it is due; else ignored
  int64_t last_fetch_ms = 0;
  int64_t created_ms = 0;
  std::optional<std::string> data;
};

// A site's policy state. Its URL counts are not imported: they follow from
// the URLs. The fields replace the site's own.
struct ImportSite {
  std::string name;
  int64_t delay_ms = -1;
  int64_t next_allowed_ms = 0;
  int64_t block_until_ms = 0;
  uint32_t backoffs = 0;
  uint64_t max_urls = 0;
  int64_t robots_delay_ms = -1;
  int64_t adaptive_delay_ms = -1;
};

// An origin's robots.txt record (`origin` set). kFetching arrives as
// kUnknown; a re-check under way is not carried over.
using ImportRobots = PolicyRecord;

using ImportItem = std::variant<ImportUrl, ImportSite, ImportRobots>;

// One IMPORT's items, applied in one transaction (Frontier::Import).
struct ImportBatch {
  std::vector<ImportItem> items;
};

// Import()'s answer for one item.
enum class ImportOutcome {
  kApplied = 1,  // stored (a URL or origin that was new; any site)
  kKept = 0,     // a URL or origin the frontier knew: kept as it was
};

}  // namespace frontier
