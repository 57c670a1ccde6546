#include "storage/policy_records.h"

#include "storage/coding.h"

namespace frontier {

using coding::EncodeU64;
using coding::GetSignedVarint;
using coding::GetU64;
using coding::GetVarint;
using coding::GetVarintAs;
using coding::PutSignedVarint;
using coding::PutU64;
using coding::PutVarint;

namespace {
constexpr char kPolicyRecordV1 = 1;
constexpr uint8_t kFlagRecheck = 1, kFlagRecheckStarted = 2;
}  // namespace

const char* RobotsStateName(RobotsState state) {
  switch (state) {
    case RobotsState::kUnknown:
      return "unknown";
    case RobotsState::kFetching:
      return "fetching";
    case RobotsState::kOk:
      return "ok";
    case RobotsState::kAllowAll:
      return "allow-all";
    case RobotsState::kUnreachable:
      return "unreachable";
  }
  return "unknown";
}

std::string EncodePolicyRecord(const PolicyRecord& r) {
  std::string out;
  out.push_back(kPolicyRecordV1);
  out.push_back(static_cast<char>(r.state));
  uint8_t flags = 0;
  if (r.recheck) flags |= kFlagRecheck;
  if (r.recheck_started) flags |= kFlagRecheckStarted;
  out.push_back(static_cast<char>(flags));
  PutVarint(&out, static_cast<uint64_t>(r.status));
  PutSignedVarint(&out, r.fetched_ms);
  PutSignedVarint(&out, r.expires_ms);
  PutSignedVarint(&out, r.until_ms);
  PutVarint(&out, r.failures);
  PutU64(&out, r.recheck_after.host_fp);
  PutU64(&out, r.recheck_after.url_fp);
  PutVarint(&out, r.origin.size());
  out.append(r.origin);
  out.append(r.rules);
  return out;
}

bool DecodePolicyRecord(std::string_view in, PolicyRecord* r) {
  if (in.size() < 3 || in[0] != kPolicyRecordV1) return false;
  const auto state = static_cast<uint8_t>(in[1]);
  if (state > static_cast<uint8_t>(RobotsState::kUnreachable)) return false;
  r->state = static_cast<RobotsState>(state);
  const auto flags = static_cast<uint8_t>(in[2]);
  r->recheck = (flags & kFlagRecheck) != 0;
  r->recheck_started = (flags & kFlagRecheckStarted) != 0;
  in.remove_prefix(3);
  uint64_t origin_size = 0;
  uint16_t status = 0;
  if (!(GetVarintAs(&in, &status) && GetSignedVarint(&in, &r->fetched_ms) &&
        GetSignedVarint(&in, &r->expires_ms) &&
        GetSignedVarint(&in, &r->until_ms) && GetVarintAs(&in, &r->failures) &&
        GetU64(&in, &r->recheck_after.host_fp) &&
        GetU64(&in, &r->recheck_after.url_fp) &&
        GetVarint(&in, &origin_size)) ||
      origin_size > in.size() || origin_size == 0) {
    return false;
  }
  r->status = status;
  r->origin.assign(in.data(), origin_size);
  in.remove_prefix(origin_size);
  r->rules.assign(in.data(), in.size());
  return true;
}

KeyBytes<8> EncodePolicyKey(uint64_t origin_fp) {
  KeyBytes<8> out;
  EncodeU64(out.data, origin_fp);
  return out;
}

KeyBytes<kExcludedKeySize> EncodeExcludedKey(uint64_t origin_fp,
                                             const UrlKey& url) {
  KeyBytes<kExcludedKeySize> out;
  EncodeU64(out.data, origin_fp);
  EncodeU64(out.data + 8, url.host_fp);
  EncodeU64(out.data + 16, url.url_fp);
  return out;
}

bool DecodeExcludedKey(std::string_view in, uint64_t* origin_fp, UrlKey* url) {
  return in.size() == kExcludedKeySize && GetU64(&in, origin_fp) &&
         GetU64(&in, &url->host_fp) && GetU64(&in, &url->url_fp);
}

}  // namespace frontier
