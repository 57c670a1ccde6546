// The replication directives (docs/replication.md, "Directives"): the
// kinds of value that only they use, the checks that join several of them,
// and their storage view (ReplicationOptions). config.cc lists the
// directives in its one table; LoadConfig runs the checks.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/config.h"
#include "storage/replication_options.h"
#include "util/status.h"

namespace frontier {

// "host:port" or "[ipv6]:port": a host name (letters, digits, '-' and '.',
// not all digits and dots) or an IP literal, and a port 1..65535. nullopt
// if `text` is not one.
std::optional<ReplicationSite> ParseReplicationSite(std::string_view text);

// The form ParseReplicationSite reads: "[::1]:7400" for an IPv6 literal.
std::string FormatReplicationSite(const ReplicationSite& site);

// True for 0.0.0.0 and :: (every address of the machine).
bool IsWildcardHost(std::string_view host);

// What no single directive can check: replication yes needs repl-listen;
// a site that does not create the group needs repl-peers; repl-listen on a
// wildcard address needs repl-listen-any yes (Berkeley DB 5.3's
// replication port has no TLS and no authentication); repl-peers neither
// repeats an address nor names this site; the group creator can become
// master; repl-name has no spaces;
// replica-announce-ip, if set, is an address. InvalidArgument saying which and why; OK with replication no
// unless repl-listen is a wildcard.
Status CheckReplicationConfig(const Config& config);

// Where clients reach this site, as it tells its peers and Sentinel
// clients ("host:port", "[ipv6]:port"): replica-announce-ip, else the
// first `bind` address that is not a wildcard, else repl-listen's host;
// replica-announce-port, else `port` (the RESP port listened on).
std::string AnnouncedClientAddress(const Config& config, int port);

// The storage layer's view; `config` passed CheckReplicationConfig.
ReplicationOptions ToReplicationOptions(const Config& config);

namespace config_kinds {

// One replication address (ParseReplicationSite), or "" for none.
Directive ReplicationAddress(std::string_view name, std::string_view def,
                             std::string Config::*m);

// Replication addresses separated by spaces or commas; "" = none.
Directive ReplicationAddressList(std::string_view name, std::string_view def,
                                 std::vector<std::string> Config::*m);

}  // namespace config_kinds
}  // namespace frontier
