#include "cluster/cluster_map.h"

#include <openssl/evp.h>

#include <charconv>
#include <limits>

#include "cluster/key_slot.h"

namespace frontier::cluster {
namespace {

constexpr uint16_t kNoOwner = std::numeric_limits<uint16_t>::max();
constexpr size_t kMaxShards = 1024;

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    if (end > at) words.push_back(line.substr(at, end - at));
    at = end;
  }
  return words;
}

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  if (text.empty()) return false;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

bool ValidShardName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

bool ValidHost(std::string_view host, bool bracketed) {
  if (host.empty() || host.size() > 253) return false;
  for (char c : host) {
    const bool hex_or_colon = (c >= '0' && c <= '9') ||
                              (c >= 'a' && c <= 'f') ||
                              (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    if (bracketed ? !hex_or_colon : (!IsNameChar(c) || c == '_')) {
      return false;
    }
  }
  return true;
}

bool ValidNodeId(std::string_view id) {
  if (id.size() != 40) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool ParseRange(std::string_view text, SlotRange* out) {
  const size_t dash = text.find('-');
  int first = 0;
  int last = 0;
  if (dash == std::string_view::npos) {
    if (!ParseNumber(text, &first)) return false;
    last = first;
  } else if (!ParseNumber(text.substr(0, dash), &first) ||
             !ParseNumber(text.substr(dash + 1), &last)) {
    return false;
  }
  if (first < 0 || last >= kSlots || first > last) return false;
  *out = {first, last};
  return true;
}

// A node line before its shard is resolved.
struct PendingNode {
  size_t line;
  std::string shard;
  Node node;
};

std::string At(size_t line) { return "line " + std::to_string(line) + ": "; }

}  // namespace

std::string Address::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool ParseAddress(std::string_view text, Address* out, std::string* error) {
  std::string_view host;
  std::string_view port;
  bool bracketed = false;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      *error = "'" + std::string(text) + "' is not [IPv6]:port";
      return false;
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    bracketed = true;
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      *error = "'" + std::string(text) + "' has no :port";
      return false;
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  int number = 0;
  if (!ParseNumber(port, &number) || number < 1 || number > 65535) {
    *error = "'" + std::string(text) + "' has no port in 1..65535";
    return false;
  }
  if (!ValidHost(host, bracketed)) {
    *error = "'" + std::string(text) + "' has no valid host";
    return false;
  }
  out->host = std::string(host);
  out->port = number;
  return true;
}

std::string DefaultNodeId(const Address& resp) {
  const std::string text = resp.ToString();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha1(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (unsigned int i = 0; i < size; ++i) {
    id += kHex[digest[i] >> 4];
    id += kHex[digest[i] & 0xf];
  }
  return id;
}

std::optional<ClusterMap> ClusterMap::Parse(std::string_view text,
                                            std::string* error) {
  ClusterMap map;
  std::vector<PendingNode> pending;
  size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? "" : text.substr(eol + 1);
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::vector<std::string_view> w = Words(line);
    if (w.empty()) continue;
    const std::string at = At(line_number);
    if (w[0] == "epoch") {
      uint64_t epoch = 0;
      if (w.size() != 2 || !ParseNumber(w[1], &epoch) || epoch == 0) {
        *error = at + "expected 'epoch N' with N >= 1";
        return std::nullopt;
      }
      if (map.epoch_ != 0) {
        *error = at + "a second epoch line";
        return std::nullopt;
      }
      map.epoch_ = epoch;
    } else if (w[0] == "shard") {
      if (w.size() < 3) {
        *error = at + "expected 'shard NAME RANGE...'";
        return std::nullopt;
      }
      if (!ValidShardName(w[1])) {
        *error = at + "shard name '" + std::string(w[1]) +
                 "' is not 1..64 characters of [A-Za-z0-9_.-]";
        return std::nullopt;
      }
      if (map.FindShard(w[1])) {
        *error = at + "shard '" + std::string(w[1]) + "' declared twice";
        return std::nullopt;
      }
      if (map.shards_.size() == kMaxShards) {
        *error = at + "more than " + std::to_string(kMaxShards) + " shards";
        return std::nullopt;
      }
      Shard shard{std::string(w[1]), {}, {}};
      for (size_t i = 2; i < w.size(); ++i) {
        SlotRange range;
        if (!ParseRange(w[i], &range)) {
          *error = at + "'" + std::string(w[i]) +
                   "' is not a slot or a range of slots in 0..16383";
          return std::nullopt;
        }
        shard.ranges.push_back(range);
      }
      map.shards_.push_back(std::move(shard));
    } else if (w[0] == "node") {
      if (w.size() < 3 || w.size() % 2 == 0) {
        *error = at +
                 "expected 'node SHARD HOST:PORT [repl HOST:PORT] "
                 "[id HEX40]'";
        return std::nullopt;
      }
      PendingNode p{line_number, std::string(w[1]), {}};
      std::string why;
      if (!ParseAddress(w[2], &p.node.resp, &why)) {
        *error = at + why;
        return std::nullopt;
      }
      for (size_t i = 3; i + 1 < w.size(); i += 2) {
        if (w[i] == "repl" && !p.node.repl) {
          Address repl;
          if (!ParseAddress(w[i + 1], &repl, &why)) {
            *error = at + why;
            return std::nullopt;
          }
          p.node.repl = repl;
        } else if (w[i] == "id" && p.node.id.empty()) {
          if (!ValidNodeId(w[i + 1])) {
            *error = at + "node id '" + std::string(w[i + 1]) +
                     "' is not 40 lower-case hex digits";
            return std::nullopt;
          }
          p.node.id = std::string(w[i + 1]);
        } else {
          *error = at + "unexpected '" + std::string(w[i]) +
                   "' (repl and id, once each)";
          return std::nullopt;
        }
      }
      if (p.node.id.empty()) p.node.id = DefaultNodeId(p.node.resp);
      pending.push_back(std::move(p));
    } else {
      *error = at + "unknown keyword '" + std::string(w[0]) +
               "' (epoch, shard or node)";
      return std::nullopt;
    }
  }
  if (map.epoch_ == 0) {
    *error = "no 'epoch N' line";
    return std::nullopt;
  }
  if (map.shards_.empty()) {
    *error = "no shard";
    return std::nullopt;
  }
  for (PendingNode& p : pending) {
    const std::string at = At(p.line);
    const std::optional<size_t> shard = map.FindShard(p.shard);
    if (!shard) {
      *error = at + "node of an undeclared shard '" + p.shard + "'";
      return std::nullopt;
    }
    for (const Node& other : map.nodes_) {
      if (other.resp == p.node.resp ||
          (other.repl && p.node.repl && *other.repl == *p.node.repl) ||
          other.id == p.node.id) {
        *error = at + "node " + p.node.resp.ToString() +
                 " repeats the address or id of node " + other.resp.ToString();
        return std::nullopt;
      }
    }
    p.node.shard = *shard;
    map.shards_[*shard].nodes.push_back(map.nodes_.size());
    map.nodes_.push_back(std::move(p.node));
  }
  for (const Shard& shard : map.shards_) {
    if (shard.nodes.empty()) {
      *error = "shard '" + shard.name + "' has no node";
      return std::nullopt;
    }
  }
  map.owner_.assign(kSlots, kNoOwner);
  for (size_t s = 0; s < map.shards_.size(); ++s) {
    for (const SlotRange& range : map.shards_[s].ranges) {
      for (int slot = range.first; slot <= range.last; ++slot) {
        if (map.owner_[slot] != kNoOwner) {
          *error = "slot " + std::to_string(slot) + " is claimed by shard '" +
                   map.shards_[map.owner_[slot]].name + "' and shard '" +
                   map.shards_[s].name + "'";
          return std::nullopt;
        }
        map.owner_[slot] = static_cast<uint16_t>(s);
      }
    }
  }
  for (int slot = 0; slot < kSlots; ++slot) {
    if (map.owner_[slot] == kNoOwner) {
      *error = "slot " + std::to_string(slot) + " belongs to no shard";
      return std::nullopt;
    }
  }
  return map;
}

std::optional<size_t> ClusterMap::FindNode(const Address& resp) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].resp == resp) return i;
  }
  return std::nullopt;
}

std::optional<size_t> ClusterMap::FindShard(std::string_view name) const {
  for (size_t i = 0; i < shards_.size(); ++i) {
    if (shards_[i].name == name) return i;
  }
  return std::nullopt;
}

std::string ClusterMap::ToText() const {
  std::string text = "epoch " + std::to_string(epoch_) + "\n";
  for (const Shard& shard : shards_) {
    text += "shard " + shard.name;
    for (const SlotRange& r : shard.ranges) {
      text += " " + std::to_string(r.first);
      if (r.last != r.first) text += "-" + std::to_string(r.last);
    }
    text += "\n";
  }
  for (const Node& node : nodes_) {
    text += "node " + shards_[node.shard].name + " " + node.resp.ToString();
    if (node.repl) text += " repl " + node.repl->ToString();
    text += " id " + node.id + "\n";
  }
  return text;
}

bool ClusterMap::operator==(const ClusterMap& other) const {
  if (epoch_ != other.epoch_ || shards_.size() != other.shards_.size() ||
      nodes_.size() != other.nodes_.size() || owner_ != other.owner_) {
    return false;
  }
  for (size_t i = 0; i < shards_.size(); ++i) {
    const Shard& a = shards_[i];
    const Shard& b = other.shards_[i];
    if (a.name != b.name || !(a.ranges == b.ranges) || a.nodes != b.nodes) {
      return false;
    }
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& a = nodes_[i];
    const Node& b = other.nodes_[i];
    if (a.id != b.id || !(a.resp == b.resp) || a.repl != b.repl ||
        a.shard != b.shard) {
      return false;
    }
  }
  return true;
}

}  // namespace frontier::cluster
