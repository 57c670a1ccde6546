// The server's configuration: one table of directives (name, default,
// parser, printer), read like redis-server's
//   frontierd [config-file] [--directive value ...]
// where the file holds "directive value" lines ('#' comments, blank lines,
// "double" or 'single' quoted values) and the command line overrides it.
//
// The same table serves the defaults, the file, the command line and, in a
// later issue, CONFIG GET/SET: a directive is declared once, in config.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/log.h"
#include "storage/frontier.h"
#include "storage/status.h"
#include "storage/url.h"

namespace frontier {

enum class FsyncPolicy { kAlways, kEverySec, kNo };

// Every field is set by DefaultConfig() from the directive table; a
// value-initialised Config is not a usable configuration.
struct Config {
  int port = 0;
  std::vector<std::string> bind;  // IPv4/IPv6 literals
  std::string dir;
  int64_t lease_timeout_ms = 0;
  int max_depth = 0;  // 0 = unlimited
  SiteScope depth_scope = SiteScope::kDomain;
  uint64_t site_max_urls = 0;  // 0 = unlimited
  int64_t politeness_delay_ms = 0;
  uint32_t site_max_leases = 0;  // 0 = unlimited
  SiteScope politeness_scope = SiteScope::kHost;
  int default_priority = 0;
  QueueOrder order = QueueOrder::kBfs;
  int max_attempts = 0;
  int64_t timer_ms = 0;
  int64_t checkpoint_interval_ms = 0;  // 0 = only at shutdown
  FsyncPolicy fsync = FsyncPolicy::kAlways;
  uint64_t cache_bytes = 0;
  uint64_t max_url_length = 0;
  uint64_t maxclients = 0;
  LogLevel loglevel = LogLevel::kNotice;
  std::string logfile;  // "" = stderr

  std::string config_file;  // absolute path of the file read, if any
};

// One configuration directive. `set` parses a value into a Config and
// returns false (leaving the Config unchanged) if the value is not valid;
// `get` prints the current value in a form `set` accepts.
struct Directive {
  std::string_view name;           // lower-case, e.g. "lease-timeout"
  std::string_view default_value;  // as written in a config file
  std::string expected;            // for errors: "an integer 0..65535"
  std::function<bool(Config*, std::string_view)> set;
  std::function<std::string(const Config&)> get;
};

// All directives, in the order conf/frontierd.conf lists them.
std::span<const Directive> Directives();
// Case-insensitive lookup; nullptr if there is no such directive.
const Directive* FindDirective(std::string_view name);

// Every directive at its default.
Config DefaultConfig();

// Sets one directive. Returns InvalidArgument naming the problem:
// "unknown directive 'foo'" or
// "bad value for 'port': 'abc' (expected an integer 0..65535)".
Status SetDirective(Config* config, std::string_view name,
                    std::string_view value);

// Applies a config file's text. `source` names it in errors, which read
// "<source>:<line>: <SetDirective's message>"; stops at the first error.
Status ApplyConfigText(Config* config, std::string_view text,
                       std::string_view source);

// Builds the configuration from the command line (without the program
// name): defaults, then the optional config file (first argument, if it
// does not start with "--"), then "--name value..." pairs in order (several
// value words are joined with spaces, as "--bind 127.0.0.1 ::1").
// Returns InvalidArgument with a message for the user on any problem.
// Does not create `dir`; see PrepareDirectories.
StatusOr<Config> LoadConfig(std::span<const std::string> args);

// Creates config.dir (and its parents) if missing. IOError if it fails.
Status PrepareDirectories(const Config& config);

// The storage layer's view of the configuration.
FrontierOptions ToFrontierOptions(const Config& config);

// Splits a config line into words: spaces separate, "..." (with \" \\ \n
// \t \r and \xHH escapes) and '...' (with \') quote. Returns false on
// unbalanced quotes or a quote not followed by a space.
bool SplitConfigLine(std::string_view line, std::vector<std::string>* words);

const char* FsyncPolicyName(FsyncPolicy policy);

}  // namespace frontier
