// robots_check: answers robots.txt questions with the robots/ library, for
// the cross-check against python3-protego (protego_crosscheck.py).
//
//   robots_check <robots-file> <agent> <paths-file>
//
// Reads the robots.txt from <robots-file> (any bytes) and one path (with
// query) per line of <paths-file>, and prints, in order:
//   "<1|0> <path>"            per path: 1 allowed, 0 disallowed
//   "crawl-delay <seconds|none>" for the agent's group, seconds with 3 decimals
//   "sitemap <value>"         per Sitemap line
// Exit status 2 on bad usage or an unreadable file.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "robots/agent_rules.h"
#include "robots/matcher.h"

namespace {

bool ReadFile(const char* path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in),
              std::istreambuf_iterator<char>());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <robots-file> <agent> <paths-file>\n",
                 argv[0]);
    return 2;
  }
  std::string body;
  std::string paths;
  if (!ReadFile(argv[1], &body) || !ReadFile(argv[3], &paths)) {
    std::fprintf(stderr, "robots_check: cannot read input files\n");
    return 2;
  }
  const frontier::robots::Rules rules =
      frontier::robots::RulesForAgent(body, argv[2]);
  std::istringstream lines(paths);
  std::string path;
  while (std::getline(lines, path)) {
    std::cout << (frontier::robots::Allowed(rules, path) ? 1 : 0) << ' ' << path
              << '\n';
  }
  if (rules.crawl_delay_ms) {
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.3f",
                  static_cast<double>(*rules.crawl_delay_ms) / 1000);
    std::cout << "crawl-delay " << seconds << '\n';
  } else {
    std::cout << "crawl-delay none\n";
  }
  for (const std::string& s : rules.sitemaps)
    std::cout << "sitemap " << s << '\n';
  return 0;
}
