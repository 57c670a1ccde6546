// RespValue and RespReplyReader: the RESP replies of frontierd's commands as
// the gRPC side reads them, and EncodeCommand for the requests. The URL
// Frontier service (urlfrontier/) speaks to the server only in RESP, as any
// client does, so it needs nothing of the server's insides.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::urlfrontier {

struct RespValue {
  enum class Type { kNil, kStatus, kError, kInteger, kString, kArray };
  Type type = Type::kNil;
  std::string str;  // kStatus, kError (the whole text), kString
  int64_t integer = 0;
  std::vector<RespValue> elements;  // kArray

  bool is_error() const { return type == Type::kError; }
  bool is_nil() const { return type == Type::kNil; }
  // The value of field `name` in a flat field/value array (URLINFO, SITE
  // INFO, CRAWL INFO), or nullptr if there is none.
  const RespValue* Field(std::string_view name) const;
  // An integer reply, or a bulk string holding one ("12", "1763807042.5"
  // is cut at the dot); nullopt for anything else.
  std::optional<int64_t> AsInt() const;
};

// One command as RESP request bytes (an array of bulk strings).
std::string EncodeCommand(const std::vector<std::string>& args);

// An incremental reader of RESP2 replies (hiredis's reader): bytes in,
// whole replies out. Not thread-safe; one per reply stream.
class RespReplyReader {
 public:
  RespReplyReader();
  ~RespReplyReader();
  RespReplyReader(const RespReplyReader&) = delete;
  RespReplyReader& operator=(const RespReplyReader&) = delete;

  // Adds bytes received. False if the reader failed (bad framing): every
  // later Next() then fails too.
  bool Feed(std::string_view bytes);
  // The next complete reply, nullopt if more bytes are needed (or the
  // stream is broken: see ok()).
  std::optional<RespValue> Next();
  bool ok() const { return ok_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool ok_ = true;
};

}  // namespace frontier::urlfrontier
