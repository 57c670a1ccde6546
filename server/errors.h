// The error replies the server sends, as named constants in one place.
//
// Where Redis has the same error, the text is Redis's word for word, so that
// clients and people who know Redis recognise it. Each constant is the whole
// error line without the leading '-' (ReplyWriter::Error adds it).
#pragma once

#include <string_view>

namespace frontier::errors {

// --- Generic argument errors (Redis's texts) ---
inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger =
    "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kTimeoutNotFloat =
    "ERR timeout is not a float or out of range";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";

// --- Command lookup and arity (formats: see command_table.h) ---
// "ERR unknown command '<name>', with args beginning with: '<a>' '<b>' "
inline constexpr std::string_view kUnknownCommandPrefix =
    "ERR unknown command '";
inline constexpr std::string_view kUnknownCommandArgs =
    "', with args beginning with: ";
// "ERR wrong number of arguments for '<name>' command"
inline constexpr std::string_view kWrongArityPrefix =
    "ERR wrong number of arguments for '";
inline constexpr std::string_view kWrongAritySuffix = "' command";
// "ERR unknown subcommand '<sub>'. Try <CMD> HELP."
inline constexpr std::string_view kUnknownSubcommandPrefix =
    "ERR unknown subcommand '";

// --- Connection and protocol ---
inline constexpr std::string_view kProtocolErrorPrefix = "ERR Protocol error: ";
inline constexpr std::string_view kMaxClients =
    "ERR max number of clients reached";
inline constexpr std::string_view kDbIndexOutOfRange =
    "ERR DB index is out of range";
inline constexpr std::string_view kClientNameInvalid =
    "ERR Client names cannot contain spaces, newlines or special characters.";
inline constexpr std::string_view kNoProto =
    "NOPROTO unsupported protocol version";
inline constexpr std::string_view kProtoNotInteger =
    "ERR Protocol version is not an integer or out of range";
// "ERR Syntax error in HELLO option '<opt>'"
inline constexpr std::string_view kHelloOptionPrefix =
    "ERR Syntax error in HELLO option '";
// "ERR Unrecognized option '<opt>'" (CLIENT SETINFO)
inline constexpr std::string_view kUnrecognizedOptionPrefix =
    "ERR Unrecognized option '";
inline constexpr std::string_view kNoShutdownInProgress =
    "ERR No shutdown in progress.";

// --- Frontier commands ---
inline constexpr std::string_view kPriorityRange =
    "ERR PRIORITY must be an integer between 0 and 9999";
inline constexpr std::string_view kRecrawlSeconds =
    "ERR RECRAWL must be a non-negative number of seconds";
inline constexpr std::string_view kLeaseSeconds =
    "ERR LEASE must be a positive number of seconds";
inline constexpr std::string_view kDelaySeconds =
    "ERR DELAY must be a non-negative number of seconds";

// --- Status translation (reply.h: ReplyStatus) ---
inline constexpr std::string_view kStorageErrorPrefix = "ERR storage error: ";

}  // namespace frontier::errors
