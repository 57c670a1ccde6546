// The dashboard page's files (server/http/assets/), embedded in the binary
// at build time by cmake/EmbedAssets.cmake: the page needs nothing from
// elsewhere, and editing a file there only needs a rebuild.
#pragma once

#include <span>
#include <string_view>

namespace frontier {

struct Asset {
  std::string_view path;          // "/" for index.html, else "/<file name>"
  std::string_view content_type;  // from the file's extension
  std::string_view body;
};

// Every embedded file.
std::span<const Asset> Assets();

// The asset served at `path`, or nullptr.
inline const Asset* FindAsset(std::string_view path) {
  for (const Asset& a : Assets()) {
    if (a.path == path) return &a;
  }
  return nullptr;
}

}  // namespace frontier
