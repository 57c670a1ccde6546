#include "scope/url_shape.h"

#include <algorithm>

namespace frontier::scope {
namespace {

// The path and query of the URL: from the first '/' after "//" (or from
// '?' if the path is empty), "" if there is neither.
std::string_view PathAndQuery(std::string_view url) {
  size_t start = url.find("//");
  start = start == std::string_view::npos ? 0 : start + 2;
  const size_t at = url.find_first_of("/?", start);
  return at == std::string_view::npos ? std::string_view() : url.substr(at);
}

}  // namespace

size_t QueryParamCount(std::string_view normalized_url) {
  std::string_view rest = PathAndQuery(normalized_url);
  const size_t q = rest.find('?');
  if (q == std::string_view::npos) return 0;
  rest.remove_prefix(q + 1);
  size_t count = 0;
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const size_t len = amp == std::string_view::npos ? rest.size() : amp;
    if (len > 0) ++count;
    rest.remove_prefix(amp == std::string_view::npos ? rest.size() : amp + 1);
  }
  return count;
}

size_t PathSegmentCount(std::string_view normalized_url) {
  std::string_view path = PathAndQuery(normalized_url);
  path = path.substr(0, path.find('?'));
  return static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}

}  // namespace frontier::scope
