#include "server/peer_directory.h"

namespace frontier {

void PeerDirectory::Set(std::string_view repl, std::string_view client) {
  auto it = client_by_repl_.find(repl);
  if (it == client_by_repl_.end()) {
    client_by_repl_.emplace(std::string(repl), std::string(client));
  } else {
    it->second = std::string(client);
  }
}

std::string PeerDirectory::ClientAddress(std::string_view repl) const {
  auto it = client_by_repl_.find(repl);
  return it == client_by_repl_.end() ? std::string() : it->second;
}

std::string PeerDirectory::Encode() const {
  std::string out;
  for (const auto& [repl, client] : client_by_repl_) {
    out.append(repl).append(" ").append(client).append("\n");
  }
  return out;
}

bool PeerDirectory::Load(std::string_view text) {
  client_by_repl_.clear();
  bool clean = true;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 ||
        space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos) {
      clean = false;
      continue;
    }
    Set(line.substr(0, space), line.substr(space + 1));
  }
  return clean;
}

}  // namespace frontier
