// url_normalise: reads one URL per line on stdin and writes, for each, one
// line on stdout: the URL as frontierd stores it, or "ERR <message>".
// The differential test url_reference_test.js runs it beside whatwg-url.
//
// Lines are split at '\n' only, so a URL may hold any other byte; the test
// sends no URL with a newline (the Standard removes them, and so does
// NormalizeUrl: tests/url/url_test.cc checks that). max-url-length is
// the default, 8192 bytes.
#include <iostream>
#include <string>

#include "url/url.h"

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    auto result = frontier::NormalizeUrl(line, 8192);
    if (result.ok()) {
      std::cout << result->url << '\n';
    } else {
      std::cout << "ERR " << result.status().message() << '\n';
    }
  }
  return std::cout.good() ? 0 : 1;
}
