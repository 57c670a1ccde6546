// HostSuffixes: see host_suffixes.h.
#include "scope/host_suffixes.h"

#include "partition/host_suffix.h"
#include "scope/words.h"

namespace frontier::scope {

bool HostSuffixes::AddText(std::string_view text, std::string* error) {
  std::vector<std::string> added;
  for (const std::string_view word : SplitWords(text, " \t,\n\r")) {
    std::string s = partition::NormaliseHostSuffix(word);
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
