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

// --- Authentication and roles (docs/security.md) ---
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, "
    "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to "
    "authenticate the client and select the RESP protocol version at the "
    "same time";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNoPassword =
    "ERR AUTH <password> called without any password configured for the "
    "default user. Are you sure your configuration is correct?";
// "NOPERM User <name> has no permissions to run the '<cmd>' command"
// (Redis 7.2's words; <cmd> is "client|list" for a subcommand).
inline constexpr std::string_view kNoPermPrefix = "NOPERM User ";
inline constexpr std::string_view kNoPermMiddle =
    " has no permissions to run the '";
inline constexpr std::string_view kNoPermSuffix = "' command";
// A client whose user may not use its crawl (`~pattern` rules): Redis's
// "No permissions to access a key", for a crawl; the name and "'" follow.
inline constexpr std::string_view kNoPermCrawlPrefix =
    "NOPERM No permissions to access crawl '";
// CRAWL INFO of a crawl that does not exist.
inline constexpr std::string_view kNoSuchCrawl = "ERR no such crawl";
// Sent to a non-loopback peer in protected mode, which is then closed.
// Redis's text with the server's name.
inline constexpr std::string_view kDenied =
    "DENIED frontierd is running in protected mode because protected mode is "
    "enabled and no password is set for the default user. In this mode "
    "connections are only accepted from the loopback interface. If you want "
    "to connect from external computers to frontierd you may adopt one of "
    "the following solutions: 1) Just disable protected mode sending the "
    "command 'CONFIG SET protected-mode no' from the loopback interface by "
    "connecting to frontierd from the same host the server is running, "
    "however MAKE SURE frontierd is not publicly accessible from internet if "
    "you do so. Use CONFIG REWRITE to make this change permanent. 2) "
    "Alternatively you can just disable the protected mode by editing the "
    "frontierd configuration file, and setting the protected mode option to "
    "'no', and then restarting the server. 3) If you started the server "
    "manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Set up an authentication password for the default user "
    "(requirepass) or users (user). NOTE: You only need to do one of the "
    "above things in order for the server to start accepting connections "
    "from the outside.";

// --- CONFIG, CLIENT, SLOWLOG (Redis's texts) ---
// "ERR Unknown option or number of arguments for CONFIG SET - '<name>'"
inline constexpr std::string_view kConfigSetUnknownPrefix =
    "ERR Unknown option or number of arguments for CONFIG SET - '";
// "ERR CONFIG SET failed (possibly related to argument '<name>') - <why>"
inline constexpr std::string_view kConfigSetFailedPrefix =
    "ERR CONFIG SET failed (possibly related to argument '";
inline constexpr std::string_view kConfigSetImmutable =
    "can't set immutable config";
inline constexpr std::string_view kConfigSetDuplicate = "duplicate parameter";
inline constexpr std::string_view kNoConfigFile =
    "ERR The server is running without a config file";
// "ERR Rewriting config file: <reason>"
inline constexpr std::string_view kRewriteFailedPrefix =
    "ERR Rewriting config file: ";
inline constexpr std::string_view kNoSuchClient = "ERR No such client";
inline constexpr std::string_view kClientIdInvalid =
    "ERR client-id should be greater than 0";
inline constexpr std::string_view kSlowlogCount =
    "ERR count should be greater than or equal to -1";

// --- Pub/Sub (Redis 7's text) ---
// A replica (docs/replication.md): Redis's error for a write, and
// frontierd's for a read on a connection that did not send READONLY.
inline constexpr std::string_view kReadOnlyReplica =
    "READONLY You can't write against a read only replica.";
inline constexpr std::string_view kReplicaReadPrefix =
    "REPLICA this site is a replica of ";
inline constexpr std::string_view kReplicaReadSuffix =
    ": send READONLY on this connection to read from it (its data may lag "
    "the master's)";

// "ERR Can't execute '<cmd>': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE /
// PING / QUIT / RESET are allowed in this context" (<cmd> as in NOPERM).
inline constexpr std::string_view kSubscribedModePrefix = "ERR Can't execute '";
inline constexpr std::string_view kSubscribedModeSuffix =
    "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
    "allowed in this context";

// --- Frontier commands ---
// Per-URL data (issue 22): Redis's syntax error, naming the word at fault:
// "ERR syntax error: DATA needs a value", "... WITHDATA given twice".
inline constexpr std::string_view kSyntaxPrefix = "ERR syntax error: ";
inline constexpr std::string_view kNeedsValueSuffix = " needs a value";
inline constexpr std::string_view kGivenTwiceSuffix = " given twice";
inline constexpr std::string_view kMaddDataPairs =
    "ERR syntax error: MADD ref DATA takes url value pairs";
inline constexpr std::string_view kPriorityRange =
    "ERR PRIORITY must be an integer between 0 and 9999";
inline constexpr std::string_view kRecrawlSeconds =
    "ERR RECRAWL must be a non-negative number of seconds";
inline constexpr std::string_view kLeaseSeconds =
    "ERR LEASE must be a positive number of seconds";
inline constexpr std::string_view kDelaySeconds =
    "ERR DELAY must be a non-negative number of seconds";
inline constexpr std::string_view kStatusRange =
    "ERR STATUS must be an HTTP status code between 100 and 599";
inline constexpr std::string_view kFetchMs =
    "ERR FETCH-MS must be a non-negative integer (milliseconds)";
// Redis's SCAN text, for SITE LIST's CURSOR.
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kSiteLimit =
    "ERR SITE LIMIT must be a non-negative integer (0 = site-max-urls)";
inline constexpr std::string_view kSiteCrawlLimit =
    "ERR SITE CRAWLLIMIT must be a non-negative integer (0 = none)";
inline constexpr std::string_view kSiteAndPartition =
    "ERR POP takes SITE or PARTITION, not both";
inline constexpr std::string_view kBpopSite =
    "ERR SITE is for POP only, not BPOP";
inline constexpr std::string_view kChangedTwice =
    "ERR CHANGED and UNCHANGED exclude each other and may appear once";
inline constexpr std::string_view kExtendSeconds =
    "ERR EXTEND needs a positive number of seconds";
inline constexpr std::string_view kBlockSeconds =
    "ERR SITE BLOCK needs a non-negative number of seconds (0 unblocks)";

// --- Status translation (reply.h: ReplyStatus) ---
inline constexpr std::string_view kStorageErrorPrefix = "ERR storage error: ";

// --- Faults (docs/operations.md) ---
// A write command while the data directory refuses writes (a full disk);
// followed by the storage error, e.g. "log_flush: No space left on
// device". The code is Redis's (MISCONF: it cannot persist), the text our
// own: Redis's speaks of RDB snapshots.
inline constexpr std::string_view kMisconfPrefix =
    "MISCONF Errors writing to the data directory; frontierd is not "
    "accepting writes: ";

// --- COMMAND GETKEYS (Redis's texts) ---
inline constexpr std::string_view kInvalidCommandSpecified =
    "ERR Invalid command specified";
inline constexpr std::string_view kGetKeysInvalidArguments =
    "ERR Invalid number of arguments specified for command";
inline constexpr std::string_view kNoKeyArguments =
    "ERR The command has no key arguments";

// --- Cluster (docs/cluster.md) ---
// Redis Cluster's redirection: "MOVED <slot> <host>:<port>".
inline constexpr std::string_view kMovedPrefix = "MOVED ";
inline constexpr std::string_view kCrossSlot =
    "CROSSSLOT Keys in request don't hash to the same slot";
// "ERR hash tag '{<tag>}' names another site than the URL's ('<site>')"
inline constexpr std::string_view kWrongTagPrefix = "ERR hash tag '{";
inline constexpr std::string_view kWrongTagMiddle =
    "}' names another site than the URL's ('";
inline constexpr std::string_view kWrongTagSuffix = "')";
inline constexpr std::string_view kClusterDisabled =
    "ERR This instance has cluster support disabled";
// A forwarded command that got no answer: "TIMEOUT <what>: the command
// may or may not have run" / "CLUSTERDOWN <what>: the command was not
// run" when it certainly was not sent.
inline constexpr std::string_view kForwardTimeoutPrefix = "TIMEOUT ";
inline constexpr std::string_view kForwardMaybeRun =
    ": the command may or may not have run";
inline constexpr std::string_view kForwardDownPrefix = "CLUSTERDOWN ";
inline constexpr std::string_view kForwardNotRun = ": the command was not run";
// MADDLINKS (a MADD's links sent to their shard) on a connection that is
// not another node's link, logged in as the cluster's user.
inline constexpr std::string_view kClusterInternal =
    "ERR MADDLINKS is internal to the cluster: only another node's link "
    "(CLUSTER LINK, logged in as cluster-auth-user) may send it";
inline constexpr std::string_view kLinksDepth =
    "ERR MADDLINKS depth is '-' or an integer from 0 to 65535";
inline constexpr std::string_view kLinksGroups =
    "ERR MADDLINKS GROUPS g is followed by g groups of ref depth depth-site "
    "-|DATA n and n links (n >= 1), and nothing else";

}  // namespace frontier::errors
