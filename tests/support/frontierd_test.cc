// FrontierdTest (frontierd_process.h): the gtest fixture that starts a
// frontierd before each test, fails a test on a sanitizer report and
// prints the server's log when a test fails.
#include <iostream>
#include <string>
#include <thread>
#include <utility>

#include "support/frontierd_process.h"
#include "support/process_util.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;

// Built with -fsanitize=address (gcc defines the macro, clang the feature).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif
#else
constexpr bool kSanitizedBuild = false;
#endif

}  // namespace

void FrontierdTest::SetUp() {
  if (!AutoStart()) return;
  server_ = std::make_unique<FrontierdProcess>(ServerArgs());
  ASSERT_TRUE(server_->Start());
}

void FrontierdTest::TearDown() {
  if (server_ != nullptr) {
    // Under the sanitizers the server is stopped cleanly, so that
    // LeakSanitizer runs at its exit; any report fails the test.
    if (kSanitizedBuild && server_->running()) server_->Stop();
    std::string report = SanitizerReport(server_->Logs());
    EXPECT_TRUE(report.empty()) << "frontierd sanitizer report:\n" << report;
  }
  if (server_ != nullptr && HasFailure()) {
    std::cerr << "\n===== frontierd logs (port " << server_->port()
              << ") =====\n"
              << Tail(server_->Logs(), kLogTailBytes)
              << "\n===== end of logs =====\n";
  }
  server_.reset();
}

std::map<std::string, std::string> FrontierdTest::UrlInfo(
    const std::string& url) {
  return FieldMap(Cmd({"URLINFO", url}));
}

long long Counters::operator[](const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  ADD_FAILURE() << "STATS has no counter '" << name << "'; it has " << *this;
  return kMissing;
}

std::ostream& operator<<(std::ostream& os, const Counters& counters) {
  os << "{";
  const char* sep = "";
  for (const auto& [name, value] : counters.values()) {
    os << sep << name << "=" << value;
    sep = " ";
  }
  return os << "}";
}

Counters FrontierdTest::Stats() {
  std::map<std::string, long long> m;
  Reply r = Cmd({"STATS"});
  if (!r.IsArray()) {
    ADD_FAILURE() << "STATS answered " << r;
    return Counters();
  }
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    if (!r.elements[i + 1].IsInteger()) {
      ADD_FAILURE() << "STATS " << r.elements[i].str << " is not an integer: "
                    << r.elements[i + 1];
    }
    m[r.elements[i].str] = r.elements[i + 1].integer;
  }
  return Counters(std::move(m));
}

::testing::AssertionResult FrontierdTest::WaitForBlockedClients(
    long long n, milliseconds timeout) {
  Stopwatch watch;
  std::string last;
  for (;;) {
    Reply r = Cmd({"INFO", "clients"});
    auto info = InfoMap(r.str);
    auto it = info.find("blocked_clients");
    if (it == info.end()) {
      return ::testing::AssertionFailure()
             << "INFO clients has no blocked_clients: " << r;
    }
    last = it->second;
    if (last == std::to_string(n)) return ::testing::AssertionSuccess();
    if (watch.Elapsed() >= timeout) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return ::testing::AssertionFailure()
         << "blocked_clients is " << last << ", not " << n << ", after "
         << timeout.count() << " ms";
}

std::optional<milliseconds> FrontierdTest::PopUntil(const std::string& url,
                                                    milliseconds timeout) {
  Stopwatch watch;
  while (watch.Elapsed() < timeout) {
    Reply r = Cmd({"POP"});
    if (r == Bulk(url)) return watch.Elapsed();
    if (!r.IsNil()) {
      ADD_FAILURE() << "waiting for POP to return " << url << ", it returned "
                    << r;
      return std::nullopt;
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  ADD_FAILURE() << "POP did not return " << url << " within " << timeout.count()
                << " ms";
  return std::nullopt;
}

}  // namespace frontier::itest
