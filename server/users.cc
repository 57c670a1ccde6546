#include "server/users.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <sstream>

#include "server/args.h"
#include "server/glob.h"

namespace frontier {
namespace {

constexpr size_t kMaxUserName = 64;
constexpr char kHexDigits[] = "0123456789abcdef";

bool ValidUserName(std::string_view name) {
  if (name.empty() || name.size() > kMaxUserName) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
              c == '@';
    if (!ok) return false;
  }
  return true;
}

int HexNibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ParseHexDigest(std::string_view hex, PasswordDigest* out) {
  if (hex.size() != 2 * out->size()) return false;
  for (size_t i = 0; i < out->size(); ++i) {
    int hi = HexNibble(hex[2 * i]), lo = HexNibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

std::string HexDigest(const PasswordDigest& d) {
  std::string out;
  for (unsigned char b : d) {
    out += kHexDigits[b >> 4];
    out += kHexDigits[b & 15];
  }
  return out;
}

}  // namespace

const char* RoleName(Role role) {
  switch (role) {
    case Role::kNone:
      return "none";
    case Role::kWorker:
      return "worker";
    case Role::kAdmin:
      return "admin";
  }
  return "none";
}

PasswordDigest DigestPassword(std::string_view password) {
  PasswordDigest d{};
  unsigned int len = 0;
  // EVP_Digest with SHA-256 cannot fail short of memory exhaustion; the
  // zero digest it would leave then matches no real password's digest.
  EVP_Digest(password.data(), password.size(), d.data(), &len, EVP_sha256(),
             nullptr);
  return d;
}

bool DigestsEqual(const PasswordDigest& a, const PasswordDigest& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

StatusOr<UserSpec> ParseUserSpec(std::string_view text) {
  std::istringstream words{std::string(text)};
  UserSpec user;
  if (!(words >> user.name) || !ValidUserName(user.name)) {
    return Status::InvalidArgument(
        "a user needs a name of at most 64 letters, digits, '.', '_', '-' "
        "or '@'");
  }
  if (user.name == "default") {
    return Status::InvalidArgument(
        "the default user is configured with requirepass, not with user");
  }
  int roles = 0;
  int word = 1;
  for (std::string rule; words >> rule;) {
    ++word;
    PasswordDigest digest;
    if (rule == "on" || rule == "off") {
      user.enabled = rule == "on";
    } else if (rule.size() > 1 && rule[0] == '>') {
      user.passwords.push_back(
          DigestPassword(std::string_view(rule).substr(1)));
    } else if (rule.size() > 1 && rule[0] == '#') {
      if (!ParseHexDigest(std::string_view(rule).substr(1), &digest)) {
        return Status::InvalidArgument("user " + user.name +
                                       ": '#' must be followed by the 64 hex "
                                       "digits of a SHA-256 digest");
      }
      user.passwords.push_back(digest);
    } else if (rule.size() > 1 && rule[0] == '~') {
      user.crawls.push_back(rule.substr(1));
    } else if (EqualsIgnoreCase(rule, "+@worker")) {
      user.role = Role::kWorker;
      ++roles;
    } else if (EqualsIgnoreCase(rule, "+@admin") ||
               EqualsIgnoreCase(rule, "+@all")) {
      user.role = Role::kAdmin;
      ++roles;
    } else {
      // The word is not quoted: it may be a password missing its '>'.
      return Status::InvalidArgument(
          "user " + user.name + ": word " + std::to_string(word) +
          " is not a rule (expected on, off, >password, #sha256hex, "
          "~crawl, +@worker or +@admin)");
    }
  }
  if (user.passwords.empty()) {
    return Status::InvalidArgument("user " + user.name +
                                   " has no password (>password or #sha256)");
  }
  if (roles != 1) {
    return Status::InvalidArgument("user " + user.name +
                                   " needs exactly one role: +@worker or "
                                   "+@admin");
  }
  return user;
}

bool CrawlAllowed(const std::vector<std::string>& patterns,
                  std::string_view crawl) {
  if (patterns.empty()) return true;
  for (const std::string& p : patterns) {
    if (GlobMatch(p, crawl, /*nocase=*/false)) return true;
  }
  return false;
}

std::string FormatUserSpec(const UserSpec& user) {
  std::string out = user.name;
  out += user.enabled ? " on" : " off";
  for (const PasswordDigest& d : user.passwords) out += " #" + HexDigest(d);
  for (const std::string& pattern : user.crawls) out += " ~" + pattern;
  out += user.role == Role::kAdmin ? " +@admin" : " +@worker";
  return out;
}

}  // namespace frontier
