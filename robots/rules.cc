// Rules and their compact byte form: see rules.h.
#include "robots/rules.h"

#include <algorithm>
#include <vector>

namespace frontier::robots {
namespace {

constexpr char kVersion1 = 1;

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

void PutString(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}

bool GetString(std::string_view* in, uint64_t size, std::string* s) {
  if (size > in->size()) return false;
  s->assign(in->substr(0, size));
  in->remove_prefix(size);
  return true;
}

}  // namespace

bool RuleBefore(const Rule& a, const Rule& b) {
  if (a.pattern.size() != b.pattern.size()) {
    return a.pattern.size() > b.pattern.size();
  }
  return a.allow && !b.allow;
}

void Rules::SortRules() {
  std::stable_sort(rules.begin(), rules.end(), RuleBefore);
}

std::string Rules::Serialize() const {
  std::string out;
  out.push_back(kVersion1);
  out.push_back(static_cast<char>(match));
  out.push_back(truncated ? 1 : 0);
  PutVarint(&out, groups);
  // 0 = no Crawl-delay, else the delay + 1.
  PutVarint(&out,
            crawl_delay_ms ? static_cast<uint64_t>(*crawl_delay_ms) + 1 : 0);
  PutVarint(&out, sitemaps.size());
  for (const std::string& s : sitemaps) PutString(&out, s);
  PutVarint(&out, rules.size());
  auto put_rule = [&out](const Rule& r) {
    PutVarint(&out, (static_cast<uint64_t>(r.pattern.size()) << 1) |
                        (r.allow ? 1 : 0));
    out.append(r.pattern);
  };
  if (std::is_sorted(rules.begin(), rules.end(), RuleBefore)) {
    for (const Rule& r : rules) put_rule(r);
  } else {  // StoredRules reads them in matching order
    std::vector<const Rule*> order;
    for (const Rule& r : rules) order.push_back(&r);
    std::stable_sort(
        order.begin(), order.end(),
        [](const Rule* a, const Rule* b) { return RuleBefore(*a, *b); });
    for (const Rule* r : order) put_rule(*r);
  }
  return out;
}

bool StoredCrawlDelay(std::string_view stored,
                      std::optional<int64_t>* delay_ms) {
  if (stored.size() < 3 || stored[0] != kVersion1) return false;
  stored.remove_prefix(3);
  uint64_t v = 0;
  if (!GetVarint(&stored, &v) || !GetVarint(&stored, &v) ||
      v > static_cast<uint64_t>(kMaxCrawlDelayMs) + 1) {
    return false;
  }
  delay_ms->reset();
  if (v > 0) *delay_ms = static_cast<int64_t>(v - 1);
  return true;
}

bool StoredRules::Open(std::string_view stored) {
  ok_ = false;
  if (stored.size() < 3 || stored[0] != kVersion1) return false;
  stored.remove_prefix(3);
  uint64_t v = 0;
  if (!GetVarint(&stored, &v) || !GetVarint(&stored, &v)) return false;
  uint64_t sitemaps = 0;
  if (!GetVarint(&stored, &sitemaps)) return false;
  for (; sitemaps > 0; --sitemaps) {
    if (!GetVarint(&stored, &v) || v > stored.size()) return false;
    stored.remove_prefix(v);
  }
  if (!GetVarint(&stored, &left_)) return false;
  rest_ = stored;
  ok_ = true;
  return true;
}

bool StoredRules::Next(bool* allow, std::string_view* pattern) {
  if (!ok_ || left_ == 0) return false;
  uint64_t v = 0;
  if (!GetVarint(&rest_, &v) || (v >> 1) == 0 || (v >> 1) > rest_.size()) {
    ok_ = false;
    return false;
  }
  --left_;
  *allow = (v & 1) != 0;
  *pattern = rest_.substr(0, v >> 1);
  rest_.remove_prefix(v >> 1);
  return true;
}

std::optional<Rules> Rules::Parse(std::string_view in) {
  if (in.size() < 3 || in[0] != kVersion1) return std::nullopt;
  Rules r;
  const auto match = static_cast<unsigned char>(in[1]);
  if (match > static_cast<unsigned char>(GroupMatch::kAgent)) {
    return std::nullopt;
  }
  r.match = static_cast<GroupMatch>(match);
  if (in[2] != 0 && in[2] != 1) return std::nullopt;
  r.truncated = in[2] == 1;
  in.remove_prefix(3);

  uint64_t v = 0;
  if (!GetVarint(&in, &v) || v > UINT32_MAX) return std::nullopt;
  r.groups = static_cast<uint32_t>(v);
  if (!GetVarint(&in, &v) || v > static_cast<uint64_t>(kMaxCrawlDelayMs) + 1) {
    return std::nullopt;
  }
  if (v > 0) r.crawl_delay_ms = static_cast<int64_t>(v - 1);

  uint64_t count = 0;
  // Every entry takes at least one byte: a count above what is left is a
  // lie, refused before anything is reserved for it.
  if (!GetVarint(&in, &count) || count > in.size()) return std::nullopt;
  r.sitemaps.resize(count);
  for (std::string& s : r.sitemaps) {
    if (!GetVarint(&in, &v) || !GetString(&in, v, &s)) return std::nullopt;
  }
  if (!GetVarint(&in, &count) || count > in.size()) return std::nullopt;
  r.rules.resize(count);
  for (Rule& rule : r.rules) {
    if (!GetVarint(&in, &v) || !GetString(&in, v >> 1, &rule.pattern)) {
      return std::nullopt;
    }
    rule.allow = (v & 1) != 0;
    if (rule.pattern.empty() ||
        (rule.pattern[0] != '/' && rule.pattern[0] != '*')) {
      return std::nullopt;
    }
  }
  if (!in.empty()) return std::nullopt;
  r.SortRules();
  return r;
}

}  // namespace frontier::robots
