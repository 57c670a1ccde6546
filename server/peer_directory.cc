#include "server/peer_directory.h"

#include <charconv>
#include <vector>

namespace frontier {
namespace {

// Version 1: "frontierd-hello/1 group=NAME repl=HOST:PORT client=HOST:PORT
// [offset=N]" (offset: the sender's log end; older senders leave it out).
constexpr std::string_view kTag = "frontierd-hello/1";

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const size_t space = text.find(' ');
    words.push_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return words;
}

}  // namespace

std::string PeerDirectory::Encode(const Hello& hello) {
  std::string out(kTag);
  out.append(" group=").append(hello.group);
  out.append(" repl=").append(hello.repl);
  out.append(" client=").append(hello.client);
  out.append(" offset=").append(std::to_string(hello.offset));
  return out;
}

std::optional<PeerDirectory::Hello> PeerDirectory::Decode(
    std::string_view message) {
  const std::vector<std::string_view> words = Words(message);
  if ((words.size() != 4 && words.size() != 5) || words[0] != kTag) {
    return std::nullopt;
  }
  Hello hello;
  const std::pair<std::string_view, std::string*> fields[] = {
      {"group=", &hello.group}, {"repl=", &hello.repl},
      {"client=", &hello.client}};
  for (size_t i = 0; i < 3; ++i) {
    const auto& [key, out] = fields[i];
    const std::string_view word = words[i + 1];
    if (!word.starts_with(key) || word.size() == key.size()) {
      return std::nullopt;
    }
    out->assign(word.substr(key.size()));
  }
  if (words.size() == 5) {
    constexpr std::string_view kOffset = "offset=";
    const std::string_view word = words[4];
    if (!word.starts_with(kOffset)) return std::nullopt;
    const std::string_view digits = word.substr(kOffset.size());
    const char* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, hello.offset);
    if (digits.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  }
  return hello;
}

void PeerDirectory::Learn(const Hello& hello, int64_t now_ms) {
  Entry& entry = by_repl_[hello.repl];
  entry.client = hello.client;
  entry.heard_ms = now_ms;
  entry.offset = hello.offset;
}

uint64_t PeerDirectory::Offset(std::string_view repl) const {
  auto it = by_repl_.find(repl);
  return it == by_repl_.end() ? 0 : it->second.offset;
}

std::string PeerDirectory::ClientAddress(std::string_view repl) const {
  auto it = by_repl_.find(repl);
  return it == by_repl_.end() ? std::string() : it->second.client;
}

int64_t PeerDirectory::LastHeardMs(std::string_view repl) const {
  auto it = by_repl_.find(repl);
  return it == by_repl_.end() ? 0 : it->second.heard_ms;
}

}  // namespace frontier
