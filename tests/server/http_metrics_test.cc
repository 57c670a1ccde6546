// The HTTP port end to end: /metrics in the Prometheus format (checked with
// Debian's promtool) and equal to STATS and INFO, /api/stats as JSON, the
// dashboard's files, HTTP Basic authentication with requirepass, and HTTPS
// with http-tls.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "support/frontierd_process.h"
#include "support/http_client.h"

namespace frontier::itest {
namespace {

using std::chrono::seconds;

// "name{labels} value" lines of a Prometheus exposition, by "name{labels}".
std::map<std::string, double> ParseMetrics(const std::string& text) {
  std::map<std::string, double> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

bool HaveProgram(const std::string& name) {
  ProcessResult r =
      RunProcess({"/bin/sh", "-c", "command -v " + name}, "", seconds(10));
  return r.exit_code == 0;
}

class HttpTest : public HttpServerTest {
 protected:
  // Adds, pops and confirms a little, so that every counter has moved.
  void Crawl() {
    for (int i = 0; i < 20; ++i) {
      ASSERT_EQ(Cmd({"ADD", "http://s" + std::to_string(i % 4) + ".example/" +
                                std::to_string(i)}),
                Int(1));
    }
    ASSERT_EQ(Cmd({"ADD", "http://s0.example/0"}), Int(0));  // a duplicate
    Reply popped = Cmd({"POP", "COUNT", "3"});
    ASSERT_TRUE(popped.IsArray()) << popped;
    ASSERT_EQ(Cmd({"CONFIRM", popped.elements[0].str}), Int(1));
  }
};

TEST_F(HttpTest, MetricsPassPromtool) {
  Crawl();
  HttpResponse r = HttpGet(http_port_, "/metrics");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("content-type"),
            "text/plain; version=0.0.4; charset=utf-8");
  for (const char* family :
       {"# TYPE frontierd_command_duration_seconds histogram",
        "# TYPE frontierd_log_flush_duration_seconds histogram",
        "# TYPE frontierd_log_flush_commits histogram",
        "# TYPE frontierd_sites_by_state gauge",
        "# TYPE frontierd_db_cache_hit_ratio gauge",
        "# TYPE frontierd_db_cache_misses_per_command gauge",
        "# TYPE frontierd_db_cache_pages_read_total counter",
        "# TYPE frontierd_resident_memory_bytes gauge",
        "# TYPE frontierd_urls_popped_total counter"}) {
    EXPECT_NE(r.body.find(family), std::string::npos) << family;
  }
  if (!HaveProgram("promtool")) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus): "
                    "the format was not checked";
  }
  ProcessResult check =
      RunProcess({"promtool", "check", "metrics"}, r.body, seconds(30));
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out + check.err, "") << "promtool lint findings";
}

TEST_F(HttpTest, MetricsEqualStatsAndInfo) {
  Crawl();
  std::map<std::string, double> m =
      ParseMetrics(HttpGet(http_port_, "/metrics").body);
  Counters stats = Stats();
  std::map<std::string, std::string> info = InfoMap(Cmd({"INFO", "all"}).str);
  // Every STATS counter, under its metric name.
  std::map<std::string, std::string> names = {
      {"urls", "frontierd_urls"},
      {"queued", "frontierd_urls_by_state{state=\"queued\"}"},
      {"leased", "frontierd_urls_by_state{state=\"leased\"}"},
      {"done", "frontierd_urls_by_state{state=\"done\"}"},
      {"scheduled", "frontierd_urls_by_state{state=\"scheduled\"}"},
      {"dead", "frontierd_urls_by_state{state=\"dead\"}"},
      {"excluded", "frontierd_urls_by_state{state=\"excluded\"}"},
      {"sites", "frontierd_sites"},
      {"ready_sites", "frontierd_sites_by_state{state=\"ready\"}"},
      {"added", "frontierd_urls_added_total"},
      {"duplicates", "frontierd_urls_duplicate_total"},
      {"refused", "frontierd_urls_refused_total"},
      {"popped", "frontierd_urls_popped_total"},
      {"confirmed", "frontierd_urls_confirmed_total"},
      {"failed", "frontierd_urls_failed_total"},
      {"expired", "frontierd_leases_expired_total"},
      {"recrawled", "frontierd_urls_recrawled_total"},
      {"confirmed_2xx",
       "frontierd_urls_confirmed_by_status_total{class=\"2xx\"}"},
      {"confirmed_3xx",
       "frontierd_urls_confirmed_by_status_total{class=\"3xx\"}"},
      {"confirmed_4xx",
       "frontierd_urls_confirmed_by_status_total{class=\"4xx\"}"},
      {"confirmed_5xx",
       "frontierd_urls_confirmed_by_status_total{class=\"5xx\"}"},
      {"blocked_sites", "frontierd_sites_blocked"},
      {"backoffs", "frontierd_backoffs_total"},
  };
  for (const char* reason : {"host", "ref", "query", "path", "deny", "allow"}) {
    names[std::string("scope_refused_") + reason] =
        std::string("frontierd_urls_out_of_scope_total{reason=\"") + reason +
        "\"}";
  }
  names["scope_removed"] = "frontierd_urls_scope_removed_total";
  ASSERT_EQ(stats.size(), names.size()) << "a STATS field has no metric here";
  for (const auto& [field, metric] : names) {
    ASSERT_TRUE(stats.Has(field)) << field;
    ASSERT_TRUE(m.count(metric)) << metric;
    EXPECT_EQ(m[metric], stats[field]) << field;
  }
  EXPECT_EQ(stats["added"], 20);
  EXPECT_EQ(stats["popped"], 3);
  EXPECT_EQ(m["frontierd_data_bytes"], std::stod(info["data_bytes"]));
  EXPECT_EQ(m["frontierd_sites_by_state{state=\"waiting\"}"],
            std::stod(info["waiting_sites"]));
  EXPECT_EQ(m["frontierd_sites_by_state{state=\"busy\"}"],
            std::stod(info["busy_sites"]));
  // Without partitions, `default` holds everything: its gauges are the
  // frontier's.
  const std::map<std::string, std::string> in_default = {
      {"sites", "frontierd_partition_sites{partition=\"default\"}"},
      {"ready_sites", "frontierd_partition_ready_sites{partition=\"default\"}"},
      {"queued", "frontierd_partition_queued_urls{partition=\"default\"}"},
      {"leased", "frontierd_partition_leased_urls{partition=\"default\"}"},
      {"popped", "frontierd_partition_popped_total{partition=\"default\"}"},
      {"confirmed",
       "frontierd_partition_confirmed_total{partition=\"default\"}"},
  };
  for (const auto& [field, metric] : in_default) {
    ASSERT_TRUE(m.count(metric)) << metric;
    EXPECT_EQ(m[metric], stats[field]) << metric;
  }
  EXPECT_NEAR(m["frontierd_recovery_duration_seconds"] * 1000,
              std::stod(info["recovery_time_ms"]), 0.5);
  EXPECT_EQ(m["frontierd_writes_refused"], 0);
  EXPECT_GT(m["frontierd_resident_memory_bytes"], 1 << 20);
  // Per-command accounting: 21 ADDs, one POP, one CONFIRM, each timed.
  EXPECT_EQ(m["frontierd_command_calls_total{command=\"add\"}"], 21);
  EXPECT_EQ(m["frontierd_command_calls_total{command=\"pop\"}"], 1);
  EXPECT_EQ(m["frontierd_command_duration_seconds_count{command=\"add\"}"], 21);
  EXPECT_EQ(m["frontierd_command_duration_seconds_bucket{command=\"add\","
              "le=\"+Inf\"}"],
            21);
  EXPECT_GT(m["frontierd_command_duration_seconds_sum{command=\"add\"}"], 0);
  EXPECT_EQ(info["cmdstat_add"].rfind("calls=21,", 0), 0u)
      << info["cmdstat_add"];
  // fsync always: the writes were flushed, each flush timed and counted.
  const double flushes = m["frontierd_log_flushes_total"];
  EXPECT_GT(flushes, 0);
  EXPECT_EQ(m["frontierd_log_flush_duration_seconds_count"], flushes);
  EXPECT_GE(m["frontierd_log_flush_commits_sum"], 20);  // 20 new URLs, ...
  EXPECT_EQ(flushes, std::stod(info["log_flushes"]));
  // The cache was used. Nothing reads a page from disk between /metrics
  // and INFO (the data fits the cache), so the misses agree; the ratio is
  // over the commands each saw (STATS came between them).
  EXPECT_GT(
      m["frontierd_db_cache_hits_total"] + m["frontierd_db_cache_misses_total"],
      0);
  EXPECT_EQ(m["frontierd_db_cache_misses_total"],
            std::stod(info["cache_misses"]));
  EXPECT_EQ(m["frontierd_db_cache_pages_read_total"],
            std::stod(info["cache_pages_read"]));
  EXPECT_EQ(m["frontierd_db_cache_pages_written_total"],
            std::stod(info["cache_pages_written"]));
  const double commands = m["frontierd_commands_processed_total"];
  ASSERT_GT(commands, 20);
  EXPECT_EQ(std::stod(info["total_commands_processed"]), commands + 1);
  EXPECT_NEAR(m["frontierd_db_cache_misses_per_command"],
              m["frontierd_db_cache_misses_total"] / commands, 1e-12);
  EXPECT_NEAR(std::stod(info["cache_misses_per_command"]),
              std::stod(info["cache_misses"]) / (commands + 1), 1e-6);
}

TEST_F(HttpTest, ApiStatsIsJsonWithTheSameNumbers) {
  Crawl();
  HttpResponse r = HttpGet(http_port_, "/api/stats");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("content-type"), "application/json");
  Counters stats = Stats();
  for (const char* field : {"urls", "queued", "leased", "done", "popped"}) {
    const std::string needle =
        "\"" + std::string(field) + "\":" + std::to_string(stats[field]) + ",";
    EXPECT_NE(r.body.find(needle), std::string::npos) << needle << r.body;
  }
  EXPECT_NE(r.body.find("\"name\":\"s0.example\""), std::string::npos)
      << "largest sites";
  EXPECT_NE(r.body.find("\"fsync\":\"always\""), std::string::npos);
  // A single node: no replication group.
  EXPECT_NE(r.body.find("\"replication\":{\"role\":\"none\",\"group_sites\":"
                        "0,\"sites\":[]}"),
            std::string::npos)
      << r.body;
  if (!HaveProgram("python3")) GTEST_SKIP() << "no python3 to parse the JSON";
  ProcessResult parsed =
      RunProcess({"python3", "-c",
                  "import json,sys; d=json.load(sys.stdin); "
                  "print(d['frontier']['urls'], len(d['clients']), "
                  "d['persistence']['writes_refused'])"},
                 r.body, seconds(30));
  EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
  // The fixture's own RESP connection is listed.
  EXPECT_EQ(parsed.out, std::to_string(stats["urls"]) + " 1 False\n");
}

TEST_F(HttpTest, ServesTheDashboardFiles) {
  HttpResponse page = HttpGet(http_port_, "/");
  ASSERT_EQ(page.status, 200) << page.raw;
  EXPECT_EQ(page.Header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<script src=\"/dashboard.js\""), std::string::npos);
  EXPECT_NE(page.Header("content-security-policy").find("default-src 'self'"),
            std::string::npos);
  HttpResponse js = HttpGet(http_port_, "/dashboard.js");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.Header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_NE(js.body.find("/api/stats"), std::string::npos);
  EXPECT_EQ(HttpGet(http_port_, "/dashboard.css").status, 200);
  // HEAD: the headers alone.
  HttpResponse head = HttpExchange(
      http_port_, "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
}

TEST_F(HttpTest, ConfigGetShowsTheHttpDirectives) {
  EXPECT_EQ(Cmd({"CONFIG", "GET", "http-port"}),
            BulkArray({"http-port", std::to_string(http_port_)}));
  EXPECT_EQ(Cmd({"CONFIG", "GET", "http-tls"}), BulkArray({"http-tls", "no"}));
}

// docs/grafana-dashboard.json, found from this file's place in the tree.
std::string GrafanaDashboard() {
  return ReadFile((std::filesystem::path(__FILE__)
                       .parent_path()
                       .parent_path()
                       .parent_path() /
                   "docs" / "grafana-dashboard.json")
                      .string());
}

class HttpGrafanaTest : public HttpTest {
 protected:
  HttpGrafanaTest() { extra_ = {"--checkpoint-interval", "0.1"}; }
};

TEST_F(HttpGrafanaTest, TheGrafanaDashboardUsesOnlyExportedMetrics) {
  const std::string dashboard = GrafanaDashboard();
  ASSERT_FALSE(dashboard.empty()) << "docs/grafana-dashboard.json not found";
  Crawl();
  // Every family, the checkpoint age included once a checkpoint ran.
  std::string metrics;
  Stopwatch watch;
  do {
    metrics = HttpGet(http_port_, "/metrics").body;
  } while (metrics.find("frontierd_last_checkpoint_age_seconds") ==
               std::string::npos &&
           watch.Elapsed() < seconds(10));
  std::regex name_re("frontierd_[a-z_]+");
  int names = 0;
  for (auto it =
           std::sregex_iterator(dashboard.begin(), dashboard.end(), name_re);
       it != std::sregex_iterator(); ++it) {
    std::string name = it->str();
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string sfx(suffix);
      if (name.size() > sfx.size() &&
          name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0 &&
          metrics.find("# TYPE " + name.substr(0, name.size() - sfx.size()) +
                       " histogram") != std::string::npos) {
        name.resize(name.size() - sfx.size());
      }
    }
    ++names;
    EXPECT_NE(metrics.find("# TYPE " + name + " "), std::string::npos)
        << name << " is in the Grafana dashboard but not in /metrics";
  }
  EXPECT_GT(names, 20);
  // Every query parses as PromQL: promtool checks them as recording rules,
  // with Grafana's variables replaced by what they stand for.
  if (!HaveProgram("promtool")) GTEST_SKIP() << "promtool not installed";
  std::regex expr_re("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"");
  std::string rules = "groups:\n- name: grafana\n  rules:\n";
  int exprs = 0;
  for (auto it =
           std::sregex_iterator(dashboard.begin(), dashboard.end(), expr_re);
       it != std::sregex_iterator(); ++it) {
    std::string expr = (*it)[1].str();
    expr = std::regex_replace(expr, std::regex("\\\\\""), "\"");
    expr = std::regex_replace(expr, std::regex("\\$__rate_interval"), "5m");
    expr = std::regex_replace(expr, std::regex("\\$[a-z]+"), ".*");
    std::string quoted;
    for (char c : expr) {
      if (c == '\'') quoted += '\'';
      quoted += c;
    }
    rules += "  - record: grafana:q" + std::to_string(exprs++) +
             "\n    expr: '" + quoted + "'\n";
  }
  EXPECT_GT(exprs, 15);
  TempDir dir;
  const std::string path = dir.path() + "/rules.yml";
  std::ofstream(path) << rules;
  ProcessResult check =
      RunProcess({"promtool", "check", "rules", path}, "", seconds(30));
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << rules;
}

class HttpAuthTest : public HttpTest {
 protected:
  HttpAuthTest() { extra_ = {"--requirepass", "s3cret"}; }
};

TEST_F(HttpAuthTest, EveryPathNeedsTheRequirepassPassword) {
  for (const char* path : {"/", "/metrics", "/api/stats", "/dashboard.js"}) {
    HttpResponse none = HttpGet(http_port_, path);
    EXPECT_EQ(none.status, 401) << path;
    EXPECT_EQ(none.Header("www-authenticate"),
              "Basic realm=\"frontierd\", charset=\"UTF-8\"");
    EXPECT_EQ(none.body.find("frontierd_"), std::string::npos);
    EXPECT_EQ(
        HttpGet(http_port_, path, {BasicAuthHeader("default", "wrong")}).status,
        401)
        << path;
    EXPECT_EQ(HttpGet(http_port_, path, {"Authorization: Basic !!!!"}).status,
              401);
    EXPECT_EQ(HttpGet(http_port_, path, {BasicAuthHeader("default", "s3cret")})
                  .status,
              200)
        << path;
    EXPECT_EQ(HttpGet(http_port_, path, {BasicAuthHeader("", "s3cret")}).status,
              200)
        << path;
  }
}

class HttpsTest : public HttpTest {
 protected:
  bool AutoStart() const override { return false; }
};

TEST_F(HttpsTest, HttpTlsServesHttpsWithTheTlsCertificate) {
  if (!HaveProgram("openssl") || !HaveProgram("curl")) {
    GTEST_SKIP() << "needs the openssl and curl commands";
  }
  TempDir pki;
  const std::string cert = pki.path() + "/server.crt";
  const std::string key = pki.path() + "/server.key";
  ProcessResult made =
      RunProcess({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                  "-keyout", key, "-out", cert, "-days", "2", "-subj",
                  "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"},
                 "", seconds(60));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  extra_ = {"--http-tls",     "yes", "--tls-cert-file", cert,
            "--tls-key-file", key};
  server_ = std::make_unique<FrontierdProcess>(ServerArgs());
  ASSERT_TRUE(server_->Start());
  const std::string url =
      "https://127.0.0.1:" + std::to_string(http_port_) + "/metrics";
  ProcessResult ok =
      RunProcess({"curl", "-sS", "--max-time", "10", "--cacert", cert, url}, "",
                 seconds(30));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("frontierd_urls "), std::string::npos);
  // Plain HTTP on that port gets no page.
  HttpResponse plain = HttpGet(http_port_, "/metrics");
  EXPECT_NE(plain.status, 200);
  EXPECT_EQ(plain.body.find("frontierd_urls"), std::string::npos);
}

TEST_F(HttpsTest, HttpTlsWithoutACertificateStopsTheServer) {
  TempDir dir;
  ProcessResult r = RunProcess(
      {FrontierdBinary(), "--port", std::to_string(PickFreePort()), "--bind",
       "127.0.0.1", "--dir", dir.path() + "/data", "--http-port",
       std::to_string(PickFreePort()), "--http-tls", "yes"},
      "", seconds(20));
  ASSERT_FALSE(r.timed_out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("http-tls"), std::string::npos)
      << r.out << r.err;
}

}  // namespace
}  // namespace frontier::itest
