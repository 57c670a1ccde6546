#include "cluster/etcd_json.h"

#include <openssl/evp.h>

#include <charconv>

namespace frontier::cluster {
namespace {

// The end (one past) of the JSON string whose opening quote is at `at`,
// or npos if it does not end.
size_t StringEnd(std::string_view json, size_t at) {
  for (size_t i = at + 1; i < json.size(); ++i) {
    if (json[i] == '\\') {
      ++i;
    } else if (json[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// The end (one past) of the object or array opened at `at`, strings
// skipped, or npos.
size_t BlockEnd(std::string_view json, size_t at) {
  int depth = 0;
  for (size_t i = at; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {
      i = StringEnd(json, i);
      if (i == std::string_view::npos) return i;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

size_t SkipSpace(std::string_view json, size_t at) {
  while (at < json.size() && (json[at] == ' ' || json[at] == '\n' ||
                              json[at] == '\r' || json[at] == '\t')) {
    ++at;
  }
  return at;
}

// Where the value of the member `name` of the object `json` (its text from
// '{' to '}') starts, looking at its own members only; npos if none.
size_t Member(std::string_view json, std::string_view name) {
  size_t i = SkipSpace(json, 0);
  if (i >= json.size() || json[i] != '{') return std::string_view::npos;
  ++i;
  while (true) {
    i = SkipSpace(json, i);
    if (i >= json.size() || json[i] != '"') return std::string_view::npos;
    const size_t key_end = StringEnd(json, i);
    if (key_end == std::string_view::npos) return key_end;
    const std::string_view key = json.substr(i + 1, key_end - i - 2);
    i = SkipSpace(json, key_end);
    if (i >= json.size() || json[i] != ':') return std::string_view::npos;
    const size_t value = SkipSpace(json, i + 1);
    if (key == name) return value;
    if (value >= json.size()) return std::string_view::npos;
    if (json[value] == '"') {
      i = StringEnd(json, value);
    } else if (json[value] == '{' || json[value] == '[') {
      i = BlockEnd(json, value);
    } else {
      i = json.find_first_of(",}", value);
    }
    if (i == std::string_view::npos) return i;
    i = SkipSpace(json, i);
    if (i < json.size() && json[i] == ',') ++i;
  }
}

// The member `name` as an object or array's text; "" if absent.
std::string_view Block(std::string_view json, std::string_view name) {
  const size_t at = Member(json, name);
  if (at == std::string_view::npos || at >= json.size() ||
      (json[at] != '{' && json[at] != '[')) {
    return {};
  }
  const size_t end = BlockEnd(json, at);
  if (end == std::string_view::npos) return {};
  return json.substr(at, end - at);
}

// The member `name` as a string (escapes \" \\ \/ only: base64 and
// numbers need no others); nullopt if absent or not a string.
std::optional<std::string> String(std::string_view json,
                                  std::string_view name) {
  const size_t at = Member(json, name);
  if (at == std::string_view::npos || at >= json.size() || json[at] != '"') {
    return std::nullopt;
  }
  const size_t end = StringEnd(json, at);
  if (end == std::string_view::npos) return std::nullopt;
  std::string out;
  for (size_t i = at + 1; i + 1 < end; ++i) {
    if (json[i] == '\\') ++i;
    out.push_back(json[i]);
  }
  return out;
}

// The member `name` as an integer written as a string or a number;
// `absent` if it is left out; nullopt if it is not an integer.
std::optional<int64_t> Integer(std::string_view json, std::string_view name,
                               int64_t absent) {
  const size_t at = Member(json, name);
  if (at == std::string_view::npos) return absent;
  std::string_view digits = json.substr(at);
  if (!digits.empty() && digits.front() == '"') {
    const size_t close = digits.find('"', 1);
    if (close == std::string_view::npos) return std::nullopt;
    digits = digits.substr(1, close - 1);
  } else {
    digits = digits.substr(0, digits.find_first_of(",} \n"));
  }
  int64_t value = 0;
  auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

std::string Quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(
      reinterpret_cast<unsigned char*>(out.data()),
      reinterpret_cast<const unsigned char*>(bytes.data()),
      static_cast<int>(bytes.size()));
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3 + 1, '\0');
  const int n = EVP_DecodeBlock(
      reinterpret_cast<unsigned char*>(out.data()),
      reinterpret_cast<const unsigned char*>(text.data()),
      static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  size_t size = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding as zero bytes.
  for (size_t i = text.size(); i > 0 && text[i - 1] == '=' && size > 0; --i) {
    --size;
  }
  out.resize(size);
  return out;
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    unsigned char last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

std::string RangePrefixRequest(std::string_view prefix) {
  return "{\"key\":" + Quoted(Base64Encode(prefix)) +
         ",\"range_end\":" + Quoted(Base64Encode(PrefixEnd(prefix))) + "}";
}

std::string PutRequest(std::string_view key, std::string_view value,
                       int64_t lease) {
  std::string body = "{\"key\":" + Quoted(Base64Encode(key)) +
                     ",\"value\":" + Quoted(Base64Encode(value));
  if (lease != 0) body += ",\"lease\":" + Quoted(std::to_string(lease));
  return body + "}";
}

std::string LeaseGrantRequest(int64_t ttl_seconds) {
  return "{\"TTL\":" + Quoted(std::to_string(ttl_seconds)) + "}";
}

std::string LeaseIdRequest(int64_t lease) {
  return "{\"ID\":" + Quoted(std::to_string(lease)) + "}";
}

std::optional<std::vector<EtcdKeyValue>> ParseRangeResponse(
    std::string_view json) {
  if (Block(json, "header").empty()) return std::nullopt;
  std::vector<EtcdKeyValue> out;
  const std::string_view kvs = Block(json, "kvs");
  size_t i = 1;  // past '['
  while (i < kvs.size()) {
    i = SkipSpace(kvs, i);
    if (i >= kvs.size() || kvs[i] != '{') break;
    const size_t end = BlockEnd(kvs, i);
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view object = kvs.substr(i, end - i);
    std::optional<std::string> key = String(object, "key");
    std::optional<std::string> value = String(object, "value");
    std::optional<int64_t> revision = Integer(object, "mod_revision", 0);
    std::optional<int64_t> lease = Integer(object, "lease", 0);
    if (!key || !revision || !lease) return std::nullopt;
    EtcdKeyValue kv;
    std::optional<std::string> key_bytes = Base64Decode(*key);
    std::optional<std::string> value_bytes =
        Base64Decode(value ? *value : std::string());
    if (!key_bytes || !value_bytes) return std::nullopt;
    kv.key = std::move(*key_bytes);
    kv.value = std::move(*value_bytes);
    kv.mod_revision = *revision;
    kv.lease = *lease;
    out.push_back(std::move(kv));
    i = SkipSpace(kvs, end);
    if (i < kvs.size() && kvs[i] == ',') ++i;
  }
  return out;
}

std::optional<int64_t> ParseLeaseGrant(std::string_view json) {
  if (Block(json, "header").empty()) return std::nullopt;
  std::optional<int64_t> id = Integer(json, "ID", 0);
  if (!id || *id == 0) return std::nullopt;
  return id;
}

std::optional<int64_t> ParseKeepAlive(std::string_view json) {
  const std::string_view result = Block(json, "result");
  if (result.empty()) return std::nullopt;
  return Integer(result, "TTL", 0);
}

std::string ErrorMessage(std::string_view json) {
  if (std::optional<std::string> m = String(json, "message")) return *m;
  if (std::optional<std::string> e = String(json, "error")) return *e;
  return {};
}

}  // namespace frontier::cluster
