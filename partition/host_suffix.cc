// Host suffixes: see host_suffix.h.
#include "partition/host_suffix.h"

namespace frontier::partition {
namespace {

bool IsLabelChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

}  // namespace

std::string NormaliseHostSuffix(std::string_view suffix) {
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

}  // namespace frontier::partition
