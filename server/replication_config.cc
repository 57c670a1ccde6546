#include "server/replication_config.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "server/args.h"
#include "scope/words.h"

namespace frontier {
namespace {

bool IsHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  bool has_letter = false;
  for (char ch : host) {
    const bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
    const bool digit = ch >= '0' && ch <= '9';
    if (!letter && !digit && ch != '-' && ch != '.') return false;
    has_letter = has_letter || letter || ch == '-';
  }
  // "10.1" or "0" would reach getaddrinfo as an address: only literals
  // inet_pton reads are taken as addresses.
  return has_letter && host.front() != '.' && host.front() != '-';
}

bool IsIpv4(const std::string& host) {
  in_addr a;
  return inet_pton(AF_INET, host.c_str(), &a) == 1;
}

bool IsIpv6(const std::string& host) {
  in6_addr a;
  return inet_pton(AF_INET6, host.c_str(), &a) == 1;
}

}  // namespace

std::optional<ReplicationSite> ParseReplicationSite(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  const std::optional<int64_t> port = ParseInt64(text.substr(colon + 1));
  if (!port || *port < 1 || *port > 65535) return std::nullopt;
  ReplicationSite site;
  site.port = static_cast<uint16_t>(*port);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    site.host = std::string(host.substr(1, host.size() - 2));
    if (!IsIpv6(site.host)) return std::nullopt;
    return site;
  }
  site.host = std::string(host);
  if (IsIpv4(site.host) || IsHostName(site.host)) return site;
  return std::nullopt;
}

std::string FormatReplicationSite(const ReplicationSite& site) {
  const bool v6 = site.host.find(':') != std::string::npos;
  return (v6 ? "[" + site.host + "]" : site.host) + ":" +
         std::to_string(site.port);
}

bool IsWildcardHost(std::string_view host) {
  const std::string h(host);
  in_addr a4;
  if (inet_pton(AF_INET, h.c_str(), &a4) == 1) return a4.s_addr == 0;
  in6_addr a6;
  if (inet_pton(AF_INET6, h.c_str(), &a6) == 1) {
    static const in6_addr kAny = IN6ADDR_ANY_INIT;
    return std::memcmp(&a6, &kAny, sizeof(a6)) == 0;
  }
  return false;
}

Status CheckReplicationConfig(const Config& config) {
  const ReplicationOptions r = ToReplicationOptions(config);
  if (!config.repl_listen.empty() && IsWildcardHost(r.listen.host) &&
      !config.repl_listen_any) {
    return Status::InvalidArgument(
        "repl-listen " + config.repl_listen +
        " would accept replication connections on every address of this "
        "machine, and Berkeley DB 5.3's replication port has neither TLS nor "
        "authentication: anyone who reaches it can read and overwrite the "
        "frontier. Give a private address, or set repl-listen-any yes to "
        "accept that risk (docs/replication.md)");
  }
  for (unsigned char c : config.repl_name) {
    if (c <= ' ' || c == 0x7f) {
      return Status::InvalidArgument(
          "repl-name must not contain spaces or control characters");
    }
  }
  if (!config.replica_announce_ip.empty() &&
      (IsWildcardHost(config.replica_announce_ip) ||
       !ParseReplicationSite(
           (config.replica_announce_ip.find(':') != std::string::npos
                ? "[" + config.replica_announce_ip + "]"
                : config.replica_announce_ip) +
           ":1"))) {
    return Status::InvalidArgument(
        "replica-announce-ip " + config.replica_announce_ip +
        " is not an address clients can reach (a host name or an IP "
        "literal, not a wildcard)");
  }
  if (!config.replication) return Status::OK();
  if (config.repl_listen.empty()) {
    return Status::InvalidArgument(
        "replication yes needs repl-listen host:port, this site's "
        "replication address");
  }
  if (!config.repl_group_creator && r.peers.empty()) {
    return Status::InvalidArgument(
        "replication yes needs repl-peers (or repl-group-creator yes): a "
        "site that does not create the group joins it through a peer");
  }
  if (config.repl_group_creator && config.repl_priority == 0) {
    return Status::InvalidArgument(
        "repl-group-creator yes needs repl-priority above 0: the creator is "
        "the group's first master, and priority 0 never becomes master");
  }
  for (size_t i = 0; i < r.peers.size(); ++i) {
    if (r.peers[i] == r.listen) {
      return Status::InvalidArgument(
          "repl-peers names this site's own repl-listen address " +
          config.repl_listen);
    }
    if (std::find(r.peers.begin(), r.peers.begin() + i, r.peers[i]) !=
        r.peers.begin() + i) {
      return Status::InvalidArgument("repl-peers names " +
                                     FormatReplicationSite(r.peers[i]) +
                                     " twice");
    }
  }
  return Status::OK();
}

ReplicationOptions ToReplicationOptions(const Config& config) {
  ReplicationOptions r;
  r.enabled = config.replication;
  if (auto site = ParseReplicationSite(config.repl_listen)) r.listen = *site;
  for (const std::string& peer : config.repl_peers) {
    if (auto site = ParseReplicationSite(peer)) r.peers.push_back(*site);
  }
  r.group_creator = config.repl_group_creator;
  r.priority = static_cast<uint32_t>(config.repl_priority);
  r.ack_timeout_ms = config.repl_ack_timeout_ms;
  r.heartbeat_ms = config.repl_heartbeat_ms;
  r.election_timeout_ms = config.repl_election_timeout_ms;
  r.log_retain_bytes = config.repl_log_retain;
  return r;
}

std::string AnnouncedClientAddress(const Config& config, int port) {
  ReplicationSite site;
  site.port = static_cast<uint16_t>(
      config.replica_announce_port != 0 ? config.replica_announce_port : port);
  if (!config.replica_announce_ip.empty()) {
    site.host = config.replica_announce_ip;
  } else {
    for (const std::string& address : config.bind) {
      if (!IsWildcardHost(address)) {
        site.host = address;
        break;
      }
    }
    if (site.host.empty()) {
      if (auto listen = ParseReplicationSite(config.repl_listen)) {
        site.host = listen->host;
      }
    }
  }
  return FormatReplicationSite(site);
}

namespace config_kinds {

Directive ReplicationAddress(std::string_view name, std::string_view def,
                             std::string Config::*m) {
  return Directive{name, def,
                   "host:port or [ipv6]:port with a port 1..65535, or \"\"",
                   [m](Config* c, std::string_view v) {
                     if (v.empty()) {
                       (c->*m).clear();
                       return true;
                     }
                     std::optional<ReplicationSite> site =
                         ParseReplicationSite(v);
                     if (!site) return false;
                     c->*m = FormatReplicationSite(*site);
                     return true;
                   },
                   [m](const Config& c) { return c.*m; }};
}

Directive ReplicationAddressList(std::string_view name, std::string_view def,
                                 std::vector<std::string> Config::*m) {
  return Directive{
      name, def,
      "host:port addresses separated by spaces or commas, or \"\"",
      [m](Config* c, std::string_view v) {
        std::vector<std::string> sites;
        for (std::string_view word : scope::SplitWords(v, " \t,")) {
          std::optional<ReplicationSite> site = ParseReplicationSite(word);
          if (!site) return false;
          sites.push_back(FormatReplicationSite(*site));
        }
        c->*m = std::move(sites);
        return true;
      },
      [m](const Config& c) {
        std::string out;
        for (const std::string& site : c.*m) {
          if (!out.empty()) out += ' ';
          out += site;
        }
        return out;
      }};
}

}  // namespace config_kinds
}  // namespace frontier
