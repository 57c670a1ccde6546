// PartitionMap: WEB-SAILOR's domain sets. Named partitions, each a list of
// host suffixes; a host belongs to the partition with the longest suffix
// that matches it label by label, or to `default` if none does.
//
// Pure: strings in, answers out; no storage, sockets or RESP. The server's
// `partition` directive builds one (server/config.cc) and the frontier asks
// it which partition a site is in (storage/).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace frontier::partition {

class PartitionMap {
 public:
  // Partition 0 is `default`: the hosts no suffix matches. It has no
  // suffixes and cannot be declared.
  static constexpr size_t kDefault = 0;
  static constexpr std::string_view kDefaultName = "default";

  // Adds partition `name` with `suffixes` (at least one). A suffix is a host
  // or a domain, with or without a leading dot ("edu", ".edu",
  // "example.com"), compared case-insensitively. Returns false, sets
  // *error to a sentence for the user and leaves the map unchanged if the
  // name is not 1..64 characters of [A-Za-z0-9_.:-], is `default` or is
  // already declared, if there is no suffix, or if a suffix is empty,
  // malformed (an empty label, a character outside [A-Za-z0-9_-] in a
  // label) or already in the map.
  bool Add(std::string_view name, const std::vector<std::string_view>& suffixes,
           std::string* error);
  // Adds the partitions of `text`: "NAME SUFFIX [SUFFIX ...]" groups
  // separated by commas or newlines, words by spaces or tabs (the
  // `partition` directive's value). All or nothing, as Add().
  bool AddText(std::string_view text, std::string* error);

  // The text AddText() reads back to this map: one "NAME SUFFIX..." line
  // per declared partition, '\n'-separated; "" for none.
  std::string ToText() const;

  // The partitions, default included: size() >= 1.
  size_t size() const { return names_.size(); }
  // True if only `default` exists.
  bool trivial() const { return names_.size() == 1; }
  const std::string& name(size_t index) const { return names_[index]; }
  // Normalised (lower case, no leading dot), in declaration order.
  const std::vector<std::string>& suffixes(size_t index) const {
    return suffixes_[index];
  }
  // The index of partition `name` (exact match), or nullopt.
  std::optional<size_t> Find(std::string_view name) const;

  // The partition of `host` (a normalised, lower-case host name): the one
  // with the longest suffix equal to `host` or to a tail of it that starts
  // after a dot. O(labels of host) hash lookups.
  size_t Match(std::string_view host) const;

  bool operator==(const PartitionMap& other) const {
    return names_ == other.names_ && suffixes_ == other.suffixes_;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>()(s);
    }
  };

  std::vector<std::string> names_{std::string(kDefaultName)};
  std::vector<std::vector<std::string>> suffixes_{{}};
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> by_suffix_;
};

}  // namespace frontier::partition
