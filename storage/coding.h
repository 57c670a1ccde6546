// Fixed-width integer encoding for on-disk keys and records.
//
// Keys use big-endian so that Berkeley DB's byte-wise B-tree order is the
// numeric order (the paper's zero-padded decimal strings, in binary).
// Record bodies use the same encoding for simplicity; they are never
// compared.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace frontier::coding {

inline void PutU16(std::string* out, uint16_t v) {
  const char buf[2] = {static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(buf, 2);
}

inline void PutU64(std::string* out, uint64_t v) {
  char buf[8];
  for (int i = 7; i >= 0; --i, v >>= 8) buf[i] = static_cast<char>(v);
  out->append(buf, 8);  // one append: this runs several times per command
}

inline void PutI64(std::string* out, int64_t v) {
  PutU64(out, static_cast<uint64_t>(v));
}

// Readers take a cursor into `in` and advance it. They return false (and
// leave the value untouched) when fewer bytes remain than the value needs.
inline bool GetU16(std::string_view* in, uint16_t* v) {
  if (in->size() < 2) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(in->data());
  *v = static_cast<uint16_t>((p[0] << 8) | p[1]);
  in->remove_prefix(2);
  return true;
}

inline bool GetU64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(in->data());
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = (r << 8) | p[i];
  *v = r;
  in->remove_prefix(8);
  return true;
}

inline bool GetI64(std::string_view* in, int64_t* v) {
  uint64_t u;
  if (!GetU64(in, &u)) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

}  // namespace frontier::coding
