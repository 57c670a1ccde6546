// Integer encoding for on-disk keys and records.
//
// Keys use fixed-width big-endian so that Berkeley DB's byte-wise B-tree
// order is the numeric order (the paper's zero-padded decimal strings, in
// binary). Record bodies, never compared, use varints (LEB128; signed
// values zigzagged): every byte of a record is logged, often twice.
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

// Big-endian into a key buffer of at least 8 (or 2) bytes.
inline void EncodeU64(char* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v);
}
inline void EncodeU16(char* p, uint16_t v) {
  p[0] = static_cast<char>(v >> 8);
  p[1] = static_cast<char>(v);
}

inline void PutVarint(std::string* out, uint64_t v) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, n);
}

inline void PutSignedVarint(std::string* out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^
                     static_cast<uint64_t>(v >> 63));
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

inline bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t r = 0;
  for (size_t i = 0; i < in->size() && i < 10; ++i) {
    const auto b = static_cast<uint8_t>((*in)[i]);
    r |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      *v = r;
      in->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

inline bool GetSignedVarint(std::string_view* in, int64_t* v) {
  uint64_t u;
  if (!GetVarint(in, &u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

// A varint that must fit `T` (uint16_t, ...).
template <typename T>
inline bool GetVarintAs(std::string_view* in, T* v) {
  uint64_t u;
  if (!GetVarint(in, &u) || u > static_cast<uint64_t>(T(~T(0)))) return false;
  *v = static_cast<T>(u);
  return true;
}

}  // namespace frontier::coding
