// Host suffixes as partitions and the crawl scope match them: a host or a
// domain, with or without a leading dot ("example.com", ".edu"), compared
// label by label, so "example.com" covers www.example.com and not
// badexample.com. Pure: strings in, strings out.
#pragma once

#include <string>
#include <string_view>

namespace frontier::partition {

// `suffix` lower-cased and without its leading dot, as the matchers
// compare it; "" if it is malformed (empty, an empty label, a character
// outside [A-Za-z0-9_-] in a label).
std::string NormaliseHostSuffix(std::string_view suffix);

}  // namespace frontier::partition
