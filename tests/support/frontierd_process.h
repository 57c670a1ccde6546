// FrontierdProcess: runs the real `frontierd` binary for end-to-end tests.
//
// Each process lives in a fresh temporary directory (data in <tmp>/data, the
// server log in <tmp>/frontierd.log) and listens on 127.0.0.1 on a free port.
// Tests talk to it with hiredis (Client, Reply), with a raw socket
// (RawConnection, for protocol errors) and with the real redis-cli
// (RunRedisCli). FrontierdTest is the gtest fixture built on it: it starts a
// server before each test and prints the server log when a test fails.
//
// Every wait here is bounded in time; nothing blocks a test forever.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

struct redisContext;

namespace frontier::itest {

// A reply, copied out of hiredis so that tests own it and compare it with ==.
struct Reply {
  enum class Type {
    kString,  // bulk string
    kArray,
    kInteger,
    kNil,  // null bulk string or null array (hiredis does not tell them apart)
    kStatus,   // +OK
    kError,    // -ERR ...
    kIoError,  // no reply: the connection failed, closed or timed out
  };
  Type type = Type::kNil;
  long long integer = 0;
  std::string str;  // bulk, status, error text (without "-"), or I/O error
  std::vector<Reply> elements;

  bool IsNil() const { return type == Type::kNil; }
  bool IsError() const { return type == Type::kError; }
  bool IsIoError() const { return type == Type::kIoError; }
  bool IsArray() const { return type == Type::kArray; }
  bool IsString() const { return type == Type::kString; }
  bool IsInteger() const { return type == Type::kInteger; }
  bool IsStatus() const { return type == Type::kStatus; }

  // A readable form, e.g. `["http://a/" (integer) 1 (nil)]`, for messages.
  std::string DebugString() const;

  friend bool operator==(const Reply& a, const Reply& b);
};

// Lets gtest print a Reply in failure messages.
void PrintTo(const Reply& reply, std::ostream* os);
std::ostream& operator<<(std::ostream& os, const Reply& reply);

// Expected values to compare against: EXPECT_EQ(c.Cmd({"ADD", u}), Int(1)).
Reply Int(long long n);
Reply Bulk(const std::string& s);
Reply StatusReply(const std::string& s);  // +s, e.g. StatusReply("OK")
Reply Nil();
Reply Error(const std::string& message);  // exact text, e.g. "ERR syntax error"
Reply Array(std::vector<Reply> elements);
Reply BulkArray(const std::vector<std::string>& strings);

// Success if `reply` is an error reply whose text starts with `prefix`.
::testing::AssertionResult IsErrorStartingWith(const Reply& reply,
                                               const std::string& prefix);

// URLINFO's and STATS's flat field/value arrays as a map (values as text;
// integers are printed in decimal). Empty if `reply` is not such an array.
std::map<std::string, std::string> FieldMap(const Reply& reply);
// INFO's "key:value" lines as a map (section headers and blanks skipped).
std::map<std::string, std::string> InfoMap(const std::string& info);

// STATS as counter name -> value. Reading a counter that STATS did not
// report fails the test (ADD_FAILURE naming it) instead of reading as 0, so
// that a renamed or removed counter cannot pass an EXPECT_EQ(..., 0).
class Counters {
 public:
  // What operator[] returns for a missing counter, besides the failure.
  static constexpr long long kMissing = -1234567890123LL;

  Counters() = default;
  explicit Counters(std::map<std::string, long long> values)
      : values_(std::move(values)) {}

  // The value of counter `name`; a test failure and kMissing if there is
  // no such counter.
  long long operator[](const std::string& name) const;
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // Adds or replaces a value (e.g. a snapshot that adds DBSIZE).
  void Set(const std::string& name, long long value) { values_[name] = value; }
  size_t size() const { return values_.size(); }
  const std::map<std::string, long long>& values() const { return values_; }

  friend bool operator==(const Counters& a, const Counters& b) {
    return a.values_ == b.values_;
  }

 private:
  std::map<std::string, long long> values_;
};

// Lets gtest print Counters in failure messages.
std::ostream& operator<<(std::ostream& os, const Counters& counters);

// One hiredis connection. Not thread-safe; use one per thread.
class Client {
 public:
  // Connects to 127.0.0.1:port. `timeout` bounds connect and every reply.
  // On failure the client is not connected (ok() is false) and every
  // command returns an kIoError reply.
  Client(int port, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool ok() const { return ctx_ != nullptr && !broken_; }
  std::string error() const { return error_; }

  // Sends one command and waits for its reply.
  Reply Cmd(const std::vector<std::string>& args);
  // Pipelining: Append() queues commands in the output buffer; GetReply()
  // flushes and reads one reply, in order.
  void Append(const std::vector<std::string>& args);
  Reply GetReply();
  // Changes the reply timeout (e.g. for a long BPOP).
  void SetTimeout(std::chrono::milliseconds timeout);

 private:
  redisContext* ctx_ = nullptr;
  bool broken_ = false;
  std::string error_;
};

// A plain TCP socket to the server, for bytes hiredis would never send.
class RawConnection {
 public:
  explicit RawConnection(int port);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  // Writes all of `bytes`; false on error (e.g. the server closed).
  bool Send(const std::string& bytes);
  // Reads until `expected_bytes` have arrived, the peer closes, or
  // `timeout` passes; returns what arrived. *closed is set if the peer
  // closed the connection (EOF or reset).
  std::string Read(size_t expected_bytes, std::chrono::milliseconds timeout,
                   bool* closed = nullptr);
  // Reads until the peer closes or `timeout` passes. *closed as above.
  std::string ReadUntilClosed(std::chrono::milliseconds timeout, bool* closed);

 private:
  int fd_ = -1;
};

// What a child process did.
struct ProcessResult {
  bool timed_out = false;  // killed because it outlived the timeout
  int exit_code = -1;      // exit status, or 128 + signal if killed by one
  std::string out;         // everything it wrote to stdout
  std::string err;         // everything it wrote to stderr
};

// Runs argv[0] (a path) with `input` on stdin, capturing stdout and stderr,
// killing it after `timeout`.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::string& input,
                         std::chrono::milliseconds timeout);

// Runs `redis-cli -h 127.0.0.1 -p <port> args...` (stdout is a pipe, so
// redis-cli prints raw replies unless --no-raw is given).
ProcessResult RunRedisCli(
    int port, const std::vector<std::string>& args,
    const std::string& input = "",
    std::chrono::milliseconds timeout = std::chrono::seconds(10));

// A program run on a pseudo-terminal, as a person at a terminal runs it
// (redis-cli behaves differently when stdin is a tty: it is interactive and
// fetches COMMAND DOCS at start). The terminal is 80x24.
class PtySession {
 public:
  explicit PtySession(const std::vector<std::string>& argv);
  // Kills the program if it still runs.
  ~PtySession();
  PtySession(const PtySession&) = delete;
  PtySession& operator=(const PtySession&) = delete;

  bool ok() const { return pid_ > 0; }
  // Types `keys` (use "\r" for Enter).
  bool Send(const std::string& keys);
  // Reads until everything printed since the session began contains
  // `needle` `count` times, or `timeout` passes. Returns whether it did.
  bool WaitFor(const std::string& needle, std::chrono::milliseconds timeout,
               size_t count = 1);
  // Everything the program printed so far.
  const std::string& output() const { return output_; }
  // Waits (bounded) for the program to exit; returns its exit status, or
  // -1 if it is still running (then it is killed).
  int Wait(std::chrono::milliseconds timeout);

 private:
  void Drain(std::chrono::milliseconds timeout);

  int master_ = -1;
  pid_t pid_ = -1;
  std::string output_;
};

// A fresh temporary directory, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A port on 127.0.0.1 that was free a moment ago (bound to port 0 and
// released). Another process may take it before we do; callers retry.
// The RESP multibulk encoding of `args`, for tests that write raw bytes.
std::string Resp(const std::vector<std::string>& args);

int PickFreePort();

// Reads a whole file; empty if it cannot be read.
std::string ReadFile(const std::string& path);

// The path of the frontierd binary under test.
const char* FrontierdBinary();

// The first AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer
// (or ThreadSanitizer) report in `logs`, from the start of its line; empty
// if there is none. FrontierdTest fails a test whose server reported one.
std::string SanitizerReport(const std::string& logs);

// One running frontierd.
class FrontierdProcess {
 public:
  // `args` are extra "--directive value" pairs; the process adds --port,
  // --bind 127.0.0.1, --dir <tmp>/data, --logfile <tmp>/frontierd.log and
  // --http-port 0 (which `args` may override).
  explicit FrontierdProcess(std::vector<std::string> args = {});
  // Kills the process if it still runs and removes the directory.
  ~FrontierdProcess();
  FrontierdProcess(const FrontierdProcess&) = delete;
  FrontierdProcess& operator=(const FrontierdProcess&) = delete;

  // Starts on a free port and waits (10 s at most) until PING answers.
  // Retries on another port a few times if the process dies while starting
  // (the port may have been taken meanwhile).
  ::testing::AssertionResult Start();
  // Starts again with the same directory and port (after Stop or Kill9).
  // `extra_args` replace the constructor's args when given.
  ::testing::AssertionResult Restart(
      std::optional<std::vector<std::string>> extra_args = std::nullopt);
  // SIGTERM, then waits (10 s at most) for the exit. Returns the exit
  // status (128 + signal if a signal ended it), or -1 if it had to be
  // killed with SIGKILL because it did not exit in time.
  int Stop();
  // SIGKILL and reap: an abrupt crash.
  void Kill9();
  // Sends `sig` (e.g. SIGINT) without waiting; false if not running.
  bool Signal(int sig);
  // Waits (bounded) for the process to exit by itself, e.g. after SHUTDOWN.
  // Returns the exit status as Stop() does, or -1 if it still runs.
  int WaitForExit(std::chrono::milliseconds timeout);
  bool running() const { return pid_ > 0; }
  // The process id while running (e.g. to SIGSTOP it and read
  // /proc/<pid>/stat); -1 otherwise.
  pid_t pid() const { return pid_; }
  // A config file to pass first on the command line (before the
  // directives above, which override it). Set before Start().
  void set_config_file(std::string path) { config_file_ = std::move(path); }
  // Another server binary than FrontierdBinary() (e.g. a test build's
  // variant), and "NAME=value" variables added to the process's
  // environment (e.g. LD_PRELOAD). Set before Start().
  void set_binary(std::string path) { binary_ = std::move(path); }
  void set_environment(std::vector<std::string> vars) {
    environment_ = std::move(vars);
  }
  // How Start() and Restart() tell that the server is ready: by default,
  // PING on port() answers +PONG. A server without a plain port (port 0
  // and a tls-port) needs its own probe, which returns "" once the server
  // answers, or what went wrong. Set before Start().
  void set_ready_probe(std::function<std::string()> probe) {
    ready_probe_ = std::move(probe);
  }

  int port() const { return port_; }
  const std::string& dir() const { return tmp_.path(); }
  std::string data_dir() const { return tmp_.path() + "/data"; }
  std::string log_path() const { return tmp_.path() + "/frontierd.log"; }
  // The server log plus what the process wrote to stdout/stderr.
  std::string Logs() const;

  // A command on the process's own shared connection (reconnected after a
  // restart or a broken connection).
  Reply Cmd(const std::vector<std::string>& args);
  // A new connection of its own (e.g. for a second client).
  std::unique_ptr<Client> Connect(
      std::chrono::milliseconds timeout = std::chrono::seconds(5)) const;

 private:
  ::testing::AssertionResult Launch(const std::vector<std::string>& args);
  ::testing::AssertionResult WaitUntilReady(std::chrono::milliseconds timeout);

  TempDir tmp_;
  std::string config_file_;
  std::string binary_;
  std::vector<std::string> environment_;
  std::function<std::string()> ready_probe_;
  std::vector<std::string> args_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::unique_ptr<Client> client_;
};

// Default directives for tests that are not about politeness: no delay, no
// lease cap, a fast timer.
std::vector<std::string> DefaultTestArgs();

// Starts a frontierd before each test (with ServerArgs()) and prints its log
// when the test fails. Override ServerArgs() for another configuration.
// After each test, a sanitizer report in the server's output fails the
// test; in a sanitizer build the server is first stopped with SIGTERM so
// that LeakSanitizer runs.
class FrontierdTest : public ::testing::Test {
 protected:
  virtual std::vector<std::string> ServerArgs() const {
    return DefaultTestArgs();
  }
  // False: SetUp does not start a server; the test creates server_ itself
  // (TearDown still prints its log on failure).
  virtual bool AutoStart() const { return true; }

  void SetUp() override;
  void TearDown() override;

  Reply Cmd(const std::vector<std::string>& args) { return server_->Cmd(args); }
  std::unique_ptr<Client> Connect(
      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return server_->Connect(timeout);
  }
  // URLINFO url as a map; empty when the URL is unknown.
  std::map<std::string, std::string> UrlInfo(const std::string& url);
  // STATS as counters; reading one STATS lacks fails the test. An empty
  // Counters (and a test failure) if STATS did not answer an array.
  Counters Stats();
  // Waits (bounded by `timeout`) until INFO's blocked_clients is `n`: the
  // way to know that BPOPs sent on other connections are waiting before
  // doing what should wake them. Fails (with the last count seen) if it
  // never is.
  ::testing::AssertionResult WaitForBlockedClients(
      long long n, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // POPs until it returns `url` or `timeout` passes; returns the time it
  // took. Fails the test (and returns nullopt) on a timeout or if another
  // URL comes out.
  std::optional<std::chrono::milliseconds> PopUntil(
      const std::string& url, std::chrono::milliseconds timeout);

  std::unique_ptr<FrontierdProcess> server_;
};

// A monotonic stopwatch for timing assertions.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  std::chrono::milliseconds Elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start_);
  }
  void Reset() { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace frontier::itest
