// PeerDirectory: the client (RESP) address of each site of this
// replication group, as the sites tell one another (docs/replication.md,
// "Finding the master").
//
// Berkeley DB knows each site by its replication address only, but a
// client must reach the master's RESP port. So each site sends a hello,
// carrying its group name, its replication address and its client
// address, over the Replication Manager's own connections
// (Frontier::SendToPeers): when a connection to a peer opens, and again
// every few seconds. The loop records what it hears here. In memory only:
// a site that starts learns its peers' addresses within seconds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace frontier {

class PeerDirectory {
 public:
  struct Hello {
    std::string group;   // repl-name
    std::string repl;    // the sender's repl-listen, "host:port"
    std::string client;  // where clients reach it, "host:port"
    // The end of its transaction log when it sent the hello (file << 32 |
    // offset, as ReplicationState::log_offset); 0 if not said.
    uint64_t offset = 0;
  };

  // The message a site sends; Decode(Encode(h)) == h for fields without
  // spaces (addresses and repl-name have none).
  static std::string Encode(const Hello& hello);
  // nullopt for anything that is not a hello of this format.
  static std::optional<Hello> Decode(std::string_view message);

  // Records `hello`'s client address for its replication address.
  void Learn(const Hello& hello, int64_t now_ms);
  // The client address of the site whose replication address is `repl`
  // ("host:port"), or "" if none was heard.
  std::string ClientAddress(std::string_view repl) const;
  // When the site at `repl` was last heard from (0 = never).
  int64_t LastHeardMs(std::string_view repl) const;
  // Its log end as its last hello said (0 = never heard, or not said).
  uint64_t Offset(std::string_view repl) const;

 private:
  struct Entry {
    std::string client;
    int64_t heard_ms = 0;
    uint64_t offset = 0;
  };
  std::map<std::string, Entry, std::less<>> by_repl_;
};

}  // namespace frontier
