// End to end: partitions (WEB-SAILOR's domain sets). Two worker pools on
// two partitions never see each other's URLs; BPOP waits per partition;
// the map changes by CONFIG SET and at restart without losing anything;
// PARTITION LIST|INFO and INFO; the hints published as a pool grows and
// drains; bad input.
#include <chrono>
#include <fstream>
#include <future>
#include <map>
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

std::vector<std::string> ArgsWith(std::vector<std::string> extra) {
  std::vector<std::string> args = DefaultTestArgs();
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string HostOf(const std::string& url) {
  const size_t start = url.find("://") + 3;
  return url.substr(start, url.find('/', start) - start);
}

bool EndsWithLabel(const std::string& host, const std::string& suffix) {
  return host == suffix || (host.size() > suffix.size() &&
                            host.compare(host.size() - suffix.size(),
                                         suffix.size(), suffix) == 0 &&
                            host[host.size() - suffix.size() - 1] == '.');
}

class PartitionTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return ArgsWith({"--partition", "edu", "edu", "--partition", "ex",
                     "example.com", ".example.org"});
  }
  std::map<std::string, std::string> InfoOf(const std::string& name) {
    Reply r = Cmd({"PARTITION", "INFO", name});
    std::map<std::string, std::string> fields;
    if (!r.IsArray()) {
      ADD_FAILURE() << r;
      return fields;
    }
    for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
      const Reply& v = r.elements[i + 1];
      std::string text;
      if (v.IsArray()) {
        for (const Reply& e : v.elements)
          text += (text.empty() ? "" : " ") + e.str;
      } else {
        text = v.IsInteger() ? std::to_string(v.integer) : v.str;
      }
      fields[r.elements[i].str] = text;
    }
    return fields;
  }
  std::future<Reply> CmdAsync(std::vector<std::string> args) {
    auto client = Connect(seconds(20));
    return std::async(std::launch::async,
                      [c = std::move(client), args]() { return c->Cmd(args); });
  }
};

TEST_F(PartitionTest, TwoPoolsNeverSeeEachOthersUrls) {
  std::set<std::string> all;
  for (int site = 0; site < 4; ++site) {
    for (int page = 0; page < 5; ++page) {
      for (const std::string& host :
           {"h" + std::to_string(site) + ".mit.edu",
            "w" + std::to_string(site) + ".example.com",
            "o" + std::to_string(site) + ".badexample.com"}) {
        const std::string url = "http://" + host + "/p" + std::to_string(page);
        ASSERT_EQ(Cmd({"ADD", url}), Int(1));
        all.insert(url);
      }
    }
  }
  std::mutex mu;
  std::map<std::string, std::string> taken_by;  // url -> partition
  std::vector<std::string> problems;
  auto worker = [&](const std::string& partition) {
    auto c = Connect(seconds(10));
    for (int round = 0; round < 200; ++round) {
      Reply r = c->Cmd({"POP", "COUNT", "3", "PARTITION", partition});
      if (!r.IsArray()) {
        std::lock_guard<std::mutex> lock(mu);
        problems.push_back(r.DebugString());
        return;
      }
      if (r.elements.empty()) return;
      for (const Reply& u : r.elements) {
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!taken_by.emplace(u.str, partition).second) {
            problems.push_back("popped twice: " + u.str);
          }
        }
        c->Cmd({"CONFIRM", u.str});
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < 3; ++i) {
    pool.emplace_back(worker, "edu");
    pool.emplace_back(worker, "ex");
  }
  for (std::thread& t : pool) t.join();
  EXPECT_TRUE(problems.empty()) << problems.front();
  size_t edu = 0, ex = 0;
  for (const auto& [url, partition] : taken_by) {
    const std::string host = HostOf(url);
    if (partition == "edu") {
      ++edu;
      EXPECT_TRUE(EndsWithLabel(host, "edu")) << url << " went to edu";
    } else {
      ++ex;
      EXPECT_TRUE(EndsWithLabel(host, "example.com")) << url << " went to ex";
    }
  }
  EXPECT_EQ(edu, 20u);
  EXPECT_EQ(ex, 20u);
  // What neither pool may take is left, all of it, for a worker on none.
  auto rest = InfoOf("default");
  EXPECT_EQ(rest["queued"], "20");
  EXPECT_EQ(rest["sites"], "4");
  EXPECT_EQ(InfoOf("edu")["confirmed"], "20");
  EXPECT_EQ(InfoOf("edu")["done"], "20");
  EXPECT_EQ(InfoOf("ex")["popped"], "20");
  Reply any = Cmd({"POP", "COUNT", "100"});
  ASSERT_TRUE(any.IsArray());
  EXPECT_EQ(any.elements.size(), 20u);
  for (const Reply& u : any.elements) {
    EXPECT_TRUE(EndsWithLabel(HostOf(u.str), "badexample.com")) << u.str;
  }
}

TEST_F(PartitionTest, BpopWaitsPerPartitionFirstComeFirstServed) {
  auto edu_first = CmdAsync({"BPOP", "10", "PARTITION", "edu"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  auto edu_second = CmdAsync({"BPOP", "10", "PARTITION", "edu"});
  auto ex = CmdAsync({"BPOP", "10", "PARTITION", "ex"});
  ASSERT_TRUE(WaitForBlockedClients(3));
  EXPECT_EQ(InfoOf("edu")["waiting"], "2");
  EXPECT_EQ(InfoOf("ex")["waiting"], "1");
  EXPECT_EQ(InfoOf("default")["waiting"], "0");

  // A URL of another partition wakes none of the edu waiters.
  ASSERT_EQ(Cmd({"ADD", "http://www.example.org/x"}), Int(1));
  ASSERT_EQ(ex.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(ex.get(), Bulk("http://www.example.org/x"));
  EXPECT_EQ(edu_first.wait_for(milliseconds(300)), std::future_status::timeout);
  // An edu URL goes to the first edu waiter, the next to the second.
  ASSERT_EQ(Cmd({"ADD", "http://cs.mit.edu/1"}), Int(1));
  ASSERT_EQ(edu_first.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(edu_first.get(), Bulk("http://cs.mit.edu/1"));
  EXPECT_EQ(edu_second.wait_for(milliseconds(300)),
            std::future_status::timeout);
  ASSERT_EQ(Cmd({"ADD", "http://ee.mit.edu/1"}), Int(1));
  ASSERT_EQ(edu_second.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(edu_second.get(), Bulk("http://ee.mit.edu/1"));

  // A waiter on no partition takes any; one on edu is not woken by default.
  auto on_edu = CmdAsync({"BPOP", "10", "PARTITION", "edu"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  auto on_any = CmdAsync({"BPOP", "10"});
  ASSERT_TRUE(WaitForBlockedClients(2));
  ASSERT_EQ(Cmd({"ADD", "http://other.org/"}), Int(1));
  ASSERT_EQ(on_any.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(on_any.get(), Bulk("http://other.org/"));
  EXPECT_EQ(on_edu.wait_for(milliseconds(300)), std::future_status::timeout);
  ASSERT_EQ(Cmd({"ADD", "http://x.edu/"}), Int(1));
  ASSERT_EQ(on_edu.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(on_edu.get(), Bulk("http://x.edu/"));
  // BPOP PARTITION returns at once when its partition has a URL, even
  // while clients wait on another.
  auto on_ex = CmdAsync({"BPOP", "10", "PARTITION", "ex"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_EQ(Cmd({"ADD", "http://y.edu/"}), Int(1));
  Stopwatch watch;
  EXPECT_EQ(Cmd({"BPOP", "5", "PARTITION", "edu"}), Bulk("http://y.edu/"));
  EXPECT_LT(watch.Elapsed(), seconds(2));
  ASSERT_EQ(Cmd({"ADD", "http://example.com/"}), Int(1));
  ASSERT_EQ(on_ex.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(on_ex.get(), Bulk("http://example.com/"));
}

TEST_F(PartitionTest, ListInfoAndInfoSection) {
  EXPECT_EQ(Cmd({"PARTITION", "LIST"}), BulkArray({"default", "edu", "ex"}));
  ASSERT_EQ(Cmd({"ADD", "http://a.edu/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.edu/2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.edu/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://b.edu/2"}), Int(1));
  ASSERT_EQ(Cmd({"POP", "PARTITION", "edu"}).type, Reply::Type::kString);
  auto edu = InfoOf("edu");
  EXPECT_EQ(edu["suffixes"], "edu");
  EXPECT_EQ(edu["sites"], "2");
  EXPECT_EQ(edu["queued"], "3");
  EXPECT_EQ(edu["leased"], "1");
  EXPECT_EQ(edu["done"], "0");
  EXPECT_EQ(edu["popped"], "1");
  EXPECT_EQ(edu["ready_sites"], "2");  // no lease cap in these tests
  EXPECT_EQ(InfoOf("ex")["suffixes"], "example.com example.org");
  EXPECT_EQ(InfoOf("default")["suffixes"], "");
  Reply info = Cmd({"INFO", "partitions"});
  ASSERT_TRUE(info.IsString()) << info;
  EXPECT_NE(info.str.find("# Partitions\r\n"), std::string::npos);
  auto lines = InfoMap(info.str);
  EXPECT_EQ(lines["partition_edu"],
            "sites=2,ready_sites=2,queued=3,leased=1,done=0,waiting=0,"
            "popped=1,confirmed=0,advice=hurry-up,n=4");
  EXPECT_EQ(lines["partition_default"].substr(0, 8), "sites=0,");
  // SITE INFO names the site's partition once partitions are configured.
  Reply site = Cmd({"SITE", "INFO", "http://a.edu/1"});
  ASSERT_TRUE(site.IsArray()) << site;
  ASSERT_GE(site.elements.size(), 2u);
  EXPECT_EQ(site.elements[site.elements.size() - 2].str, "partition");
  EXPECT_EQ(site.elements.back().str, "edu");
}

TEST_F(PartitionTest, BadInputIsRefusedAndChangesNothing) {
  ASSERT_EQ(Cmd({"ADD", "http://a.edu/"}), Int(1));
  EXPECT_EQ(Cmd({"POP", "PARTITION", "nope"}),
            Error("ERR unknown partition 'nope'"));
  EXPECT_EQ(Cmd({"POP", "PARTITION", ""}), Error("ERR unknown partition ''"));
  EXPECT_EQ(Cmd({"BPOP", "1", "PARTITION", "nope"}),
            Error("ERR unknown partition 'nope'"));
  EXPECT_EQ(Cmd({"POP", "PARTITION"}), Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"PARTITION", "INFO", "nope"}),
            Error("ERR unknown partition 'nope'"));
  EXPECT_EQ(Cmd({"HINT", "PARTITION", "nope"}),
            Error("ERR unknown partition 'nope'"));
  EXPECT_EQ(Cmd({"HINT", "FOO"}), Error("ERR syntax error"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"PARTITION", "BOGUS"}),
                                  "ERR unknown subcommand 'BOGUS'"));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"PARTITION", "INFO"}),
                                  "ERR wrong number of arguments"));
  EXPECT_EQ(UrlInfo("http://a.edu/")["state"], "queued");
  const Reply before = Cmd({"CONFIG", "GET", "partition"});
  const std::pair<std::string, std::string> bad[] = {
      {"a x.com, a y.com", "partition 'a' is declared twice"},
      {"a x.com, b x.com", "suffix 'x.com' is in partitions 'a' and 'b'"},
      {"a x..com", "bad suffix 'x..com'"},
      {"a", "partition 'a' has no suffix"},
      {"default x.com", "reserved"},
      {"a x.com,,b y.com", "empty partition"},
  };
  for (const auto& [value, why] : bad) {
    Reply r = Cmd({"CONFIG", "SET", "partition", value});
    ASSERT_TRUE(r.IsError()) << value;
    EXPECT_NE(r.str.find(why), std::string::npos) << r.str;
  }
  EXPECT_EQ(Cmd({"CONFIG", "GET", "partition"}), before);
  EXPECT_EQ(Cmd({"PARTITION", "LIST"}), BulkArray({"default", "edu", "ex"}));
}

TEST_F(PartitionTest, ConfigSetRemapsSitesAndKeepsLeases) {
  ASSERT_EQ(Cmd({"ADD", "http://cs.mit.edu/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://cs.mit.edu/2"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://www.example.com/1"}), Int(1));
  Reply leased = Cmd({"POP", "PARTITION", "edu", "LEASE", "600"});
  ASSERT_TRUE(leased.IsString()) << leased;
  const std::string due = UrlInfo(leased.str)["due"];

  ASSERT_EQ(Cmd({"CONFIG", "SET", "partition", "mit mit.edu, web com"}),
            StatusReply("OK"));
  EXPECT_EQ(Cmd({"CONFIG", "GET", "partition"}),
            BulkArray({"partition", "mit mit.edu\nweb com"}));
  EXPECT_EQ(Cmd({"PARTITION", "LIST"}), BulkArray({"default", "mit", "web"}));
  EXPECT_EQ(Cmd({"POP", "PARTITION", "edu"}),
            Error("ERR unknown partition 'edu'"));
  auto mit = InfoOf("mit");
  EXPECT_EQ(mit["sites"], "1");
  EXPECT_EQ(mit["queued"], "1");
  EXPECT_EQ(mit["leased"], "1");
  EXPECT_EQ(UrlInfo(leased.str)["state"], "leased");
  EXPECT_EQ(UrlInfo(leased.str)["due"], due);
  EXPECT_EQ(Cmd({"POP", "PARTITION", "web"}), Bulk("http://www.example.com/1"));
  Reply other = Cmd({"POP", "PARTITION", "mit"});
  ASSERT_TRUE(other.IsString()) << other;
  EXPECT_NE(other.str, leased.str);
  // CONFIG GET's value is CONFIG SET's: it round-trips.
  ASSERT_EQ(Cmd({"CONFIG", "SET", "partition", "mit mit.edu\nweb com"}),
            StatusReply("OK"));
  EXPECT_EQ(Cmd({"PARTITION", "LIST"}), BulkArray({"default", "mit", "web"}));
  // The empty value leaves only default, which holds every site.
  ASSERT_EQ(Cmd({"CONFIG", "SET", "partition", ""}), StatusReply("OK"));
  EXPECT_EQ(Cmd({"PARTITION", "LIST"}), BulkArray({"default"}));
  EXPECT_EQ(InfoOf("default")["leased"], "3");
  EXPECT_EQ(InfoOf("default")["sites"], "2");
}

TEST_F(PartitionTest, AWaiterOnARemovedPartitionGetsAnError) {
  auto waiting = CmdAsync({"BPOP", "10", "PARTITION", "ex"});
  ASSERT_TRUE(WaitForBlockedClients(1));
  ASSERT_EQ(Cmd({"CONFIG", "SET", "partition", "edu edu"}), StatusReply("OK"));
  ASSERT_EQ(Cmd({"ADD", "http://example.com/"}), Int(1));
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiting.get(), Error("ERR unknown partition 'ex'"));
  EXPECT_EQ(UrlInfo("http://example.com/")["state"], "queued");
}

TEST_F(PartitionTest, RestartWithAnotherMapRemapsSites) {
  ASSERT_EQ(Cmd({"ADD", "http://cs.mit.edu/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://www.example.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://www.example.com/2"}), Int(1));
  ASSERT_TRUE(Cmd({"POP", "PARTITION", "ex"}).IsString());
  ASSERT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Restart(ArgsWith({"--partition", "all", "com", "edu"})));
  EXPECT_EQ(Cmd({"PARTITION", "LIST"}), BulkArray({"default", "all"}));
  auto all = InfoOf("all");
  EXPECT_EQ(all["sites"], "2");
  EXPECT_EQ(all["queued"], "2");
  EXPECT_EQ(all["leased"], "1");
  EXPECT_EQ(all["popped"], "0");  // since start
  Reply popped = Cmd({"POP", "COUNT", "5", "PARTITION", "all"});
  ASSERT_TRUE(popped.IsArray());
  EXPECT_EQ(popped.elements.size(), 2u);
}

TEST(PartitionConfigTest, ConfigRewriteKeepsTheMap) {
  TempDir dir;
  const std::string conf = dir.path() + "/frontierd.conf";
  {
    std::ofstream out(conf);
    out << "partition a x.com\npartition b y.org z.net\n";
  }
  FrontierdProcess server(DefaultTestArgs());
  server.set_config_file(conf);
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(server.Cmd({"PARTITION", "LIST"}),
            BulkArray({"default", "a", "b"}));
  ASSERT_EQ(server.Cmd({"CONFIG", "SET", "partition", "c x.com, d y.org"}),
            StatusReply("OK"));
  ASSERT_EQ(server.Cmd({"CONFIG", "REWRITE"}), StatusReply("OK"));
  const std::string text = ReadFile(conf);
  EXPECT_EQ(text.find("partition a"), std::string::npos) << text;
  ASSERT_EQ(server.Stop(), 0);
  ASSERT_TRUE(server.Restart());
  EXPECT_EQ(server.Cmd({"PARTITION", "LIST"}),
            BulkArray({"default", "c", "d"}));
  EXPECT_EQ(server.Cmd({"CONFIG", "GET", "partition"}),
            BulkArray({"partition", "c x.com\nd y.org"}));
  EXPECT_EQ(server.Stop(), 0);
}

TEST(PartitionConfigTest, ABadPartitionLineStopsTheStart) {
  TempDir dir;
  ProcessResult r =
      RunProcess({FrontierdBinary(), "--port", std::to_string(PickFreePort()),
                  "--bind", "127.0.0.1", "--dir", dir.path() + "/data",
                  "--partition", "a", "x.com", "--partition", "a", "y.com"},
                 "", seconds(10));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("partition 'a' is declared twice"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace frontier::itest
