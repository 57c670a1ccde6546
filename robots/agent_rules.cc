// Building one agent's rules from a robots.txt: see agent_rules.h.
#include "robots/agent_rules.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "robots/ascii.h"
#include "robots/path_encoding.h"

namespace frontier::robots {
namespace {

bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '_';
}

// The rules and delay that one kind of group (the agent's, or '*') adds
// up to over the file.
struct Collected {
  bool seen = false;
  std::vector<Rule> rules;
  std::optional<int64_t> crawl_delay_ms;
};

class AgentRulesHandler : public ParseHandler {
 public:
  AgentRulesHandler(std::string_view agent, const ParseOptions& options)
      : agent_name_(agent), options_(options) {}

  void OnRecord(int /*line*/, Directive directive, std::string_view /*key*/,
                std::string_view value) override {
    switch (directive) {
      case Directive::kUserAgent:
        UserAgent(value);
        break;
      case Directive::kAllow:
      case Directive::kDisallow:
        in_agent_lines_ = in_delay_agent_lines_ = false;
        if (value.empty() || (!to_agent_ && !to_global_)) break;
        AddRule(directive == Directive::kAllow, value);
        break;
      case Directive::kCrawlDelay:
        // Ends the run of user-agent lines for delays only (agent_rules.h):
        // a user-agent line after it starts a new delay group.
        in_delay_agent_lines_ = false;
        if (auto ms = ParseCrawlDelayMs(value)) {
          if (delay_to_agent_) MaxInto(&for_agent_.crawl_delay_ms, *ms);
          if (delay_to_global_) MaxInto(&for_global_.crawl_delay_ms, *ms);
        }
        break;
      case Directive::kSitemap:
        if (!value.empty() && sitemaps_.size() < options_.max_sitemaps &&
            value.size() <= options_.max_sitemap_bytes) {
          sitemaps_.emplace_back(value);
        }
        break;
      case Directive::kUnknown:
        break;
    }
  }

  Rules Finish(bool truncated) && {
    Rules r;
    Collected* chosen = nullptr;
    if (for_agent_.seen) {
      r.match = GroupMatch::kAgent;
      chosen = &for_agent_;
    } else if (for_global_.seen) {
      r.match = GroupMatch::kGlobal;
      chosen = &for_global_;
    }
    if (chosen != nullptr) {
      r.rules = std::move(chosen->rules);
      r.crawl_delay_ms = chosen->crawl_delay_ms;
    }
    r.sitemaps = std::move(sitemaps_);
    r.groups = groups_;
    r.truncated = truncated;
    r.SortRules();
    return r;
  }

 private:
  static void MaxInto(std::optional<int64_t>* into, int64_t ms) {
    if (!*into || **into < ms) *into = ms;
  }

  void UserAgent(std::string_view value) {
    if (!in_agent_lines_) {  // the first user-agent line of a rule group
      in_agent_lines_ = true;
      to_agent_ = to_global_ = false;
    }
    if (!in_delay_agent_lines_) {  // ... of a delay group (no fewer)
      in_delay_agent_lines_ = true;
      ++groups_;
      delay_to_agent_ = delay_to_global_ = false;
    }
    if (!value.empty() && value[0] == '*' &&
        (value.size() == 1 || value[1] == ' ' || value[1] == '\t')) {
      to_global_ = delay_to_global_ = for_global_.seen = true;
      return;
    }
    size_t n = 0;
    while (n < value.size() && IsTokenChar(value[n])) ++n;
    if (n > 0 && EqualsIgnoreAsciiCase(value.substr(0, n), agent_name_)) {
      to_agent_ = delay_to_agent_ = for_agent_.seen = true;
    }
  }

  void AddRule(bool allow, std::string_view value) {
    Rule rule;
    rule.allow = allow;
    if (value[0] != '/' && value[0] != '*') rule.pattern.push_back('/');
    rule.pattern += CanonicalPattern(value);
    if (to_agent_) for_agent_.rules.push_back(rule);
    if (to_global_) for_global_.rules.push_back(std::move(rule));
  }

  std::string_view agent_name_;
  Collected for_agent_;
  Collected for_global_;
  const ParseOptions& options_;
  std::vector<std::string> sitemaps_;
  uint32_t groups_ = 0;  // delay groups (the finer of the two groupings)
  // Rule groups (RFC 9309): only allow/disallow ends a run of user-agent
  // lines. Delay groups: crawl-delay ends it too.
  bool in_agent_lines_ = false;        // no allow/disallow since a UA line
  bool in_delay_agent_lines_ = false;  // ... nor crawl-delay
  bool to_agent_ = false;              // the rule group names the agent
  bool to_global_ = false;             // the rule group names '*'
  bool delay_to_agent_ = false;        // the delay group names the agent
  bool delay_to_global_ = false;       // the delay group names '*'
};

}  // namespace

bool IsValidProductToken(std::string_view agent) {
  return !agent.empty() && std::all_of(agent.begin(), agent.end(), IsTokenChar);
}

std::optional<int64_t> ParseCrawlDelayMs(std::string_view value) {
  // Integer arithmetic: whole seconds saturate above the cap, the
  // fraction is read to the millisecond and rounded by the next digit.
  int64_t whole = 0;
  int64_t millis = 0;
  int fraction_digits = 0;
  bool digits = false;
  bool dot = false;
  int round_digit = -1;
  for (char c : value) {
    if (c == '.') {
      if (dot) return std::nullopt;
      dot = true;
    } else if (c >= '0' && c <= '9') {
      digits = true;
      if (!dot) {
        whole = std::min<int64_t>(whole * 10 + (c - '0'), kMaxCrawlDelayMs);
      } else if (fraction_digits < 3) {
        millis = millis * 10 + (c - '0');
        ++fraction_digits;
      } else if (round_digit < 0) {
        round_digit = c - '0';
      }
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  for (; fraction_digits < 3; ++fraction_digits) millis *= 10;
  int64_t ms = std::min(whole, kMaxCrawlDelayMs / 1000 + 1) * 1000 + millis;
  if (round_digit >= 5) ++ms;
  return std::min(ms, kMaxCrawlDelayMs);
}

Rules RulesForAgent(std::string_view body, std::string_view agent,
                    const ParseOptions& options) {
  AgentRulesHandler handler(agent, options);
  const ParseSummary summary = ParseRobotsTxt(body, options.max_bytes, handler);
  return std::move(handler).Finish(summary.truncated);
}

}  // namespace frontier::robots
