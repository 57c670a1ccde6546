// Authentication and protected mode: who may log in as whom, and which
// peers are served at all. Decisions only, from the Config; the checks run
// in RunCommand (command_table.h), AUTH/HELLO and Server::Accept.
// docs/security.md describes the behaviour for users.
#pragma once

#include <sys/socket.h>

#include <optional>
#include <string>
#include <string_view>

#include "server/config.h"
#include "server/users.h"

namespace frontier {

// Whether clients must AUTH before running commands: requirepass is set or
// at least one user is declared. (Unlike Redis, declaring users without a
// requirepass does not leave the default user open: it is disabled.)
bool AuthRequired(const Config& config);

// The role that `user` logs in with `password`, or nullopt if the pair is
// wrong or the user is off. "default" is the requirepass user (admin);
// when no authentication is required it accepts any password, as Redis's
// nopass default user does. Passwords are compared as SHA-256 digests with
// CRYPTO_memcmp, and an unknown user costs the same digest work, so the
// time taken does not tell which part was wrong.
std::optional<Role> Authenticate(const Config& config, std::string_view user,
                                 std::string_view password);

// Whether `addr` is a loopback peer: 127.0.0.0/8, ::1, ::ffff:127.0.0.0/104
// or a Unix socket.
bool IsLoopbackPeer(const sockaddr* addr);

// protected-mode yes, no authentication configured, and a peer that is not
// loopback: the peer gets errors::kDenied and is closed.
bool ProtectedModeRefuses(const Config& config, const sockaddr* addr);

// What this server's own connections to its peers (cluster forwarding, a
// replica announcing its address to its master) send AUTH with:
// cluster-auth-user/cluster-auth-pass, else requirepass with no user.
// An empty `pass`: no AUTH.
struct InternalLogin {
  std::string user;
  std::string pass;
};
InternalLogin InternalCredentials(const Config& config);

}  // namespace frontier
