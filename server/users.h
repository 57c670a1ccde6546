// Users and roles: the `user` directive's value, password digests and their
// constant-time comparison. No I/O, no configuration object: server/auth.h
// makes the decisions (who may log in, who is refused) from a Config.
//
// A user is declared in a simplified form of Redis's ACL rules:
//
//   user NAME [on|off] [>password]... [#sha256hex]... [~crawl]...
//        +@worker|+@admin
//
// `~pattern` limits the user to the crawls whose names match the glob
// pattern (CRAWL name; any number of them); without one, every crawl.
// `on` enables the user (a user is off unless `on` is given, as in Redis);
// `>password` adds a password, `#<64 hex digits>` adds the SHA-256 of one;
// exactly one role is required (`+@all` is a synonym of `+@admin`). The
// password itself is never kept: only its SHA-256, so a user's line printed
// back (CONFIG GET, CONFIG REWRITE) shows `#<digest>`, never the password.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace frontier {

// What an authenticated client may run (command_table.h: kCmdWorker).
//   kNone   - not authenticated: only AUTH, HELLO, PING, QUIT;
//   kWorker - the frontier verbs and connection housekeeping;
//   kAdmin  - everything.
enum class Role { kNone, kWorker, kAdmin };
const char* RoleName(Role role);  // "none", "worker", "admin"

using PasswordDigest = std::array<unsigned char, 32>;  // SHA-256

PasswordDigest DigestPassword(std::string_view password);

// Compares two digests in constant time (CRYPTO_memcmp). Digests have a
// fixed length, so neither the content nor the length of a password leaks
// through the time a comparison takes.
bool DigestsEqual(const PasswordDigest& a, const PasswordDigest& b);

struct UserSpec {
  std::string name;
  bool enabled = false;
  std::vector<PasswordDigest> passwords;
  Role role = Role::kNone;
  std::vector<std::string> crawls;  // ~patterns; empty = every crawl
};

// Whether a user limited to `patterns` (UserSpec::crawls; empty = every
// crawl) may use crawl `crawl`.
bool CrawlAllowed(const std::vector<std::string>& patterns,
                  std::string_view crawl);

// Parses "NAME rule...". InvalidArgument with a message that never quotes
// a password: a bad name (letters, digits and . _ - @ only, at most 64; not
// "default", which requirepass configures), an unknown rule, a malformed
// #digest, no password, or not exactly one role.
StatusOr<UserSpec> ParseUserSpec(std::string_view text);

// "NAME on|off #digest... +@role": what ParseUserSpec reads back to the
// same user.
std::string FormatUserSpec(const UserSpec& user);

}  // namespace frontier
