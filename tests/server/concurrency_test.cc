// End to end with several crawler workers at once, as in production: a
// producer adds links while workers POP and CONFIRM. No URL may go to two
// workers, none may be lost, and a site's lease cap holds across workers.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr int kSites = 40;
constexpr int kUrlsPerSite = 25;  // 1000 URLs in all
constexpr int kWorkers = 4;

std::string SiteUrl(int site, int page) {
  return "http://w" + std::to_string(site) + ".example.org/p" +
         std::to_string(page);
}
std::string SiteOfUrl(const std::string& url) {
  return url.substr(0, url.find('/', 7));
}

struct Lease {
  std::string url;
  Clock::time_point popped;     // the POP reply arrived
  Clock::time_point confirmed;  // the CONFIRM was sent
};

// Runs a producer (MADD per site page batch) and kWorkers workers (POP
// COUNT 5, CONFIRM each) until every URL is confirmed or 60 s pass.
// Returns every lease the workers held.
std::vector<Lease> RunCrawl(const FrontierdProcess& server, bool* timed_out) {
  std::atomic<bool> producing{true};
  std::atomic<int> confirmed{0};
  std::mutex mu;
  std::vector<Lease> leases;
  const auto deadline = Clock::now() + seconds(60);

  std::thread producer([&] {
    auto c = server.Connect(seconds(10));
    for (int page = 0; page < kUrlsPerSite; page += 5) {
      for (int site = 0; site < kSites; ++site) {
        std::vector<std::string> cmd = {"MADD", ""};
        for (int p = page; p < page + 5; ++p) cmd.push_back(SiteUrl(site, p));
        c->Append(cmd);
      }
      for (int site = 0; site < kSites; ++site) {
        Reply r = c->GetReply();
        if (!r.IsArray()) ADD_FAILURE() << "MADD: " << r;
      }
    }
    producing = false;
  });

  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      auto c = server.Connect(seconds(10));
      while (Clock::now() < deadline &&
             confirmed.load() < kSites * kUrlsPerSite) {
        Reply r = c->Cmd({"POP", "COUNT", "5"});
        if (!r.IsArray()) {
          ADD_FAILURE() << "POP: " << r;
          return;
        }
        auto popped = Clock::now();
        if (r.elements.empty()) {
          std::this_thread::sleep_for(milliseconds(2));
          continue;
        }
        for (const Reply& e : r.elements) {
          Lease lease{e.str, popped, Clock::now()};
          Reply ok = c->Cmd({"CONFIRM", e.str});
          if (ok != Int(1)) ADD_FAILURE() << "CONFIRM " << e.str << ": " << ok;
          ++confirmed;
          std::lock_guard<std::mutex> lock(mu);
          leases.push_back(lease);
        }
      }
    });
  }
  producer.join();
  for (auto& t : workers) t.join();
  *timed_out = Clock::now() >= deadline;
  return leases;
}

class ConcurrencyTest : public FrontierdTest {};

TEST_F(ConcurrencyTest, EveryUrlGoesToExactlyOneWorker) {
  bool timed_out = false;
  std::vector<Lease> leases = RunCrawl(*server_, &timed_out);
  EXPECT_FALSE(timed_out);
  std::map<std::string, int> times;
  for (const Lease& l : leases) ++times[l.url];
  int twice = 0;
  for (const auto& [url, n] : times) {
    if (n != 1) ++twice;
  }
  EXPECT_EQ(twice, 0) << "URLs handed out more than once";
  EXPECT_EQ(times.size(), static_cast<size_t>(kSites * kUrlsPerSite));
  auto s = Stats();
  EXPECT_EQ(s["urls"], kSites * kUrlsPerSite);
  EXPECT_EQ(s["done"], kSites * kUrlsPerSite);
  EXPECT_EQ(s["popped"], kSites * kUrlsPerSite);
  EXPECT_EQ(s["confirmed"], kSites * kUrlsPerSite);
  EXPECT_EQ(s["queued"] + s["leased"], 0);
}

class ConcurrencyPolitenessTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--politeness-delay", "0", "--site-max-leases", "1",
            "--timer-ms",         "10"};
  }
};

TEST_F(ConcurrencyPolitenessTest, OneLeasePerSiteAcrossWorkers) {
  bool timed_out = false;
  std::vector<Lease> leases = RunCrawl(*server_, &timed_out);
  EXPECT_FALSE(timed_out);
  EXPECT_EQ(leases.size(), static_cast<size_t>(kSites * kUrlsPerSite));
  // A site's second lease can only be granted after its first was given
  // back: its POP reply cannot arrive before the earlier CONFIRM was sent.
  std::map<std::string, std::vector<const Lease*>> by_site;
  for (const Lease& l : leases) by_site[SiteOfUrl(l.url)].push_back(&l);
  int overlaps = 0;
  for (auto& [site, list] : by_site) {
    std::sort(list.begin(), list.end(), [](const Lease* a, const Lease* b) {
      return a->popped < b->popped;
    });
    for (size_t i = 1; i < list.size(); ++i) {
      if (list[i]->popped < list[i - 1]->confirmed) {
        ++overlaps;
        if (overlaps <= 3) {
          ADD_FAILURE() << site << ": " << list[i]->url << " was leased while "
                        << list[i - 1]->url << " still was";
        }
      }
    }
  }
  EXPECT_EQ(overlaps, 0);
}

// With fsync always a client's replies wait for the log sync of their
// pass while the loop serves other clients, and what the client sends in
// the meantime waits too. Pipelined bursts from many clients must still
// get every reply, in order, with each command seeing the ones before it;
// and the syncs must still be shared (group commit).
TEST_F(ConcurrencyTest, PipelinedRepliesKeepTheirOrderAcrossSyncs) {
  constexpr int kClients = 8;
  constexpr int kBursts = 10;
  constexpr int kUrlsPerBurst = 10;  // 3 commands each: ADD, SEEN, ADD
  auto flushes = [&] {
    return std::stoll(InfoMap(Cmd({"INFO", "persistence"}).str)["log_flushes"]);
  };
  const long long flushes_before = flushes();
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto conn = server_->Connect(seconds(10));
      for (int b = 0; b < kBursts; ++b) {
        std::vector<std::string> urls;
        for (int i = 0; i < kUrlsPerBurst; ++i) {
          urls.push_back("http://o" + std::to_string(c) + ".example.org/" +
                         std::to_string(b) + "/" + std::to_string(i));
          conn->Append({"ADD", urls.back()});
          conn->Append({"SEEN", urls.back()});
          conn->Append({"ADD", urls.back()});
        }
        for (const std::string& url : urls) {
          Reply added = conn->GetReply();
          Reply seen = conn->GetReply();
          Reply again = conn->GetReply();
          if (added != Int(1) || seen != Int(1) || again != Int(0)) {
            ADD_FAILURE() << url << ": ADD " << added << ", SEEN " << seen
                          << ", ADD again " << again;
            return;
          }
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(Stats()["urls"], kClients * kBursts * kUrlsPerBurst);
  const long long commands = 3LL * kClients * kBursts * kUrlsPerBurst;
  EXPECT_LT(flushes() - flushes_before, commands / 3);
}

// The state letter of /proc/<pid>/stat ('T' once SIGSTOP has taken
// effect); '?' if it cannot be read.
char ProcessState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size()
             ? '?'
             : stat[paren + 2];
}

// Group commit, made deterministic: while the server is stopped (SIGSTOP)
// every client writes a burst of ADDs, so that all of them are waiting
// when it goes on (SIGCONT) and one pass reads them all. With fsync always
// each client's replies wait for a log flush; a flush per client (or per
// client burst) would make as many flushes as clients. Fewer flushes than
// clients means some flush answered several clients at once.
TEST_F(ConcurrencyTest, OneLogFlushAnswersManyClients) {
  constexpr int kClients = 8;
  constexpr int kUrlsPerClient = 10;
  std::vector<std::unique_ptr<RawConnection>> conns;
  for (int c = 0; c < kClients; ++c) {
    conns.push_back(std::make_unique<RawConnection>(server_->port()));
    ASSERT_TRUE(conns.back()->ok());
    // Accepted and served once, so that the burst below is all it sends.
    ASSERT_TRUE(conns.back()->Send(Resp({"PING"})));
    ASSERT_EQ(conns.back()->Read(7, seconds(5)), "+PONG\r\n");
  }
  auto flushes = [&] {
    return std::stoll(InfoMap(Cmd({"INFO", "persistence"}).str)["log_flushes"]);
  };
  const long long flushes_before = flushes();
  ASSERT_TRUE(server_->Signal(SIGSTOP));
  Stopwatch watch;
  while (ProcessState(server_->pid()) != 'T' && watch.Elapsed() < seconds(5)) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  const bool stopped = ProcessState(server_->pid()) == 'T';
  for (int c = 0; stopped && c < kClients; ++c) {
    std::string burst;
    for (int i = 0; i < kUrlsPerClient; ++i) {
      burst += Resp({"ADD", "http://g" + std::to_string(c) + ".example.org/" +
                                std::to_string(i)});
    }
    // Loopback: once Send returns, the bytes wait in the server's socket.
    EXPECT_TRUE(conns[c]->Send(burst));
  }
  ASSERT_TRUE(server_->Signal(SIGCONT));
  ASSERT_TRUE(stopped) << "the server did not stop";
  std::string one_each;
  for (int i = 0; i < kUrlsPerClient; ++i) one_each += ":1\r\n";
  for (int c = 0; c < kClients; ++c) {
    EXPECT_EQ(conns[c]->Read(one_each.size(), seconds(10)), one_each)
        << "client " << c;
  }
  const long long used = flushes() - flushes_before;
  EXPECT_GE(used, 1);
  EXPECT_LT(used, kClients) << "every client's burst had a log flush of its "
                               "own: no group commit across clients";
}

}  // namespace
}  // namespace frontier::itest
