// The host of an http(s) URL, parsed as the WHATWG URL Standard's host
// parser does for special schemes (https://url.spec.whatwg.org/#host-parsing)
// and written in the one form frontierd stores: a lower-case ASCII domain
// (IDN labels converted with libidn2, UTS #46 non-transitional), a
// dotted-decimal IPv4 address, or a bracketed IPv6 address in the Standard's
// compressed form. Pure: no storage, no I/O. Used by url.cc.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/status.h"

namespace frontier::url_internal {

// Parses `input`, the host of a URL as written (between "//" or userinfo
// and the port, tabs and newlines already removed): it may hold
// percent-escapes, UTF-8 text and other spellings of an IPv4 address
// ("0x7f.1", "2130706433"). Returns the stored form ("xn--bcher-kva.example",
// "127.0.0.1", "[::1]"), or InvalidArgument naming the problem: no host, an
// invalid IDN label (libidn2's reason), a character no host may contain, an
// invalid IPv4 or IPv6 address.
StatusOr<std::string> ParseHost(std::string_view input);

// The offset of the first byte of `text` that does not begin a valid UTF-8
// sequence (overlong forms, surrogates and code points past U+10FFFF are
// not valid), or std::string_view::npos if all of it is UTF-8.
size_t FindInvalidUtf8(std::string_view text);

}  // namespace frontier::url_internal
