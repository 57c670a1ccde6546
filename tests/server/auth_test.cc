// Authentication, users and roles, protected mode (docs/security.md).
//
// Unit tests of the decisions (server/users.h, server/auth.h, the role
// check of the command table), then end to end through the real binary:
// requirepass, AUTH in both forms, HELLO AUTH, a worker and an admin user,
// and passwords kept out of the log.
//
// Protected mode refuses non-loopback peers; a CI machine has no second
// address to connect from, so the decision (address -> refused?) is tested
// as a unit, and end to end only that loopback clients are still served.
#include "server/auth.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "server/command_table.h"
#include "server/config.h"
#include "server/users.h"
#include "support/frontierd_process.h"

namespace frontier {
namespace {

// --- Users -----------------------------------------------------------------

TEST(UserSpecTest, ParsesTheDocumentedForm) {
  StatusOr<UserSpec> u = ParseUserSpec("crawler1 on >s3cret +@worker");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->name, "crawler1");
  EXPECT_TRUE(u->enabled);
  EXPECT_EQ(u->role, Role::kWorker);
  ASSERT_EQ(u->passwords.size(), 1u);
  EXPECT_TRUE(DigestsEqual(u->passwords[0], DigestPassword("s3cret")));
}

TEST(UserSpecTest, PrintsDigestsNeverPasswords) {
  StatusOr<UserSpec> u = ParseUserSpec("ops on >hunter2 >other +@admin");
  ASSERT_TRUE(u.ok());
  std::string printed = FormatUserSpec(*u);
  EXPECT_EQ(printed.find("hunter2"), std::string::npos) << printed;
  EXPECT_TRUE(printed.starts_with("ops on #")) << printed;
  EXPECT_TRUE(printed.ends_with(" +@admin")) << printed;
  // The printed form reads back to the same user.
  StatusOr<UserSpec> again = ParseUserSpec(printed);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(FormatUserSpec(*again), printed);
  ASSERT_EQ(again->passwords.size(), 2u);
  EXPECT_TRUE(DigestsEqual(again->passwords[0], DigestPassword("hunter2")));
}

TEST(UserSpecTest, UsersAreOffUnlessSaidOn) {
  StatusOr<UserSpec> u = ParseUserSpec("later >pw +@worker");
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->enabled);
}

TEST(UserSpecTest, BadSpecsAreRefusedWithoutQuotingPasswords) {
  // "Zq9x" stands for the password; "mypassword" for one missing its '>'.
  const char* bad[] = {
      "",                                    // no name
      "default on >Zq9x +@admin",            // requirepass's user
      "bad/name on >Zq9x +@worker",          // name characters
      "nopass on +@worker",                  // no password
      "norole on >Zq9x",                     // no role
      "tworoles on >Zq9x +@worker +@admin",  // two roles
      "w on #abcd +@worker",                 // short digest
      "w on >Zq9x +@worker mypassword",      // a stray word
  };
  for (const char* text : bad) {
    StatusOr<UserSpec> u = ParseUserSpec(text);
    EXPECT_FALSE(u.ok()) << text;
    if (!u.ok()) {
      EXPECT_EQ(u.status().message().find("Zq9x"), std::string::npos)
          << u.status().message();
      EXPECT_EQ(u.status().message().find("mypassword"), std::string::npos)
          << u.status().message();
    }
  }
}

TEST(UserSpecTest, TheUserDirectiveRepeatsAndNeverEchoesItsValue) {
  Config c = DefaultConfig();
  ASSERT_TRUE(SetDirective(&c, "user", "a on >pa +@worker").ok());
  ASSERT_TRUE(SetDirective(&c, "user", "b on >pb +@admin").ok());
  ASSERT_EQ(c.users.size(), 2u);
  Status dup = SetDirective(&c, "user", "a on >topsecret +@worker");
  EXPECT_FALSE(dup.ok());
  EXPECT_NE(dup.message().find("declared twice"), std::string::npos)
      << dup.message();
  EXPECT_EQ(dup.message().find("topsecret"), std::string::npos)
      << dup.message();
  Status bad = SetDirective(&c, "user", "c on >topsecret");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().find("topsecret"), std::string::npos)
      << bad.message();
  // One line per user; the empty value (the default) clears them.
  std::string printed = FindDirective("user")->get(c);
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 1) << printed;
  ASSERT_TRUE(SetDirective(&c, "user", "").ok());
  EXPECT_TRUE(c.users.empty());
}

TEST(UserSpecTest, ConfigFileErrorsDoNotQuoteSecretLines) {
  Config c = DefaultConfig();
  Status s = ApplyConfigText(&c, "requirepass \"unterminated-secret\n", "f");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().find("unterminated-secret"), std::string::npos)
      << s.message();
}

// --- Authenticate ----------------------------------------------------------

Config WithSecurity() {
  Config c = DefaultConfig();
  c.requirepass = "rootpw";
  EXPECT_TRUE(SetDirective(&c, "user", "w on >wpw +@worker").ok());
  EXPECT_TRUE(SetDirective(&c, "user", "a on >apw1 >apw2 +@admin").ok());
  EXPECT_TRUE(SetDirective(&c, "user", "gone off >gpw +@admin").ok());
  return c;
}

TEST(AuthenticateTest, ChecksEveryKindOfUser) {
  Config c = WithSecurity();
  EXPECT_TRUE(AuthRequired(c));
  EXPECT_EQ(Authenticate(c, "default", "rootpw"), Role::kAdmin);
  EXPECT_EQ(Authenticate(c, "default", "rootpw "), std::nullopt);
  EXPECT_EQ(Authenticate(c, "w", "wpw"), Role::kWorker);
  EXPECT_EQ(Authenticate(c, "w", "rootpw"), std::nullopt);
  EXPECT_EQ(Authenticate(c, "a", "apw1"), Role::kAdmin);
  EXPECT_EQ(Authenticate(c, "a", "apw2"), Role::kAdmin);
  EXPECT_EQ(Authenticate(c, "gone", "gpw"), std::nullopt);  // off
  EXPECT_EQ(Authenticate(c, "nobody", "wpw"), std::nullopt);
  EXPECT_EQ(Authenticate(c, "W", "wpw"), std::nullopt);  // names are exact
}

TEST(AuthenticateTest, UsersWithoutRequirepassDisableTheDefaultUser) {
  Config c = DefaultConfig();
  ASSERT_TRUE(SetDirective(&c, "user", "w on >wpw +@worker").ok());
  EXPECT_TRUE(AuthRequired(c));
  EXPECT_EQ(Authenticate(c, "default", ""), std::nullopt);
  EXPECT_EQ(Authenticate(c, "default", "anything"), std::nullopt);
}

TEST(AuthenticateTest, WithoutSecurityTheDefaultUserIsOpen) {
  Config c = DefaultConfig();
  EXPECT_FALSE(AuthRequired(c));
  EXPECT_EQ(Authenticate(c, "default", "whatever"), Role::kAdmin);
  EXPECT_EQ(Authenticate(c, "someone", "whatever"), std::nullopt);
}

// --- Protected mode --------------------------------------------------------

sockaddr_in V4(const char* ip) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

sockaddr_in6 V6(const char* ip) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  inet_pton(AF_INET6, ip, &a.sin6_addr);
  return a;
}

const sockaddr* Sa(const auto& a) {
  return reinterpret_cast<const sockaddr*>(&a);
}

TEST(ProtectedModeTest, LoopbackPeersAreRecognised) {
  EXPECT_TRUE(IsLoopbackPeer(Sa(V4("127.0.0.1"))));
  EXPECT_TRUE(IsLoopbackPeer(Sa(V4("127.200.3.4"))));
  EXPECT_TRUE(IsLoopbackPeer(Sa(V6("::1"))));
  EXPECT_TRUE(IsLoopbackPeer(Sa(V6("::ffff:127.0.0.1"))));
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  EXPECT_TRUE(IsLoopbackPeer(Sa(un)));
  EXPECT_FALSE(IsLoopbackPeer(Sa(V4("10.0.0.1"))));
  EXPECT_FALSE(IsLoopbackPeer(Sa(V4("128.0.0.1"))));
  EXPECT_FALSE(IsLoopbackPeer(Sa(V4("0.0.0.0"))));
  EXPECT_FALSE(IsLoopbackPeer(Sa(V6("2001:db8::1"))));
  EXPECT_FALSE(IsLoopbackPeer(Sa(V6("::ffff:10.1.2.3"))));
  EXPECT_FALSE(IsLoopbackPeer(Sa(V6("::"))));
}

TEST(ProtectedModeTest, RefusesOnlyRemotePeersOfAnOpenServer) {
  Config c = DefaultConfig();
  ASSERT_TRUE(c.protected_mode);  // the default
  EXPECT_TRUE(ProtectedModeRefuses(c, Sa(V4("192.168.1.20"))));
  EXPECT_TRUE(ProtectedModeRefuses(c, Sa(V6("2001:db8::7"))));
  EXPECT_FALSE(ProtectedModeRefuses(c, Sa(V4("127.0.0.1"))));
  EXPECT_FALSE(ProtectedModeRefuses(c, Sa(V6("::1"))));

  Config with_password = c;
  with_password.requirepass = "pw";
  EXPECT_FALSE(ProtectedModeRefuses(with_password, Sa(V4("192.168.1.20"))));

  Config with_user = c;
  ASSERT_TRUE(SetDirective(&with_user, "user", "w on >pw +@worker").ok());
  EXPECT_FALSE(ProtectedModeRefuses(with_user, Sa(V4("192.168.1.20"))));

  Config off = c;
  ASSERT_TRUE(SetDirective(&off, "protected-mode", "no").ok());
  EXPECT_FALSE(ProtectedModeRefuses(off, Sa(V4("192.168.1.20"))));
}

// --- Roles in the command table ---------------------------------------------

std::vector<std::string> Argv(std::initializer_list<const char*> words) {
  return std::vector<std::string>(words.begin(), words.end());
}

bool WorkerMay(std::initializer_list<const char*> words) {
  std::vector<std::string> argv = Argv(words);
  const CommandSpec* spec = FindCommand(argv[0]);
  EXPECT_NE(spec, nullptr) << argv[0];
  return spec != nullptr && RoleMayRun(Role::kWorker, *spec, argv);
}

TEST(RolesTest, WorkersRunTheFrontierVerbsAndHousekeeping) {
  for (const char* name :
       {"add",  "madd",    "pop",   "bpop",    "confirm", "fail", "recrawl",
        "seen", "urlinfo", "stats", "info",    "ping",    "auth", "hello",
        "quit", "select",  "echo",  "command", "dbsize",  "time"}) {
    EXPECT_TRUE(WorkerMay({name})) << name;
  }
  for (const char* sub : {"id", "setname", "getname", "setinfo", "info"}) {
    EXPECT_TRUE(WorkerMay({"client", sub})) << sub;
  }
}

TEST(RolesTest, OnlyAdminsChangeTheServer) {
  for (const char* name : {"shutdown", "delay", "config", "slowlog"}) {
    EXPECT_FALSE(WorkerMay({name})) << name;
  }
  EXPECT_FALSE(WorkerMay({"client", "list"}));
  EXPECT_FALSE(WorkerMay({"client", "KILL"}));
  for (const CommandSpec& spec : Commands()) {
    EXPECT_TRUE(RoleMayRun(Role::kAdmin, spec, Argv({"x", "list"})))
        << spec.name;
    // "admin" (COMMAND INFO's flag) and "a worker may run it" exclude
    // each other.
    EXPECT_FALSE((spec.flags & kCmdAdmin) && (spec.flags & kCmdWorker))
        << spec.name;
  }
}

TEST(RolesTest, BeforeAuthOnlyAuthHelloPingQuitResetRun) {
  std::vector<std::string> allowed;
  for (const CommandSpec& spec : Commands()) {
    if (RoleMayRun(Role::kNone, spec, Argv({"x"}))) {
      allowed.emplace_back(spec.name);
    }
  }
  std::sort(allowed.begin(), allowed.end());
  EXPECT_EQ(allowed, Argv({"auth", "hello", "ping", "quit", "reset"}));
}

}  // namespace

// --- End to end --------------------------------------------------------------

namespace itest {
namespace {

using std::chrono::seconds;

constexpr char kRootPw[] = "root-Pw-0xDEAD";
constexpr char kWorkerPw[] = "worker-Pw-0xBEEF";
constexpr char kAdminPw[] = "admin-Pw-0xCAFE";

// A server with requirepass, a worker, an admin and a disabled user.
class AuthTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(),
                {"--requirepass", kRootPw, "--loglevel", "debug",  //
                 "--user", "crawler", "on", std::string(">") + kWorkerPw,
                 "+@worker",  //
                 "--user", "ops", "on", std::string(">") + kAdminPw, "+@admin",
                 "--user", "retired", "off", ">oldpw", "+@worker"});
    return args;
  }

  std::unique_ptr<Client> LoggedIn(const std::string& user,
                                   const std::string& password) {
    std::unique_ptr<Client> c = Connect();
    Reply r = c->Cmd({"AUTH", user, password});
    EXPECT_EQ(r, StatusReply("OK")) << user;
    return c;
  }
};

TEST_F(AuthTest, NothingButAuthHelloPingQuitAnswersBeforeAuth) {
  std::unique_ptr<Client> c = Connect();
  EXPECT_EQ(c->Cmd({"ADD", "http://a.com/"}),
            Error("NOAUTH Authentication required."));
  EXPECT_EQ(c->Cmd({"POP"}), Error("NOAUTH Authentication required."));
  EXPECT_EQ(c->Cmd({"CLIENT", "ID"}), Error("NOAUTH Authentication required."));
  EXPECT_EQ(c->Cmd({"SHUTDOWN"}), Error("NOAUTH Authentication required."));
  // The issue's rule (Redis itself answers NOAUTH to PING).
  EXPECT_EQ(c->Cmd({"PING"}), StatusReply("PONG"));
  // Unknown commands and wrong arities are reported as such first, as in
  // Redis.
  EXPECT_TRUE(IsErrorStartingWith(c->Cmd({"NOSUCH"}), "ERR unknown command"));
  // Nothing was stored.
  ASSERT_EQ(c->Cmd({"AUTH", kRootPw}), StatusReply("OK"));
  EXPECT_EQ(c->Cmd({"DBSIZE"}), Int(0));
  EXPECT_EQ(c->Cmd({"ADD", "http://a.com/"}), Int(1));
}

TEST_F(AuthTest, WrongPasswordsAreRefusedAndChangeNothing) {
  std::unique_ptr<Client> c = Connect();
  const Reply wrong =
      Error("WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(c->Cmd({"AUTH", "not-it"}), wrong);
  EXPECT_EQ(c->Cmd({"AUTH", "crawler", kRootPw}), wrong);
  EXPECT_EQ(c->Cmd({"AUTH", "nobody", kWorkerPw}), wrong);
  EXPECT_EQ(c->Cmd({"AUTH", "retired", "oldpw"}), wrong);  // off
  EXPECT_EQ(c->Cmd({"AUTH", "a", "b", "c"}), Error("ERR syntax error"));
  EXPECT_EQ(c->Cmd({"ADD", "http://a.com/"}),
            Error("NOAUTH Authentication required."));
  // A logged-in client stays logged in after a wrong AUTH.
  ASSERT_EQ(c->Cmd({"AUTH", "crawler", kWorkerPw}), StatusReply("OK"));
  EXPECT_EQ(c->Cmd({"AUTH", "ops", "bad"}), wrong);
  EXPECT_EQ(c->Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_NE(c->Cmd({"CLIENT", "INFO"}).str.find(" user=crawler "),
            std::string::npos);
}

TEST_F(AuthTest, WorkerRunsTheFrontierButNotTheServer) {
  std::unique_ptr<Client> w = LoggedIn("crawler", kWorkerPw);
  EXPECT_EQ(w->Cmd({"MADD", "", "http://a.com/1", "http://b.com/1"}),
            Array({Int(1), Int(1)}));
  Reply popped = w->Cmd({"POP"});
  ASSERT_TRUE(popped.IsString()) << popped;
  EXPECT_EQ(w->Cmd({"CONFIRM", popped.str}), Int(1));
  EXPECT_EQ(w->Cmd({"SEEN", "http://a.com/1"}), Int(1));
  EXPECT_TRUE(w->Cmd({"STATS"}).IsArray());
  EXPECT_TRUE(w->Cmd({"INFO", "server"}).IsString());
  EXPECT_EQ(w->Cmd({"CLIENT", "SETNAME", "w1"}), StatusReply("OK"));

  auto noperm = [](const std::string& cmd) {
    return Error("NOPERM User crawler has no permissions to run the '" + cmd +
                 "' command");
  };
  EXPECT_EQ(w->Cmd({"SHUTDOWN"}), noperm("shutdown"));
  EXPECT_EQ(w->Cmd({"DELAY", "a.com", "5"}), noperm("delay"));
  EXPECT_EQ(w->Cmd({"CONFIG", "GET", "*"}), noperm("config|get"));
  EXPECT_EQ(w->Cmd({"CONFIG", "SET", "maxclients", "1"}), noperm("config|set"));
  EXPECT_EQ(w->Cmd({"CLIENT", "LIST"}), noperm("client|list"));
  EXPECT_EQ(w->Cmd({"CLIENT", "KILL", "ID", "1"}), noperm("client|kill"));
  EXPECT_EQ(w->Cmd({"SLOWLOG", "GET"}), noperm("slowlog|get"));
  // The server is still up, and DELAY did nothing.
  std::unique_ptr<Client> admin = LoggedIn("ops", kAdminPw);
  EXPECT_EQ(admin->Cmd({"PING"}), StatusReply("PONG"));
  EXPECT_EQ(admin->Cmd({"CONFIG", "GET", "maxclients"}),
            BulkArray({"maxclients", "10000"}));
}

TEST_F(AuthTest, AdminUsersAndTheDefaultUserRunEverything) {
  std::unique_ptr<Client> admin = LoggedIn("ops", kAdminPw);
  EXPECT_EQ(admin->Cmd({"DELAY", "a.com", "5"}), StatusReply("OK"));
  EXPECT_TRUE(admin->Cmd({"CLIENT", "LIST"}).IsString());
  EXPECT_TRUE(admin->Cmd({"SLOWLOG", "LEN"}).IsInteger());
  std::unique_ptr<Client> root = LoggedIn("default", kRootPw);
  EXPECT_EQ(root->Cmd({"CONFIG", "SET", "max-depth", "3"}), StatusReply("OK"));
  // SHUTDOWN by an admin stops the server cleanly.
  root->Cmd({"SHUTDOWN"});
  EXPECT_EQ(server_->WaitForExit(seconds(10)), 0);
}

TEST_F(AuthTest, HelloAuthAuthenticatesAndSelectsTheProtocol) {
  std::unique_ptr<Client> c = Connect();
  EXPECT_TRUE(IsErrorStartingWith(c->Cmd({"HELLO", "2"}),
                                  "NOAUTH HELLO must be called with the "
                                  "client already authenticated"));
  EXPECT_EQ(c->Cmd({"HELLO", "2", "AUTH", "crawler", "bad"}),
            Error("WRONGPASS invalid username-password pair or user is "
                  "disabled."));
  EXPECT_EQ(c->Cmd({"ADD", "http://a.com/"}),
            Error("NOAUTH Authentication required."));
  Reply hello =
      c->Cmd({"HELLO", "2", "AUTH", "crawler", kWorkerPw, "SETNAME", "w7"});
  ASSERT_TRUE(hello.IsArray()) << hello;
  EXPECT_EQ(FieldMap(hello)["server"], "frontierd");
  EXPECT_EQ(c->Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(c->Cmd({"CLIENT", "GETNAME"}), Bulk("w7"));
  EXPECT_EQ(c->Cmd({"SHUTDOWN"}),
            Error("NOPERM User crawler has no permissions to run the "
                  "'shutdown' command"));
}

TEST_F(AuthTest, RedisCliLogsInWithUserAndPass) {
  ProcessResult r = RunRedisCli(
      server_->port(), {"--user", "crawler", "--pass", kWorkerPw,
                        "--no-auth-warning", "ADD", "http://cli.example/"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  r = RunRedisCli(server_->port(), {"-a", kRootPw, "--no-auth-warning",
                                    "CONFIG", "GET", "protected-mode"});
  EXPECT_EQ(r.out, "protected-mode\nyes\n");
}

TEST_F(AuthTest, RequirepassChangesAtRuntimeForNewConnections) {
  std::unique_ptr<Client> root = LoggedIn("default", kRootPw);
  ASSERT_EQ(root->Cmd({"CONFIG", "SET", "requirepass", "next-Pw"}),
            StatusReply("OK"));
  // Connections already logged in stay so (as in Redis).
  EXPECT_EQ(root->Cmd({"DBSIZE"}), Int(0));
  std::unique_ptr<Client> c = Connect();
  EXPECT_TRUE(c->Cmd({"AUTH", kRootPw}).IsError());
  EXPECT_EQ(c->Cmd({"AUTH", "next-Pw"}), StatusReply("OK"));
}

TEST_F(AuthTest, PasswordsNeverReachTheLog) {
  // loglevel debug: everything that is logged at all is in the file.
  std::unique_ptr<Client> c = Connect();
  c->Cmd({"AUTH", "crawler", "typo-Pw-0x1234"});
  c->Cmd({"AUTH", "misplaced-Pw-0x5678", "crawler"});
  c->Cmd({"AUTH", kRootPw});
  c->Cmd({"CONFIG", "SET", "requirepass", "rotated-Pw-0x9999"});
  c->Cmd({"CONFIG", "SET", "requirepass"});  // wrong arity
  c->Cmd({"HELLO", "2", "AUTH", "ops", kAdminPw});
  c->Cmd({"SHUTDOWN"});
  ASSERT_EQ(server_->WaitForExit(seconds(10)), 0);
  std::string log = server_->Logs();
  ASSERT_NE(log.find("CONFIG SET"), std::string::npos) << log;
  ASSERT_NE(log.find("Failed AUTH"), std::string::npos) << log;
  for (const char* secret :
       {kRootPw, kWorkerPw, kAdminPw, "oldpw", "typo-Pw-0x1234",
        "misplaced-Pw-0x5678", "rotated-Pw-0x9999"}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret << "\n" << log;
  }
}

// Only requirepass: clearing it at run time opens the server, as in Redis.
class AuthPasswordOnlyTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--requirepass", "pw"});
    return args;
  }
};

TEST_F(AuthPasswordOnlyTest, ClearingThePasswordOpensTheServer) {
  std::unique_ptr<Client> waiting = Connect();
  EXPECT_EQ(waiting->Cmd({"DBSIZE"}), Error("NOAUTH Authentication required."));
  std::unique_ptr<Client> admin = Connect();
  ASSERT_EQ(admin->Cmd({"AUTH", "pw"}), StatusReply("OK"));
  ASSERT_EQ(admin->Cmd({"CONFIG", "SET", "requirepass", ""}),
            StatusReply("OK"));
  // The client that never logged in is now the default user, an admin.
  EXPECT_EQ(waiting->Cmd({"DBSIZE"}), Int(0));
  EXPECT_NE(waiting->Cmd({"CLIENT", "INFO"}).str.find(" user=default "),
            std::string::npos);
  EXPECT_EQ(Connect()->Cmd({"CONFIG", "GET", "requirepass"}),
            BulkArray({"requirepass", ""}));
}

// Without requirepass but with users, the default user is disabled.
class AuthUsersOnlyTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    std::vector<std::string> args = DefaultTestArgs();
    args.insert(args.end(), {"--user", "w", "on", ">pw", "+@worker"});
    return args;
  }
};

TEST_F(AuthUsersOnlyTest, TheDefaultUserCannotLogIn) {
  EXPECT_EQ(Cmd({"ADD", "http://a.com/"}),
            Error("NOAUTH Authentication required."));
  EXPECT_EQ(Cmd({"AUTH", ""}),
            Error("WRONGPASS invalid username-password pair or user is "
                  "disabled."));
  EXPECT_EQ(Cmd({"AUTH", "default", "x"}),
            Error("WRONGPASS invalid username-password pair or user is "
                  "disabled."));
  EXPECT_EQ(Cmd({"AUTH", "w", "pw"}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
}

// The default configuration: no password, protected mode on.
using OpenServerTest = FrontierdTest;

TEST_F(OpenServerTest, LoopbackClientsAreServedWithoutAuth) {
  EXPECT_EQ(Cmd({"CONFIG", "GET", "protected-mode"}),
            BulkArray({"protected-mode", "yes"}));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_NE(Cmd({"CLIENT", "INFO"}).str.find(" user=default "),
            std::string::npos);
}

TEST_F(OpenServerTest, AuthWithoutAPasswordConfiguredSaysSo) {
  EXPECT_EQ(Cmd({"AUTH", "x"}),
            Error("ERR AUTH <password> called without any password "
                  "configured for the default user. Are you sure your "
                  "configuration is correct?"));
  // As Redis's nopass default user: AUTH default <anything> is accepted.
  EXPECT_EQ(Cmd({"AUTH", "default", "x"}), StatusReply("OK"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"AUTH", "someone", "x"}), "WRONGPASS"));
}

}  // namespace
}  // namespace itest
}  // namespace frontier
