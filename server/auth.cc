#include "server/auth.h"

#include <netinet/in.h>

#include <cstring>

namespace frontier {

bool AuthRequired(const Config& config) {
  return !config.requirepass.empty() || !config.users.empty();
}

std::optional<Role> Authenticate(const Config& config, std::string_view user,
                                 std::string_view password) {
  const PasswordDigest given = DigestPassword(password);
  if (user == "default") {
    if (!AuthRequired(config)) return Role::kAdmin;
    if (config.requirepass.empty()) {
      // Disabled default user: do the same digest work as a real check.
      (void)DigestsEqual(given, DigestPassword(""));
      return std::nullopt;
    }
    if (DigestsEqual(given, DigestPassword(config.requirepass))) {
      return Role::kAdmin;
    }
    return std::nullopt;
  }
  for (const UserSpec& spec : config.users) {
    if (spec.name != user) continue;
    bool match = false;
    // Every password is compared; no early exit on the first match.
    for (const PasswordDigest& d : spec.passwords) {
      match |= DigestsEqual(given, d);
    }
    if (match && spec.enabled) return spec.role;
    return std::nullopt;
  }
  (void)DigestsEqual(given, DigestPassword(""));
  return std::nullopt;
}

bool IsLoopbackPeer(const sockaddr* addr) {
  if (addr == nullptr) return false;
  switch (addr->sa_family) {
    case AF_UNIX:
      return true;
    case AF_INET: {
      sockaddr_in in;
      std::memcpy(&in, addr, sizeof(in));
      return (ntohl(in.sin_addr.s_addr) >> 24) == 127;
    }
    case AF_INET6: {
      sockaddr_in6 in6;
      std::memcpy(&in6, addr, sizeof(in6));
      const in6_addr& a = in6.sin6_addr;
      if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
      return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
    }
    default:
      return false;
  }
}

bool ProtectedModeRefuses(const Config& config, const sockaddr* addr) {
  return config.protected_mode && !AuthRequired(config) &&
         !IsLoopbackPeer(addr);
}

InternalLogin InternalCredentials(const Config& config) {
  if (!config.cluster_auth_pass.empty()) {
    return {config.cluster_auth_user, config.cluster_auth_pass};
  }
  return {"", config.requirepass};
}

}  // namespace frontier
