#include "cluster/shard_record.h"

#include <algorithm>
#include <charconv>

namespace frontier::cluster {
namespace {

std::vector<SlotRange> Merged(std::vector<SlotRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const SlotRange& a, const SlotRange& b) {
              return a.first < b.first;
            });
  std::vector<SlotRange> out;
  for (const SlotRange& r : ranges) {
    if (!out.empty() && r.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

template <typename T>
bool Number(std::string_view text, T* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

std::string RangesText(const std::vector<SlotRange>& ranges) {
  std::string out;
  for (const SlotRange& r : ranges) {
    if (!out.empty()) out += ' ';
    out += std::to_string(r.first) + "-" + std::to_string(r.last);
  }
  return out;
}

}  // namespace

std::string ShardRecord::ToText() const {
  return "shard " + shard + " epoch " + std::to_string(epoch) + " slots " +
         RangesText(ranges);
}

std::optional<ShardRecord> ShardRecord::Parse(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const size_t space = text.find(' ');
    if (space != 0) words.push_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  if (words.size() < 5 || words[0] != "shard" || words[2] != "epoch" ||
      words[4] != "slots") {
    return std::nullopt;
  }
  ShardRecord record;
  record.shard = std::string(words[1]);
  if (!Number(words[3], &record.epoch)) return std::nullopt;
  for (size_t i = 5; i < words.size(); ++i) {
    const size_t dash = words[i].find('-');
    SlotRange r;
    if (dash == std::string_view::npos ||
        !Number(words[i].substr(0, dash), &r.first) ||
        !Number(words[i].substr(dash + 1), &r.last) || r.first > r.last) {
      return std::nullopt;
    }
    record.ranges.push_back(r);
  }
  return record;
}

ShardRecord RecordOf(const ClusterMap& map, size_t shard) {
  ShardRecord record;
  record.shard = map.shards()[shard].name;
  record.epoch = map.epoch();
  record.ranges = Merged(map.shards()[shard].ranges);
  return record;
}

bool MapAgreesWithRecord(const ClusterMap& map, size_t shard,
                         const ShardRecord& record, std::string* why) {
  const ShardRecord mine = RecordOf(map, shard);
  if (mine.shard != record.shard) {
    *why = "this node is in shard " + mine.shard +
           " of the map, but its data is shard " + record.shard + "'s";
    return false;
  }
  if (mine.epoch < record.epoch) {
    *why = "the map's epoch " + std::to_string(mine.epoch) +
           " is older than shard " + record.shard + "'s record (epoch " +
           std::to_string(record.epoch) + ")";
    return false;
  }
  if (!(mine.ranges == record.ranges)) {
    *why = "the map gives shard " + record.shard + " the slots " +
           RangesText(mine.ranges) + ", but it owns " +
           RangesText(record.ranges) +
           " (moving slots between shards is not built)";
    return false;
  }
  return true;
}

}  // namespace frontier::cluster
