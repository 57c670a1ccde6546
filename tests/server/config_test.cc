// Unit tests of server/config: defaults, the file format, the command line
// and the error messages a user sees.
#include "server/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace frontier {
namespace {

StatusOr<Config> Load(std::vector<std::string> args) {
  return LoadConfig(args);
}

TEST(ConfigTest, DefaultsAreTheDocumentedOnes) {
  Config c = DefaultConfig();
  EXPECT_EQ(c.port, 7379);
  EXPECT_EQ(c.bind, std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ(c.dir, "./data");
  EXPECT_EQ(c.lease_timeout_ms, 300'000);
  EXPECT_EQ(c.max_depth, 16);
  EXPECT_EQ(c.depth_scope, SiteScope::kDomain);
  EXPECT_EQ(c.site_max_urls, 0u);
  EXPECT_EQ(c.politeness_delay_ms, 1000);
  EXPECT_EQ(c.site_max_leases, 1u);
  EXPECT_EQ(c.politeness_scope, SiteScope::kHost);
  EXPECT_EQ(c.default_priority, 5000);
  EXPECT_EQ(c.order, QueueOrder::kBfs);
  EXPECT_EQ(c.max_attempts, 5);
  EXPECT_EQ(c.timer_ms, 100);
  EXPECT_EQ(c.checkpoint_interval_ms, 60'000);
  EXPECT_EQ(c.fsync, FsyncPolicy::kAlways);
  EXPECT_EQ(c.cache_bytes, 256ull << 20);
  EXPECT_EQ(c.max_url_length, 8192u);
  EXPECT_EQ(c.maxclients, 10000u);
  EXPECT_EQ(c.loglevel, LogLevel::kNotice);
  EXPECT_EQ(c.logfile, "");
}

TEST(ConfigTest, EveryDefaultParsesAndPrintsBackTheSame) {
  Config c = DefaultConfig();
  for (const Directive& d : Directives()) {
    Config copy = c;
    EXPECT_TRUE(d.set(&copy, d.default_value)) << d.name;
    EXPECT_TRUE(d.set(&copy, d.get(c))) << d.name << " printed as " << d.get(c);
    EXPECT_EQ(d.get(copy), d.get(c)) << d.name;
  }
}

TEST(ConfigTest, DefaultsMatchTheStorageDefaults) {
  FrontierOptions from_config = ToFrontierOptions(DefaultConfig());
  FrontierOptions storage;
  EXPECT_EQ(from_config.cache_bytes, storage.cache_bytes);
  EXPECT_EQ(from_config.lease_timeout_ms, storage.lease_timeout_ms);
  EXPECT_EQ(from_config.max_depth, storage.max_depth);
  EXPECT_EQ(from_config.politeness_delay_ms, storage.politeness_delay_ms);
  EXPECT_EQ(from_config.site_max_leases, storage.site_max_leases);
  EXPECT_EQ(from_config.default_priority, storage.default_priority);
  EXPECT_EQ(from_config.max_attempts, storage.max_attempts);
  EXPECT_EQ(from_config.max_url_length, storage.max_url_length);
  EXPECT_EQ(from_config.politeness_delay_factor,
            storage.politeness_delay_factor);
  EXPECT_EQ(from_config.politeness_max_delay_ms,
            storage.politeness_max_delay_ms);
  EXPECT_EQ(from_config.recrawl_adaptive, storage.recrawl_adaptive);
  EXPECT_EQ(from_config.recrawl_inc_rate, storage.recrawl_inc_rate);
  EXPECT_EQ(from_config.recrawl_dec_rate, storage.recrawl_dec_rate);
  EXPECT_EQ(from_config.recrawl_min_ms, storage.recrawl_min_ms);
  EXPECT_EQ(from_config.recrawl_max_ms, storage.recrawl_max_ms);
  EXPECT_EQ(from_config.backoff_status_codes, storage.backoff_status_codes);
  EXPECT_EQ(from_config.backoff_initial_ms, storage.backoff_initial_ms);
  EXPECT_EQ(from_config.backoff_max_ms, storage.backoff_max_ms);
  EXPECT_FALSE(from_config.write_log_at_commit);
}

TEST(ConfigTest, FsyncNoWritesTheLogAtCommit) {
  Config c = DefaultConfig();
  ASSERT_TRUE(SetDirective(&c, "fsync", "no").ok());
  EXPECT_TRUE(ToFrontierOptions(c).write_log_at_commit);
  ASSERT_TRUE(SetDirective(&c, "fsync", "everysec").ok());
  EXPECT_FALSE(ToFrontierOptions(c).write_log_at_commit);
}

TEST(ConfigTest, DurationsAcceptDecimalsAndStoreMilliseconds) {
  Config c = DefaultConfig();
  ASSERT_TRUE(SetDirective(&c, "politeness-delay", "0.5").ok());
  EXPECT_EQ(c.politeness_delay_ms, 500);
  ASSERT_TRUE(SetDirective(&c, "lease-timeout", "2.25").ok());
  EXPECT_EQ(c.lease_timeout_ms, 2250);
  ASSERT_TRUE(SetDirective(&c, "politeness-delay", "0").ok());
  EXPECT_EQ(c.politeness_delay_ms, 0);
  EXPECT_FALSE(SetDirective(&c, "lease-timeout", "0").ok());
  EXPECT_FALSE(SetDirective(&c, "politeness-delay", "-1").ok());
  EXPECT_FALSE(SetDirective(&c, "politeness-delay", "1s").ok());
}

TEST(ConfigTest, MemorySizesUseRedisUnits) {
  Config c = DefaultConfig();
  struct Case {
    const char* text;
    uint64_t bytes;
  } cases[] = {{"1mb", 1ull << 20},  {"1MB", 1ull << 20},
               {"2gb", 2ull << 30},  {"3g", 3'000'000'000ull},
               {"5m", 5'000'000ull}, {"2000kb", 2000ull << 10},
               {"4194304", 4194304}};
  for (const Case& k : cases) {
    ASSERT_TRUE(SetDirective(&c, "cache-size", k.text).ok()) << k.text;
    EXPECT_EQ(c.cache_bytes, k.bytes) << k.text;
  }
  EXPECT_FALSE(SetDirective(&c, "cache-size", "10k").ok());  // below 1mb
  EXPECT_FALSE(SetDirective(&c, "cache-size", "lots").ok());
  EXPECT_FALSE(SetDirective(&c, "cache-size", "-1mb").ok());
}

TEST(ConfigTest, ChoicesAreCaseInsensitive) {
  Config c = DefaultConfig();
  ASSERT_TRUE(SetDirective(&c, "order", "PRIORITY").ok());
  EXPECT_EQ(c.order, QueueOrder::kPriority);
  ASSERT_TRUE(SetDirective(&c, "depth-scope", "host").ok());
  EXPECT_EQ(c.depth_scope, SiteScope::kHost);
  ASSERT_TRUE(SetDirective(&c, "LogLevel", "warning").ok());
  EXPECT_EQ(c.loglevel, LogLevel::kWarning);
  EXPECT_FALSE(SetDirective(&c, "order", "dfs").ok());
}

TEST(ConfigTest, RangesAreEnforced) {
  Config c = DefaultConfig();
  EXPECT_FALSE(SetDirective(&c, "port", "65536").ok());
  EXPECT_FALSE(SetDirective(&c, "default-priority", "10000").ok());
  EXPECT_FALSE(SetDirective(&c, "max-attempts", "0").ok());
  EXPECT_FALSE(SetDirective(&c, "timer-ms", "0").ok());
  EXPECT_FALSE(SetDirective(&c, "maxclients", "0").ok());
  EXPECT_TRUE(SetDirective(&c, "max-depth", "0").ok());
  EXPECT_TRUE(SetDirective(&c, "site-max-leases", "0").ok());
}

TEST(ConfigTest, BindTakesSeveralIpLiterals) {
  Config c = DefaultConfig();
  ASSERT_TRUE(SetDirective(&c, "bind", "127.0.0.1 ::1").ok());
  EXPECT_EQ(c.bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_FALSE(SetDirective(&c, "bind", "localhost").ok());
  EXPECT_FALSE(SetDirective(&c, "bind", "").ok());
}

TEST(ConfigTest, ErrorsNameTheDirectiveAndTheValue) {
  Config c = DefaultConfig();
  Status s = SetDirective(&c, "port", "abc");
  EXPECT_EQ(s.message(),
            "bad value for 'port': 'abc' (expected an integer 0..65535)");
  s = SetDirective(&c, "foo", "1");
  EXPECT_EQ(s.message(), "unknown directive 'foo'");
  EXPECT_EQ(c.port, 7379);  // a bad value changes nothing
}

TEST(ConfigTest, FileLinesCommentsAndQuotes) {
  Config c = DefaultConfig();
  Status s = ApplyConfigText(&c,
                             "# a comment\n"
                             "\n"
                             "   port 7400\r\n"
                             "dir \"/tmp/with space\"\n"
                             "logfile ''\n"
                             "bind 127.0.0.1 ::1\n"
                             "  # indented comment\n",
                             "test.conf");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(c.port, 7400);
  EXPECT_EQ(c.dir, "/tmp/with space");
  EXPECT_EQ(c.logfile, "");
  EXPECT_EQ(c.bind.size(), 2u);
}

TEST(ConfigTest, FileErrorsCarryFileAndLine) {
  Config c = DefaultConfig();
  Status s = ApplyConfigText(&c, "port 1\n\nfoo bar\n", "x.conf");
  EXPECT_EQ(s.message(), "x.conf:3: unknown directive 'foo'");
  s = ApplyConfigText(&c, "dir \"unterminated\n", "x.conf");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("x.conf:1: ", 0), 0u) << s.message();
}

TEST(ConfigTest, SplitConfigLineHandlesQuotingRules) {
  std::vector<std::string> w;
  ASSERT_TRUE(SplitConfigLine(R"(a "b c" 'd e' "x\"y" "\x41\n")", &w));
  EXPECT_EQ(w, (std::vector<std::string>{"a", "b c", "d e", "x\"y", "A\n"}));
  EXPECT_FALSE(SplitConfigLine(R"(a "b)", &w));
  EXPECT_FALSE(SplitConfigLine(R"(a "b"c)", &w));
  EXPECT_FALSE(SplitConfigLine("a 'b", &w));
}

TEST(ConfigTest, CommandLineOverridesTheFile) {
  auto path = std::filesystem::temp_directory_path() /
              ("frontierd_config_test_" + std::to_string(::getpid()) + ".conf");
  {
    std::ofstream out(path);
    out << "port 7400\nmax-depth 3\n";
  }
  auto c =
      Load({path.string(), "--port", "7500", "--bind", "127.0.0.1", "::1"});
  std::filesystem::remove(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->port, 7500);
  EXPECT_EQ(c->max_depth, 3);
  EXPECT_EQ(c->bind.size(), 2u);
  EXPECT_FALSE(c->config_file.empty());
}

TEST(ConfigTest, CommandLineErrors) {
  EXPECT_EQ(Load({"--port", "x"}).status().message(),
            "bad value for 'port': 'x' (expected an integer 0..65535)");
  EXPECT_EQ(Load({"--nope", "1"}).status().message(),
            "unknown directive 'nope'");
  EXPECT_FALSE(Load({"/no/such/file.conf"}).ok());
  EXPECT_FALSE(Load({"--port", "1", "stray"}).ok());  // value "1 stray"
  EXPECT_FALSE(Load({"--", "1"}).ok());
  EXPECT_TRUE(Load({}).ok());
}

TEST(ConfigTest, DirectiveLookupIsCaseInsensitive) {
  ASSERT_NE(FindDirective("Lease-Timeout"), nullptr);
  EXPECT_EQ(FindDirective("Lease-Timeout")->name, "lease-timeout");
  EXPECT_EQ(FindDirective("nope"), nullptr);
}

TEST(ConfigTest, TlsAndLimitDefaultsAreRedis) {
  Config c = DefaultConfig();
  EXPECT_EQ(c.tls_port, 0);
  EXPECT_EQ(c.tls_cert_file, "");
  EXPECT_EQ(c.tls_key_file, "");
  EXPECT_EQ(c.tls_ca_cert_file, "");
  EXPECT_EQ(c.tls_auth_clients, TlsAuthClients::kYes);
  EXPECT_EQ(c.tls_protocols, kTlsV12 | kTlsV13);
  EXPECT_EQ(c.proto_max_bulk_len, 512ull << 20);
  EXPECT_EQ(c.proto_max_multibulk_len, 1024u * 1024u);
  EXPECT_EQ(c.client_query_buffer_limit, 1ull << 30);
  EXPECT_EQ(c.client_output_buffer_limit.hard_bytes, 0u);
  EXPECT_EQ(c.client_output_buffer_limit.soft_bytes, 0u);
  EXPECT_EQ(c.client_output_buffer_limit.soft_seconds, 0);
  EXPECT_EQ(c.client_output_buffer_limit_pubsub.hard_bytes, 32ull << 20);
  EXPECT_EQ(c.client_output_buffer_limit_pubsub.soft_bytes, 8ull << 20);
  EXPECT_EQ(c.client_output_buffer_limit_pubsub.soft_seconds, 60);
  EXPECT_EQ(c.timeout_s, 0);
  EXPECT_EQ(c.tcp_keepalive_s, 300);
}

TEST(ConfigTest, ClientOutputBufferLimitTakesRedisSyntax) {
  Config c = DefaultConfig();
  ASSERT_TRUE(
      SetDirective(&c, "client-output-buffer-limit", "normal 256mb 64mb 60")
          .ok());
  EXPECT_EQ(c.client_output_buffer_limit.hard_bytes, 256ull << 20);
  EXPECT_EQ(c.client_output_buffer_limit.soft_bytes, 64ull << 20);
  EXPECT_EQ(c.client_output_buffer_limit.soft_seconds, 60);
  EXPECT_EQ(FindDirective("client-output-buffer-limit")->get(c),
            "normal 256mb 64mb 60 pubsub 32mb 8mb 60");
  ASSERT_TRUE(
      SetDirective(&c, "client-output-buffer-limit", "NORMAL 1000 0 0").ok());
  EXPECT_EQ(c.client_output_buffer_limit.hard_bytes, 1000u);
  // Each group of four words sets its own class (normal or pubsub) and
  // leaves the other alone, as in Redis.
  ASSERT_TRUE(
      SetDirective(&c, "client-output-buffer-limit", "pubsub 1mb 512kb 5")
          .ok());
  EXPECT_EQ(c.client_output_buffer_limit.hard_bytes, 1000u);
  EXPECT_EQ(c.client_output_buffer_limit_pubsub.hard_bytes, 1ull << 20);
  EXPECT_EQ(c.client_output_buffer_limit_pubsub.soft_bytes, 512ull << 10);
  EXPECT_EQ(c.client_output_buffer_limit_pubsub.soft_seconds, 5);
  // Normal and pubsub only; groups of four words; non-negative numbers;
  // one bad group refuses the whole value.
  for (const char* bad :
       {"replica 256mb 64mb 60", "normal 1mb 1mb", "normal 1mb 1mb 1 2",
        "normal -1 0 0", "normal 1mb 1mb -5", "normal x 0 0",
        "normal 7 0 0 slave 1 1 1", ""}) {
    Status s = SetDirective(&c, "client-output-buffer-limit", bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(
        s.message().find("expected normal|pubsub <hard> <soft> <soft-seconds>"),
        std::string::npos)
        << s.message();
  }
  EXPECT_EQ(c.client_output_buffer_limit_pubsub.hard_bytes, 1ull << 20);
  EXPECT_EQ(c.client_output_buffer_limit.hard_bytes, 1000u);  // unchanged
}

TEST(ConfigTest, TlsDirectives) {
  Config c = DefaultConfig();
  ASSERT_TRUE(SetDirective(&c, "tls-protocols", "TLSv1.3").ok());
  EXPECT_EQ(c.tls_protocols, kTlsV13);
  ASSERT_TRUE(SetDirective(&c, "tls-protocols", "tlsv1.2 TLSv1.3").ok());
  EXPECT_EQ(c.tls_protocols, kTlsV12 | kTlsV13);
  ASSERT_TRUE(SetDirective(&c, "tls-protocols", "").ok());  // Redis: both
  EXPECT_EQ(FindDirective("tls-protocols")->get(c), "TLSv1.2 TLSv1.3");
  EXPECT_FALSE(SetDirective(&c, "tls-protocols", "TLSv1.1").ok());
  EXPECT_FALSE(SetDirective(&c, "tls-protocols", "SSLv3 TLSv1.3").ok());
  ASSERT_TRUE(SetDirective(&c, "tls-auth-clients", "optional").ok());
  EXPECT_EQ(c.tls_auth_clients, TlsAuthClients::kOptional);
  EXPECT_FALSE(SetDirective(&c, "tls-auth-clients", "maybe").ok());
  EXPECT_FALSE(SetDirective(&c, "tls-port", "65536").ok());
}

TEST(ConfigTest, LimitRanges) {
  Config c = DefaultConfig();
  EXPECT_FALSE(SetDirective(&c, "proto-max-bulk-len", "1000").ok());
  ASSERT_TRUE(SetDirective(&c, "proto-max-bulk-len", "1mb").ok());
  EXPECT_FALSE(SetDirective(&c, "client-query-buffer-limit", "512kb").ok());
  EXPECT_FALSE(SetDirective(&c, "proto-max-multibulk-len", "0").ok());
  EXPECT_FALSE(SetDirective(&c, "timeout", "-1").ok());
  EXPECT_FALSE(SetDirective(&c, "timeout", "1.5").ok());
  EXPECT_FALSE(SetDirective(&c, "tcp-keepalive", "32768").ok());
  ASSERT_TRUE(SetDirective(&c, "tcp-keepalive", "0").ok());
  EXPECT_EQ(c.tcp_keepalive_s, 0);
}

}  // namespace
}  // namespace frontier
