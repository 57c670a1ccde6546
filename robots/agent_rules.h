// RulesForAgent: the rules of a robots.txt that apply to one crawler.
//
// This is the "parse for agent X" half of the library: it runs the parser
// (robots_parser.h) with a handler that applies RFC 9309's group rules and
// keeps only what the agent needs (rules.h). The result answers questions
// with Allowed (matcher.h) and can be stored with Rules::Serialize.
//
//   robots::Rules rules = robots::RulesForAgent(body, "frontierd");
//   if (robots::Allowed(rules, "/private/x?y=1")) ...
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "robots/robots_parser.h"
#include "robots/rules.h"

namespace frontier::robots {

struct ParseOptions {
  // Bytes of the body read (RFC 9309 §2.5 asks for at least 500 KiB).
  size_t max_bytes = kDefaultMaxBytes;
  // Sitemap lines kept; those after it, and values longer than
  // max_sitemap_bytes, are dropped (they are hints, not rules).
  size_t max_sitemaps = 64;
  size_t max_sitemap_bytes = 2048;
};

// True if `agent` is a product token RFC 9309 §2.2.1 allows a crawler to
// name itself by: one or more of "a-zA-Z_-". Configuration should refuse
// any other value: a group can never name it.
bool IsValidProductToken(std::string_view agent);

// The rules of `body` for the crawler whose product token is `agent`.
//
// Groups (RFC 9309 §2.1, §2.2.1): a group is a run of user-agent lines and
// the rules after it; only an allow or disallow line ends the run, so a
// sitemap, crawl-delay or unknown line between user-agent lines does not
// split a group (§2.2.4). Rules before the first user-agent line are
// ignored. A user-agent line names the product token it starts with (the
// longest prefix of "a-zA-Z_-", so "FooBot/2.1" names FooBot), compared
// case-insensitively with `agent`; "*" names every crawler.
// The rules used are those of every group naming `agent`, merged; if there
// is none, those of every "*" group, merged; else none (all allowed). A
// group naming the agent with no rules means "all allowed", not "use *".
//
// Rules: an empty value ("Disallow:") is no rule; a pattern that starts
// with neither '/' nor '*' gets a '/' in front (as protego does); patterns
// are stored canonical (path_encoding.h).
// Crawl-delay: a decimal number of seconds ("10", "2.5", ".5") of the
// matched groups; the largest if several; other values are ignored. For
// delays alone a crawl-delay line also ends the run of user-agent lines
// (as protego and urllib.robotparser read it): a delay is for the agents
// named since the last allow, disallow or crawl-delay line, so another
// group's delay never reaches the agent's. Rules::groups counts groups
// this finer way.
// Sitemap lines are collected from anywhere in the file.
//
// Any bytes are accepted; the result is always usable.
Rules RulesForAgent(std::string_view body, std::string_view agent,
                    const ParseOptions& options = {});

// A Crawl-delay value in milliseconds (rounded, at most kMaxCrawlDelayMs);
// nullopt unless `value` is digits with at most one '.' (and at least
// one digit).
std::optional<int64_t> ParseCrawlDelayMs(std::string_view value);

}  // namespace frontier::robots
