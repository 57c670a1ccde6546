// How a URL Frontier URL's metadata (a map of keys to lists of strings) is
// kept as frontierd's per-URL value (ADD ... DATA): one line per value,
// "key<TAB>value<LF>", keys in byte order and each key's values in their
// order; a key with an empty list is a line "key<LF>" alone. Backslash,
// tab and line feed inside a key or value are written as "\\", "\t" and
// "\n". Text a RESP worker can read too (docs/urlfrontier.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::urlfrontier {

using Metadata = std::map<std::string, std::vector<std::string>>;

// "" for an empty map (the URL then gets no value at all).
std::string EncodeMetadata(const Metadata& metadata);

// The map a value encodes; nullopt if `value` is not in this encoding (a
// value a RESP client stored): the caller then shows it whole.
std::optional<Metadata> DecodeMetadata(std::string_view value);

}  // namespace frontier::urlfrontier
