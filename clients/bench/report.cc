#include "report.h"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "common/str_cat.h"

namespace bench {

using frontier_client::StrCat;
namespace {

struct Rate {
  const char* name;  // "adds/s", ...
  const char* json_key;
  double value;
};

// The headline rates of a workload; the first one is the primary.
std::vector<Rate> Rates(const Options& o, const RunResult& r) {
  double s = r.seconds > 0 ? r.seconds : 1e-9;
  const Counters& c = r.total;
  switch (o.workload) {
    case Workload::kAdd:
      return {{"adds/s", "adds_per_s", double(c.commands[kVerbAdd]) / s}};
    case Workload::kPopConfirm:
      return {{"pops/s", "pops_per_s", double(c.popped) / s},
              {"confirms/s", "confirms_per_s",
               double(c.commands[kVerbConfirm]) / s}};
    case Workload::kCrawl:
      return {
          {"pages/s", "pages_per_s", double(c.commands[kVerbConfirm]) / s},
          {"link checks/s", "link_checks_per_s", double(c.link_checks) / s}};
    case Workload::kPop:
      return {{"pops/s", "pops_per_s", double(c.popped) / s}};
    case Workload::kConfirm:
      return {{"confirms/s", "confirms_per_s",
               double(c.commands[kVerbConfirm]) / s}};
  }
  return {};
}

// Appends one JSON object, keys in call order; nothing is escaped but strings.
class JsonWriter {
 public:
  void Begin(std::string_view key = {}) {
    if (!key.empty())
      Key(key);
    else
      Comma();
    out_.push_back('{');
    first_ = true;
  }
  void End() {
    out_.push_back('}');
    first_ = false;
  }
  void Str(std::string_view key, std::string_view value) {
    Key(key);
    out_.push_back('"');
    for (char ch : value) {
      auto u = static_cast<unsigned char>(ch);
      if (ch == '"' || ch == '\\') {
        out_.push_back('\\');
        out_.push_back(ch);
      } else if (u < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        out_.append(buf);
      } else {
        out_.push_back(ch);
      }
    }
    out_.push_back('"');
  }
  void Int(std::string_view key, int64_t value) {
    Key(key);
    out_.append(std::to_string(value));
  }
  void Num(std::string_view key, double value, const char* format = "%.1f") {
    Key(key);
    char buf[40];
    std::snprintf(buf, sizeof buf, format, value);
    out_.append(buf);
  }
  void Bool(std::string_view key, bool value) {
    Key(key);
    out_.append(value ? "true" : "false");
  }
  std::string Take() { return std::move(out_); }

 private:
  void Comma() {
    if (!first_ && !out_.empty()) out_.push_back(',');
    first_ = false;
  }
  void Key(std::string_view key) {
    Comma();
    out_.push_back('"');
    out_.append(key);
    out_.append("\":");
  }
  std::string out_;
  bool first_ = true;
};

std::string Mib(int64_t bytes) {
  if (bytes < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

double Micros(uint64_t nanos) { return double(nanos) / 1000.0; }

}  // namespace

Verdict Judge(const Options& o, const RunResult& r) {
  Verdict v;
  const Counters& c = r.total;
  auto fail = [&](const std::string& why) {
    v.ok = false;
    if (!v.reason.empty()) v.reason += "; ";
    v.reason += why;
  };
  if (!r.fatal.empty()) fail(r.fatal);
  if (c.errors > 0)
    fail(StrCat(c.errors, " error replies (first: ", c.first_error, ")"));
  if (r.check_new) {
    v.new_checked = c.added_refused == 0;
    if (v.new_checked && c.added_new != r.expected_new) {
      fail(StrCat(c.added_new, " URLs acknowledged new, expected ",
                  r.expected_new));
    }
  }
  if (r.duplicate_pops > 0)
    fail(StrCat(r.duplicate_pops, " URLs popped twice"));
  if (c.confirm_zero > 0)
    fail(StrCat(c.confirm_zero, " CONFIRMs of leased URLs replied :0"));
  bool one_verb =
      o.workload == Workload::kPop || o.workload == Workload::kConfirm;
  if (one_verb && r.fatal.empty() && !r.hit_duration) {
    // Every URL loaded is popped once and confirmed once; fewer pops mean the
    // server held some back (politeness on?) and the rate is not POP's.
    if (c.popped != r.expected_new) {
      fail(StrCat("popped ", c.popped, " of the ", r.expected_new,
                  " URLs loaded (politeness must be off)"));
    }
    if (c.confirm_ok + c.confirm_zero != c.popped) {
      fail(StrCat(c.confirm_ok + c.confirm_zero, " CONFIRMs answered for ",
                  c.popped, " URLs popped"));
    }
  }
  return v;
}

void PrintTable(const Options& o, const RunResult& r,
                const ServerSnapshot& before, const ServerSnapshot& after,
                const Verdict& v) {
  const Counters& c = r.total;
  std::printf("frontier-bench %s -> %s at %s:%d, %d connections, pipeline %d",
              WorkloadName(o.workload), TargetName(o.target), o.host.c_str(),
              o.port, o.connections, o.pipeline);
  if (o.workload != Workload::kAdd && o.workload != Workload::kConfirm)
    std::printf(", %d per POP", o.pop_count);
  std::printf(", seed %" PRIu64 "\n", o.seed);
  std::printf("  %-16s %.2f s%s\n", "elapsed", r.seconds,
              r.hit_duration ? " (--duration reached)" : "");
  for (const Rate& rate : Rates(o, r))
    std::printf("  %-16s %.0f\n", rate.name, rate.value);

  std::printf("  %-9s %10s %10s %10s %10s %10s %10s\n", "command", "count",
              "mean us", "p50 us", "p99 us", "p99.9 us", "max us");
  for (int verb = 0; verb < kVerbCount; ++verb) {
    const LatencyHistogram& h = c.latency[verb];
    if (h.count() == 0) continue;
    std::printf("  %-9s %10" PRIu64 " %10.1f %10.1f %10.1f %10.1f %10.1f\n",
                VerbName(verb), h.count(), h.MeanNanos() / 1000.0,
                Micros(h.Quantile(0.50)), Micros(h.Quantile(0.99)),
                Micros(h.Quantile(0.999)), Micros(h.max()));
  }

  if (!after.error.empty()) {
    std::printf("  %-16s %s\n", "server", after.error.c_str());
  } else {
    std::printf(
        "  %-16s %s (%s)\n", "server RSS", Mib(after.rss_bytes).c_str(),
        after.rss_source.empty() ? "not reported" : after.rss_source.c_str());
    std::printf(
        "  %-16s %s (%s)\n", "data size", Mib(after.data_bytes).c_str(),
        after.data_source.empty() ? "not reported" : after.data_source.c_str());
  }
  if (after.Counter("urls") >= 0) {
    std::printf("  %-16s urls %" PRId64 " -> %" PRId64 ", queued %" PRId64
                " -> %" PRId64 ", leased %" PRId64 " -> %" PRId64 "\n",
                "server counters", before.Counter("urls"),
                after.Counter("urls"), before.Counter("queued"),
                after.Counter("queued"), before.Counter("leased"),
                after.Counter("leased"));
  }

  std::printf("  %-16s", "check");
  if (r.check_new) {
    if (v.new_checked) {
      std::printf(" new %" PRIu64 " of %" PRIu64 " unique,", c.added_new,
                  r.expected_new);
    } else {
      std::printf(" new %" PRIu64 " (not checked: %" PRIu64 " refused),",
                  c.added_new, c.added_refused);
    }
    std::printf(" known %" PRIu64 ",", c.added_known);
  }
  if (o.workload == Workload::kCrawl)
    std::printf(" seeds %" PRIu64 ",", r.seeds);
  if (o.workload != Workload::kAdd) {
    std::printf(" popped %" PRIu64 ", twice %" PRIu64 ", confirmed %" PRIu64
                "/%" PRIu64 ",",
                c.popped, r.duplicate_pops, c.confirm_ok,
                c.confirm_ok + c.confirm_zero);
  }
  std::printf(" errors %" PRIu64 ": %s\n", c.errors, v.ok ? "OK" : "FAILED");
  if (!v.ok) std::printf("  %-16s %s\n", "failure", v.reason.c_str());
}

std::string JsonLine(const Options& o, const RunResult& r,
                     const ServerSnapshot& before, const ServerSnapshot& after,
                     const Verdict& v) {
  const Counters& c = r.total;
  std::vector<Rate> rates = Rates(o, r);
  JsonWriter j;
  j.Begin();
  j.Str("tool", "frontier-bench");
  j.Str("workload", WorkloadName(o.workload));
  j.Str("target", TargetName(o.target));
  j.Bool("ok", v.ok);
  j.Num("rate", rates.front().value);
  j.Str("rate_unit", rates.front().name);
  j.Num("seconds", r.seconds, "%.3f");
  j.Str("host", o.host);
  j.Int("port", o.port);
  j.Int("connections", o.connections);
  j.Int("pipeline", o.pipeline);
  j.Int("pop_count", o.pop_count);
  j.Int("ops", o.workload == Workload::kPopConfirm && !o.ops_given ? 0 : o.ops);
  j.Int("sites", o.sites);
  j.Int("seed", static_cast<int64_t>(o.seed));
  j.Bool("hit_duration", r.hit_duration);

  j.Begin("throughput");
  for (const Rate& rate : rates) j.Num(rate.json_key, rate.value);
  j.End();

  j.Begin("latency_us");
  for (int verb = 0; verb < kVerbCount; ++verb) {
    const LatencyHistogram& h = c.latency[verb];
    if (h.count() == 0) continue;
    j.Begin(VerbName(verb));
    j.Int("count", static_cast<int64_t>(h.count()));
    j.Num("mean", h.MeanNanos() / 1000.0);
    j.Num("p50", Micros(h.Quantile(0.5)));
    j.Num("p99", Micros(h.Quantile(0.99)));
    j.Num("p999", Micros(h.Quantile(0.999)));
    j.Num("max", Micros(h.max()));
    j.End();
  }
  j.End();

  j.Begin("server");
  j.Int("rss_bytes", after.rss_bytes);
  j.Str("rss_source", after.rss_source);
  j.Int("data_bytes", after.data_bytes);
  j.Str("data_source", after.data_source);
  for (const char* name : {"urls", "queued", "leased"}) {
    j.Int(std::string(name) + "_before", before.Counter(name));
    j.Int(name, after.Counter(name));
  }
  if (!after.error.empty()) j.Str("error", after.error);
  j.End();

  j.Begin("check");
  j.Int("errors", static_cast<int64_t>(c.errors));
  j.Str("first_error", c.first_error);
  j.Int("expected_new",
        r.check_new ? static_cast<int64_t>(r.expected_new) : -1);
  j.Bool("new_checked", v.new_checked);
  j.Int("acknowledged_new", static_cast<int64_t>(c.added_new));
  j.Int("known", static_cast<int64_t>(c.added_known));
  j.Int("refused", static_cast<int64_t>(c.added_refused));
  j.Int("seeds", static_cast<int64_t>(r.seeds));
  j.Int("popped", static_cast<int64_t>(c.popped));
  j.Int("duplicate_pops", static_cast<int64_t>(r.duplicate_pops));
  j.Int("confirm_ok", static_cast<int64_t>(c.confirm_ok));
  j.Int("confirm_zero", static_cast<int64_t>(c.confirm_zero));
  j.Int("pages", static_cast<int64_t>(o.workload == Workload::kCrawl
                                          ? c.commands[kVerbConfirm]
                                          : 0));
  j.Int("link_checks", static_cast<int64_t>(c.link_checks));
  j.Str("reason", v.reason);
  j.End();
  j.End();
  return j.Take();
}

}  // namespace bench
