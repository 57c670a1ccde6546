// PeerDirectory: where clients reach the sites of this replication group
// (docs/replication.md, "Finding the master"), by replication address.
//
// Berkeley DB knows each site by its replication address only, but a
// client must reach the master's RESP port. So the master writes its own
// client address into the group's directory, which lives in the
// replicated data (Frontier::PutGroupDirectory), and adds the addresses
// its replicas announce to it (REPLICATION ANNOUNCE, over its RESP port):
// every site reads it from its own copy. This is the loop's copy of it.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace frontier {

class PeerDirectory {
 public:
  // Records `client` ("host:port") for the site at `repl`.
  void Set(std::string_view repl, std::string_view client);
  // The client address of the site whose replication address is `repl`,
  // or "" if the directory does not name it.
  std::string ClientAddress(std::string_view repl) const;

  // Forgets every site for which `keep(repl)` is false (sites that left
  // the group).
  template <typename Keep>
  void RetainIf(Keep keep) {
    std::erase_if(client_by_repl_,
                  [&](const auto& entry) { return !keep(entry.first); });
  }

  // The directory as it is stored: one line "REPL CLIENT" per site,
  // sorted. Load replaces the directory with what `text` names (a
  // malformed line is skipped; false if there was one).
  std::string Encode() const;
  bool Load(std::string_view text);

 private:
  std::map<std::string, std::string, std::less<>> client_by_repl_;
};

}  // namespace frontier
