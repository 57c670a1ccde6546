// Redis Cluster's key space, as its specification defines it: 16384 hash
// slots; a key's slot is CRC16(key) mod 16384, where CRC16 is CRC-16/XMODEM
// (polynomial 0x1021, initial value 0, no reflection); a key with a hash tag
// (the bytes between its first '{' and the first '}' after it, if there is
// at least one) hashes the tag alone.
//
// frontierd places a site on the slot of its name (SiteSlot), which is the
// slot any Redis library computes for a key written "{site}url". Pure: bytes
// in, numbers out.
#pragma once

#include <cstdint>
#include <string_view>

namespace frontier::cluster {

inline constexpr int kSlots = 16384;

// CRC-16/XMODEM of `bytes` ("123456789" gives 0x31C3).
uint16_t Crc16(std::string_view bytes);

// The bytes of `key` that decide its slot: its hash tag if it has a
// non-empty one, else the whole key.
std::string_view HashedPart(std::string_view key);

// The slot of `key`, 0..kSlots-1, with Redis Cluster's hash tag rule.
int KeySlot(std::string_view key);

// The slot of the site named `site` (frontierd's site: the normalised host,
// or the registrable domain under `politeness-scope domain`): CRC16 of the
// name itself, so equal to KeySlot("{" + site + "}" + anything).
inline int SiteSlot(std::string_view site) { return Crc16(site) % kSlots; }

}  // namespace frontier::cluster
