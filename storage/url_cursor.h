// The cursor of the scans over urls.db that run a slice a call (URLS,
// PURGE): the next record's key as "<host_fp>-<url_fp>" in hex; "0" is the
// start and, returned, the end.
#pragma once

#include <string>
#include <string_view>

#include "storage/records.h"

namespace frontier {

std::string EncodeUrlCursor(const UrlKey& key);
// False if `text` is not a cursor; "0" decodes to the first key.
bool DecodeUrlCursor(std::string_view text, UrlKey* key);

}  // namespace frontier
