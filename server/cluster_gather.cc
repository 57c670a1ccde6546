#include "server/cluster_gather.h"

#include <algorithm>
#include <optional>

#include "partition/hint_rule.h"
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

ClusterGather ClusterGather::Hint(size_t parts) {
  ClusterGather g = Sum(parts);
  g.hint_ = true;
  return g;
}

ClusterGather ClusterGather::Page(size_t shard, size_t shards) {
  ClusterGather g;
  g.waiting_ = 1;
  g.page_ = std::make_pair(shard, shards);
  g.answers_.assign(1, std::string());
  return g;
}

std::optional<std::pair<size_t, std::string>> ParseClusterCursor(
    std::string_view text) {
  if (text == "0") return std::make_pair(size_t{0}, std::string("0"));
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 5 ||
      colon + 1 == text.size()) {
    return std::nullopt;
  }
  size_t shard = 0;
  for (const char c : text.substr(0, colon)) {
    if (c < '0' || c > '9') return std::nullopt;
    shard = shard * 10 + static_cast<size_t>(c - '0');
  }
  return std::make_pair(shard, std::string(text.substr(colon + 1)));
}

std::string ClusterCursor(size_t shard, std::string_view cursor) {
  return std::to_string(shard) + ":" + std::string(cursor);
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
      const std::optional<int64_t> value = IntegerOf(reply.elements[i + 1]);
      auto it = std::find_if(sums_.begin(), sums_.end(),
                             [&](const Field& f) { return f.name == name; });
      if (it == sums_.end()) {
        sums_.push_back(Field{name, value, reply.elements[i + 1]});
      } else if (it->total && value) {
        *it->total += *value;
      }
    }
    return;
  }
  if (page_) {
    if (reply.error || reply.elements.size() != 2) {
      answers_[0] = reply.resp;
      return;
    }
    // The shard's next cursor; its end goes on to the next shard's start.
    const std::string next = BulkText(reply.elements[0]);
    const auto [shard, shards] = *page_;
    std::string cursor = "0";
    if (next != "0") {
      cursor = ClusterCursor(shard, next);
    } else if (shard + 1 < shards) {
      cursor = ClusterCursor(shard + 1, "0");
    }
    ReplyWriter writer(&answers_[0]);
    writer.Array(2);
    writer.Bulk(cursor);
    answers_[0] += reply.elements[1];
    return;
  }
  if (part >= positions_.size()) return;
  const std::vector<size_t>& mine = positions_[part];
  const bool whole = !reply.error && reply.elements.size() == mine.size();
  for (size_t i = 0; i < mine.size(); ++i) {
    answers_[mine[i]] = whole ? reply.elements[i] : reply.resp;
  }
}

std::string ClusterGather::SumReply() const {
  if (!error_.empty()) return error_;
  std::vector<Field> rows = sums_;
  if (top_) {
    std::sort(rows.begin(), rows.end(), [](const Field& a, const Field& b) {
      return a.total != b.total ? a.total > b.total : a.name < b.name;
    });
    if (rows.size() > *top_) rows.resize(*top_);
  }
  if (hint_) {
    const auto total = [&rows](std::string_view name) -> uint64_t {
      for (const Field& f : rows) {
        if (f.name == name && f.total) return static_cast<uint64_t>(*f.total);
      }
      return 0;
    };
    const partition::HintInputs inputs{total("n"), total("ready_sites"),
                                       total("leased"), total("waiting")};
    for (Field& f : rows) {
      if (f.name != "advice") continue;
      f.raw.clear();
      ReplyWriter(&f.raw).Bulk(
          partition::AdviceName(partition::Advise(inputs)));
    }
  }
  std::string out;
  ReplyWriter writer(&out);
  writer.Array(2 * rows.size());
  for (const Field& f : rows) {
    writer.Bulk(f.name);
    if (f.total) {
      writer.Int(*f.total);
    } else {
      out += f.raw;
    }
  }
  return out;
}

std::string ClusterGather::Reply() const {
  if (sum_) return SumReply();
  if (page_) return answers_[0];
  std::string out;
  ReplyWriter writer(&out);
  writer.Array(answers_.size());
  for (const std::string& answer : answers_) out += answer;
  return out;
}

}  // namespace frontier
