// JSON Lines of an export (export_lines.h).
#include "export/export_lines.h"

#include <cstdio>

namespace frontier::exporter {
namespace {

const char* StateName(StoredState s) {
  switch (s) {
    case StoredState::kQueued:
      return "queued";
    case StoredState::kLeased:
      return "leased";
    case StoredState::kDone:
      return "done";
    case StoredState::kScheduledRetry:
    case StoredState::kScheduledRecrawl:
      return "scheduled";
    case StoredState::kDead:
      return "dead";
    case StoredState::kExcluded:
      return "excluded";
  }
  return "unknown";
}

void Field(std::string* out, std::string_view name, int64_t v) {
  *out += ",\"";
  *out += name;
  *out += "\":";
  *out += std::to_string(v);
}
void FieldU(std::string* out, std::string_view name, uint64_t v) {
  *out += ",\"";
  *out += name;
  *out += "\":";
  *out += std::to_string(v);
}
void FieldS(std::string* out, std::string_view name, std::string_view v) {
  *out += ",\"";
  *out += name;
  *out += "\":";
  *out += JsonString(v);
}

}  // namespace

bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80         ? 1
                 : (c >> 5) == 6  ? 2
                 : (c >> 4) == 14 ? 3
                 : (c >> 3) == 30 ? 4
                                  : 0;
    if (len == 0 || i + len > s.size()) return false;
    if (len == 2 && c < 0xc2) return false;  // overlong
    uint32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 2) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
      return false;
    }
    i += len;
  }
  return true;
}

std::string JsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string HeaderLine(int64_t now_ms) {
  std::string out = "{\"type\":\"frontier\"";
  Field(&out, "version", kFormatVersion);
  Field(&out, "exported", now_ms);
  out += "}\n";
  return out;
}

std::string SiteLine(const SiteRecord& s) {
  std::string out = "{\"type\":\"site\"";
  FieldS(&out, "name", s.name);
  Field(&out, "delay", s.delay_ms);
  Field(&out, "next_allowed", s.next_allowed_ms);
  Field(&out, "block_until", s.block_until_ms);
  FieldU(&out, "backoffs", s.backoffs);
  FieldU(&out, "max_urls", s.max_urls);
  Field(&out, "robots_delay", s.robots_delay_ms);
  Field(&out, "adaptive_delay", s.adaptive_delay_ms);
  // For the reader; IMPORT derives them from the URLs.
  FieldU(&out, "urls", s.urls);
  FieldU(&out, "queued", s.queued);
  FieldU(&out, "leased", s.leases);
  FieldU(&out, "done", s.done);
  FieldU(&out, "scheduled", s.scheduled);
  FieldU(&out, "dead", s.dead);
  FieldU(&out, "excluded", s.excluded);
  out += "}\n";
  return out;
}

std::string RobotsLine(const PolicyRecord& p) {
  std::string out = "{\"type\":\"robots\"";
  FieldS(&out, "origin", p.origin);
  FieldS(&out, "state", RobotsStateName(p.state));
  Field(&out, "status", p.status);
  Field(&out, "fetched", p.fetched_ms);
  Field(&out, "expires", p.expires_ms);
  Field(&out, "until", p.until_ms);
  FieldU(&out, "failures", p.failures);
  FieldS(&out, "rules_base64", Base64(p.rules));  // robots::Rules::Serialize
  out += "}\n";
  return out;
}

std::string UrlLine(const UrlRecord& r, const std::string& site_name,
                    const std::optional<std::string>& data) {
  std::string out = "{\"type\":\"url\"";
  FieldS(&out, "url", r.url);
  FieldS(&out, "site", site_name);
  FieldS(&out, "state", StateName(r.state));
  if (r.state == StoredState::kScheduledRetry)
    FieldS(&out, "schedule", "retry");
  if (r.state == StoredState::kScheduledRecrawl) {
    FieldS(&out, "schedule", "recrawl");
  }
  Field(&out, "depth", r.depth);
  Field(&out, "priority", r.priority);
  Field(&out, "attempts", r.attempts);
  FieldU(&out, "backlinks", r.backlinks);
  Field(&out, "recrawl", r.recrawl_ms);
  Field(&out, "due", r.due_ms);
  Field(&out, "last_fetch", r.last_fetch_ms);
  Field(&out, "created", r.created_ms);
  if (data) {
    if (IsUtf8(*data)) {
      FieldS(&out, "data", *data);
    } else {
      FieldS(&out, "data_base64", Base64(*data));
    }
  }
  out += "}\n";
  return out;
}

}  // namespace frontier::exporter
