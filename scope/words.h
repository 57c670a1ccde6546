// SplitWords: the words of a directive's value, for the scope's lists.
#pragma once

#include <string_view>
#include <vector>

namespace frontier::scope {

// The non-empty runs of `text` between characters of `separators`, as
// views into `text` (which must outlive them).
inline std::vector<std::string_view> SplitWords(std::string_view text,
                                                std::string_view separators) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = text.find_first_not_of(separators, i);
    if (start == std::string_view::npos) break;
    size_t end = text.find_first_of(separators, start);
    if (end == std::string_view::npos) end = text.size();
    words.push_back(text.substr(start, end - start));
    i = end;
  }
  return words;
}

}  // namespace frontier::scope
