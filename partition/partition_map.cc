#include "partition/partition_map.h"

#include "partition/host_suffix.h"

#include <unordered_set>

namespace frontier::partition {
namespace {

constexpr size_t kMaxNameLength = 64;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' || c == '-';
}

bool IsSeparator(char c) { return c == ',' || c == '\n' || c == '\r'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

bool PartitionMap::Add(std::string_view name,
                       const std::vector<std::string_view>& suffixes,
                       std::string* error) {
  const std::string quoted = "'" + std::string(name) + "'";
  if (name.empty() || name.size() > kMaxNameLength) {
    *error = "partition name " + quoted + " must be 1 to 64 characters";
    return false;
  }
  for (char c : name) {
    if (!IsNameChar(c)) {
      *error = "partition name " + quoted +
               " may hold only letters, digits and _ . : -";
      return false;
    }
  }
  if (name == kDefaultName) {
    *error =
        "partition name 'default' is reserved for the hosts no suffix "
        "matches";
    return false;
  }
  if (Find(name)) {
    *error = "partition " + quoted + " is declared twice";
    return false;
  }
  if (suffixes.empty()) {
    *error = "partition " + quoted + " has no suffix";
    return false;
  }
  std::vector<std::string> normalised;
  std::unordered_set<std::string> own;
  for (std::string_view suffix : suffixes) {
    std::string s = NormaliseHostSuffix(suffix);
    if (s.empty()) {
      *error = "bad suffix '" + std::string(suffix) + "' in partition " +
               quoted +
               " (expected a host or domain such as example.com or "
               ".edu)";
      return false;
    }
    if (auto it = by_suffix_.find(s); it != by_suffix_.end()) {
      *error = "suffix '" + s + "' is in partitions '" + names_[it->second] +
               "' and " + quoted;
      return false;
    }
    if (!own.insert(s).second) {
      *error = "suffix '" + s + "' is listed twice in partition " + quoted;
      return false;
    }
    normalised.push_back(std::move(s));
  }
  const size_t index = names_.size();
  names_.emplace_back(name);
  for (const std::string& s : normalised) by_suffix_.emplace(s, index);
  suffixes_.push_back(std::move(normalised));
  return true;
}

bool PartitionMap::AddText(std::string_view text, std::string* error) {
  PartitionMap updated = *this;
  size_t groups = 0;
  while (!text.empty()) {
    size_t end = 0;
    while (end < text.size() && !IsSeparator(text[end])) ++end;
    std::string_view group = text.substr(0, end);
    text.remove_prefix(end == text.size() ? end : end + 1);
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < group.size()) {
      while (i < group.size() && IsBlank(group[i])) ++i;
      size_t start = i;
      while (i < group.size() && !IsBlank(group[i])) ++i;
      if (i > start) words.push_back(group.substr(start, i - start));
    }
    if (words.empty()) {
      *error =
          "empty partition (expected NAME SUFFIX [SUFFIX ...], "
          "partitions separated by commas)";
      return false;
    }
    std::string_view name = words.front();
    words.erase(words.begin());
    if (!updated.Add(name, words, error)) return false;
    ++groups;
  }
  if (groups == 0) {
    *error = "expected NAME SUFFIX [SUFFIX ...]";
    return false;
  }
  *this = std::move(updated);
  return true;
}

std::string PartitionMap::ToText() const {
  std::string out;
  for (size_t i = 1; i < names_.size(); ++i) {
    if (!out.empty()) out += '\n';
    out += names_[i];
    for (const std::string& s : suffixes_[i]) {
      out += ' ';
      out += s;
    }
  }
  return out;
}

std::optional<size_t> PartitionMap::Find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return i;
  }
  return std::nullopt;
}

size_t PartitionMap::Match(std::string_view host) const {
  if (by_suffix_.empty()) return kDefault;
  // Longest first: the host itself, then each tail after a dot.
  while (!host.empty()) {
    if (auto it = by_suffix_.find(host); it != by_suffix_.end()) {
      return it->second;
    }
    size_t dot = host.find('.');
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
  }
  return kDefault;
}

}  // namespace frontier::partition
