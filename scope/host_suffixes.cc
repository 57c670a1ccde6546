#include "scope/host_suffixes.h"

namespace frontier::scope {
namespace {

bool IsLabelChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

bool IsSeparator(char c) {
  return c == ' ' || c == '\t' || c == ',' || c == '\n' || c == '\r';
}

// The suffix as Allows() compares it, or "" if it is malformed.
std::string Normalise(std::string_view suffix) {
  if (!suffix.empty() && suffix.front() == '.') suffix.remove_prefix(1);
  std::string out;
  out.reserve(suffix.size());
  bool label_empty = true;
  for (char c : suffix) {
    c = Lower(c);
    if (c == '.') {
      if (label_empty) return "";
      label_empty = true;
    } else if (IsLabelChar(c)) {
      label_empty = false;
    } else {
      return "";
    }
    out += c;
  }
  return label_empty ? "" : out;
}

}  // namespace

bool HostSuffixes::AddText(std::string_view text, std::string* error) {
  std::vector<std::string> added;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSeparator(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !IsSeparator(text[i])) ++i;
    if (i == start) continue;
    const std::string_view word = text.substr(start, i - start);
    std::string s = Normalise(word);
    if (s.empty()) {
      *error = "bad host suffix '" + std::string(word) +
               "' (expected a host or domain such as example.com or .edu)";
      return false;
    }
    added.push_back(std::move(s));
  }
  if (added.empty()) {
    *error = "expected one or more host or domain suffixes";
    return false;
  }
  for (std::string& s : added) {
    if (suffixes_.insert(s).second) ordered_.push_back(std::move(s));
  }
  return true;
}

bool HostSuffixes::Allows(std::string_view host) const {
  if (suffixes_.empty()) return true;
  // The host itself, then each tail after a dot. std::string keys: a
  // lookup builds one string per label, bounded by the host's labels.
  while (!host.empty()) {
    if (suffixes_.contains(std::string(host))) return true;
    const size_t dot = host.find('.');
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
  }
  return false;
}

std::string HostSuffixes::ToText() const {
  std::string out;
  for (const std::string& s : ordered_) {
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

}  // namespace frontier::scope
