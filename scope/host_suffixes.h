// HostSuffixes: the hosts a crawl may visit, as a set of host or domain
// suffixes matched label by label, the way partition/partition_map.h
// matches partitions: "example.com" allows example.com and
// www.example.com, not badexample.com.
//
// Pure: strings in, answers out; no storage, sockets or RESP.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace frontier::scope {

class HostSuffixes {
 public:
  // Adds the suffixes of `text`, separated by spaces, tabs, commas or
  // newlines. A suffix is a host or a domain with or without a leading dot
  // ("example.com", ".edu"), or an IPv4 address; it is compared
  // case-insensitively. All or nothing: returns false, sets *error to a
  // sentence for the user and leaves the set unchanged if a suffix is
  // malformed (an empty label, a character outside [A-Za-z0-9_-] in a
  // label) or if `text` holds no suffix. A suffix given twice counts once.
  bool AddText(std::string_view text, std::string* error);

  // True if no suffix is set: every host is allowed.
  bool empty() const { return suffixes_.empty(); }

  // True if the set is empty, or if `host` (lower-case, as a normalised
  // URL holds it) equals a suffix or ends with "." + a suffix.
  // O(labels of host) hash lookups.
  bool Allows(std::string_view host) const;

  // The suffixes, normalised, in the order added, separated by spaces:
  // the text AddText() reads back to this set ("" for none).
  std::string ToText() const;

  bool operator==(const HostSuffixes& other) const {
    return ordered_ == other.ordered_;
  }

 private:
  std::vector<std::string> ordered_;
  std::unordered_set<std::string> suffixes_;
};

}  // namespace frontier::scope
