// ReplyWriter: builds RESP2 replies into a byte string. The only way the
// server writes replies; handlers never format RESP by hand.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace frontier {

class ReplyWriter {
 public:
  // Appends to *out, which must outlive the writer.
  explicit ReplyWriter(std::string* out) : out_(out) {}

  void Simple(std::string_view s);   // +s\r\n (s should not contain
                                     // CR/LF; any become spaces)
  void Error(std::string_view msg);  // -msg\r\n; msg starts with the
                                     // error code word, e.g. "ERR ..."
                                     // (CR/LF in msg become spaces)
  void Int(int64_t n);               // :n\r\n
  void Bulk(std::string_view s);     // $len\r\ns\r\n
  void Null();                       // $-1\r\n
  void NullArray();                  // *-1\r\n
  void Array(size_t n);              // *n\r\n, then n replies follow
  void Ok() { Simple("OK"); }

 private:
  std::string* out_;
};

}  // namespace frontier
