// Version strings reported by INFO, HELLO and the startup log.
#pragma once

namespace frontier {

inline constexpr char kFrontierdVersion[] = "0.1.0";
// What INFO's redis_version says: the Redis release whose RESP2 commands
// and replies frontierd follows, for clients that check it.
inline constexpr char kRedisCompatVersion[] = "7.0.0";

}  // namespace frontier
