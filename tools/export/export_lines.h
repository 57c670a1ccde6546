// The JSON Lines that frontierd-export writes, one object per line
// (docs/operations.md, "Export and import", lists every field):
//   {"type":"frontier",...}  first line: format version and export date
//   {"type":"site",...}      a site's policy state and its counts
//   {"type":"robots",...}    an origin's robots.txt record
//   {"type":"url",...}       a URL with everything its record holds
// Pure formatting: records in, text out, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "storage/policy_records.h"
#include "storage/records.h"

namespace frontier::exporter {

inline constexpr int kFormatVersion = 1;

// `s` as a JSON string, quotes included; bytes of 0x80 and above must be
// UTF-8 (IsUtf8 checks).
std::string JsonString(std::string_view s);
// True if `s` can be written by JsonString as it is: valid UTF-8.
bool IsUtf8(std::string_view s);
std::string Base64(std::string_view bytes);

std::string HeaderLine(int64_t now_ms);
std::string SiteLine(const SiteRecord& site);
std::string RobotsLine(const PolicyRecord& policy);
// `data`: the URL's value, nullopt if it has none.
std::string UrlLine(const UrlRecord& rec, const std::string& site_name,
                    const std::optional<std::string>& data);

}  // namespace frontier::exporter
