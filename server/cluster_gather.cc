#include "server/cluster_gather.h"

#include <algorithm>
#include <optional>

#include "protocol/reply_writer.h"

namespace frontier {
namespace {

// The integer of a RESP integer reply (":42\r\n"); nullopt otherwise.
std::optional<int64_t> IntegerOf(const std::string& resp) {
  if (resp.size() < 4 || resp[0] != ':') return std::nullopt;
  try {
    return std::stoll(resp.substr(1, resp.size() - 3));
  } catch (...) {
    return std::nullopt;
  }
}

// The text of a RESP bulk string ("$4\r\nurls\r\n").
std::string BulkText(const std::string& resp) {
  const size_t start = resp.find("\r\n");
  if (resp.empty() || resp[0] != '$' || start == std::string::npos) {
    return resp;
  }
  return resp.substr(start + 2, resp.size() - start - 4);
}

}  // namespace

ClusterGather ClusterGather::Place(size_t size,
                                   std::vector<std::vector<size_t>> positions) {
  ClusterGather g;
  g.waiting_ = positions.size();
  g.positions_ = std::move(positions);
  g.answers_.assign(size, std::string());
  return g;
}

ClusterGather ClusterGather::Sum(size_t parts) {
  ClusterGather g;
  g.sum_ = true;
  g.waiting_ = parts;
  return g;
}

ClusterGather ClusterGather::Top(size_t parts, size_t n) {
  ClusterGather g = Sum(parts);
  g.top_ = n;
  return g;
}

void ClusterGather::Add(size_t part, const RelayedReply& reply) {
  if (waiting_ == 0) return;
  --waiting_;
  if (sum_) {
    if (reply.error || reply.elements.size() % 2 != 0) {
      if (error_.empty()) error_ = reply.resp;
      return;
    }
    for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
      const std::string name = BulkText(reply.elements[i]);
      const int64_t value = IntegerOf(reply.elements[i + 1]).value_or(0);
      auto it = std::find_if(sums_.begin(), sums_.end(),
                             [&](const auto& s) { return s.first == name; });
      if (it == sums_.end()) {
        sums_.emplace_back(name, value);
      } else {
        it->second += value;
      }
    }
    return;
  }
  if (part >= positions_.size()) return;
  const std::vector<size_t>& mine = positions_[part];
  const bool whole = !reply.error && reply.elements.size() == mine.size();
  for (size_t i = 0; i < mine.size(); ++i) {
    answers_[mine[i]] = whole ? reply.elements[i] : reply.resp;
  }
}

std::string ClusterGather::Reply() const {
  std::string out;
  ReplyWriter writer(&out);
  if (sum_) {
    if (!error_.empty()) return error_;
    std::vector<std::pair<std::string, int64_t>> rows = sums_;
    if (top_) {
      std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
      });
      if (rows.size() > *top_) rows.resize(*top_);
    }
    writer.Array(2 * rows.size());
    for (const auto& [name, total] : rows) {
      writer.Bulk(name);
      writer.Int(total);
    }
    return out;
  }
  writer.Array(answers_.size());
  for (const std::string& answer : answers_) out += answer;
  return out;
}

}  // namespace frontier
