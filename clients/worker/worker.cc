#include "worker.h"

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/str_cat.h"
#include "links.h"
#include "report.h"

namespace worker {
namespace {

using frontier_client::CommandArgs;
using frontier_client::Connection;
using frontier_client::ReplyPtr;
using frontier_client::StrCat;
using Clock = std::chrono::steady_clock;

// BPOP waits at most this long, so that a stop is never held up by it for
// longer (its URLs are handed back when it returns during a stop).
constexpr int kBpopTimeoutSecs = 1;
// How long one wait lasts when nothing happens; also the pause before
// BPOP is sent again after an error reply.
constexpr std::chrono::milliseconds kPollTimeout{1000};
constexpr std::chrono::milliseconds kBpopErrorPause{1000};
// Between two attempts to reconnect to a lost frontierd.
constexpr std::chrono::milliseconds kReconnectPause{1000};

std::string Text(const redisReply& r) { return std::string(r.str, r.len); }

// A reply that says this connection no longer reaches the master of a
// replication group: its site became a replica. The worker reconnects,
// asking --sentinels where the master is now.
bool LeftTheMaster(const redisReply& r) {
  return r.type == REDIS_REPLY_ERROR && Text(r).starts_with("READONLY");
}

std::unique_ptr<Connection> Connect(const Options& o, const std::string& host,
                                    int port, std::string* error) {
  return o.tls ? Connection::OpenTls(host, port, o.password, o.tls_options,
                                     error)
               : Connection::Open(host, port, o.password, error);
}

// "host:port" (or "[v6]:port") into its host and port.
void SplitAddress(const std::string& address, std::string* host, int* port) {
  const size_t colon = address.rfind(':');
  *host = address.substr(0, colon);
  if (host->size() > 2 && host->front() == '[') {
    *host = host->substr(1, host->size() - 2);  // [ipv6]
  }
  *port = std::stoi(address.substr(colon + 1));
}

// With --sentinels: asks the group's sites, in order, where its master is
// (docs/replication.md, "Finding the master").
bool FindMaster(const Options& o, std::string* host, int* port,
                std::string* error) {
  std::string why_not;
  for (const std::string& site : o.sentinels) {
    std::string site_host;
    int site_port = 0;
    SplitAddress(site, &site_host, &site_port);
    std::string failed;
    auto conn = Connect(o, site_host, site_port, &failed);
    if (!conn) {
      why_not += StrCat(site, ": ", failed, "; ");
      continue;
    }
    CommandArgs ask;
    ask.Push("SENTINEL");
    ask.Push("GET-MASTER-ADDR-BY-NAME");
    ask.Push(o.repl_name);
    ReplyPtr reply = conn->Call(ask);
    if (reply && reply->type == REDIS_REPLY_ARRAY && reply->elements == 2 &&
        reply->element[0]->type == REDIS_REPLY_STRING &&
        reply->element[1]->type == REDIS_REPLY_STRING) {
      *host = Text(*reply->element[0]);
      *port = std::atoi(Text(*reply->element[1]).c_str());
      return true;
    }
    why_not += StrCat(site, ": ",
                      !reply ? conn->Error()
                      : reply->type == REDIS_REPLY_ERROR
                          ? Text(*reply)
                          : std::string("knows no master now"),
                      "; ");
  }
  *error = StrCat("no site of --sentinels names the master of ", o.repl_name,
                  ": ", why_not);
  return false;
}

std::unique_ptr<Connection> OpenConnection(const Options& o, std::string* error);

// With --nodes: the first node that answers PING, trying them in turn from
// a place that moves on with every connect (so that the connections of
// workers, and reconnects after a node fails, spread over the nodes).
std::unique_ptr<Connection> OpenAnyNode(const Options& o, std::string* error) {
  static size_t next = 0;
  const size_t start = next++;
  std::string why_not;
  for (size_t k = 0; k < o.nodes.size(); ++k) {
    Options one = o;
    one.nodes.clear();
    SplitAddress(o.nodes[(start + k) % o.nodes.size()], &one.host, &one.port);
    std::string failed;
    auto conn = OpenConnection(one, &failed);
    if (conn) return conn;
    why_not += StrCat(o.nodes[(start + k) % o.nodes.size()], ": ", failed, "; ");
  }
  *error = StrCat("no node of --nodes answers: ", why_not);
  return nullptr;
}

// Opens a connection and checks it: with PING (over TLS 1.3 a server that
// refuses the client's certificate says so only after the handshake), or,
// with --sentinels, with ROLE on the master the sites name.
std::unique_ptr<Connection> OpenConnection(const Options& o,
                                           std::string* error) {
  if (!o.nodes.empty()) return OpenAnyNode(o, error);
  std::string host = o.host;
  int port = o.port;
  if (!o.sentinels.empty() && !FindMaster(o, &host, &port, error)) {
    return nullptr;
  }
  auto conn = Connect(o, host, port, error);
  if (!conn) return nullptr;
  CommandArgs check;
  check.Push(o.sentinels.empty() ? "PING" : "ROLE");
  ReplyPtr reply = conn->Call(check);
  if (!reply || reply->type == REDIS_REPLY_ERROR) {
    *error = StrCat(o.sentinels.empty() ? "PING" : "ROLE", " to ", host, ":",
                    port, ": ", reply ? Text(*reply) : conn->Error());
    return nullptr;
  }
  if (!o.sentinels.empty() &&
      (reply->type != REDIS_REPLY_ARRAY || reply->elements == 0 ||
       Text(*reply->element[0]) != "master")) {
    *error = StrCat(host, ":", port, " is not the master (yet)");
    return nullptr;
  }
  return conn;
}

}  // namespace

std::unique_ptr<Worker> Worker::Create(const Options& o, std::string* error) {
  auto lease = OpenConnection(o, error);
  if (!lease) return nullptr;
  auto report = OpenConnection(o, error);
  if (!report) return nullptr;
  FetchSettings settings;
  settings.user_agent = o.user_agent;
  settings.connect_timeout_ms = static_cast<long>(o.connect_timeout * 1000);
  settings.timeout_ms = static_cast<long>(o.timeout * 1000);
  settings.max_bytes = o.max_bytes;
  settings.max_redirects = o.max_redirects;
  auto fetcher = Fetcher::Create(settings, error);
  if (!fetcher) return nullptr;
  std::unique_ptr<PageStore> store;
  if (!o.save_dir.empty()) {
    store = PageStore::Open(o.save_dir, error);
    if (!store) return nullptr;
  }
  return std::unique_ptr<Worker>(
      new Worker(o, std::move(lease), std::move(report), std::move(fetcher),
                 std::move(store)));
}

Worker::Step Worker::RunOnce(int stop_fd) {
  // Hand-backs wait for an outstanding BPOP (at most kBpopTimeoutSecs):
  // it could otherwise lease a URL just handed back.
  if (stopping_ && fetcher_->in_flight() > 0 && Clock::now() >= grace_end_ &&
      !bpop_outstanding_) {
    if (!HandBackAll(fetcher_->AbortAll())) return Step::kLost;
  }
  if (stopping_ && fetcher_->in_flight() == 0 && !bpop_outstanding_) {
    return Step::kStopped;
  }
  int room = o_.concurrency - static_cast<int>(fetcher_->in_flight());
  if (!stopping_ && !bpop_outstanding_ && room > 0 &&
      Clock::now() >= next_bpop_ && !SendBpop(room)) {
    return Step::kLost;
  }

  std::vector<curl_waitfd> fds;
  fds.push_back({stop_fd, CURL_WAIT_POLLIN, 0});
  if (bpop_outstanding_) fds.push_back({lease_->fd(), CURL_WAIT_POLLIN, 0});
  auto timeout = kPollTimeout;
  auto grace_left = std::chrono::duration_cast<std::chrono::milliseconds>(
      grace_end_ - Clock::now());
  if (stopping_ && grace_left.count() >= 0) {
    timeout = std::min(timeout, grace_left + std::chrono::milliseconds(1));
  }
  fetcher_->Wait(fds, timeout);

  for (const FetchResult& r : fetcher_->Collect()) {
    if (!Report(r)) return Step::kLost;
  }
  if (fds[0].revents != 0) {
    char signals[16];
    ssize_t n = read(stop_fd, signals, sizeof signals);
    if (n > 0 && !stopping_) {
      stopping_ = true;
      grace_end_ = Clock::now() + std::chrono::milliseconds(
                                      static_cast<int64_t>(o_.grace * 1000));
      if (n > 1) grace_end_ = Clock::now();
      std::fprintf(stderr,
                   "frontier-worker: stopping: %zu fetches in flight get "
                   "%.1f s (a second signal ends them now)\n",
                   fetcher_->in_flight(), n > 1 ? 0.0 : o_.grace);
    } else if (n > 0) {
      grace_end_ = Clock::now();
    }
  }
  if (bpop_outstanding_ && fds.size() > 1 && fds[1].revents != 0) {
    bool failed = false;
    ReplyPtr reply = lease_->ReadAvailable(&failed);
    if (failed) return Step::kLost;
    if (reply) {
      bpop_outstanding_ = false;
      if (!OnLeases(*reply)) return Step::kLost;
    }
  }
  return Step::kGoOn;
}

bool Worker::Run(int stop_fd, std::string* error) {
  for (;;) {
    Step step = RunOnce(stop_fd);
    if (step == Step::kStopped) return true;
    if (step == Step::kLost && !Reconnect(stop_fd, error)) {
      return error->empty();  // empty: a signal stopped the attempts
    }
  }
}

bool Worker::Reconnect(int stop_fd, std::string* error) {
  std::string why = StrCat(lease_->Error(), " / ", report_->Error());
  // What is in flight cannot be reported on a new connection after a lost
  // one (a report may have been applied or not): those leases expire on
  // the server and the pages are fetched again.
  fetcher_->AbortAll();
  bpop_outstanding_ = false;
  if (stopping_ || o_.reconnect <= 0) {
    *error = StrCat("lost frontierd: ", why);
    return false;
  }
  std::fprintf(stderr,
               "frontier-worker: lost frontierd (%s); reconnecting for up to "
               "%.0f s\n",
               why.c_str(), o_.reconnect);
  auto deadline = Clock::now() + std::chrono::milliseconds(
                                     static_cast<int64_t>(o_.reconnect * 1000));
  std::string last_error;
  for (;;) {
    pollfd stop = {stop_fd, POLLIN, 0};
    if (poll(&stop, 1, static_cast<int>(kReconnectPause.count())) > 0) {
      char signals[16];
      if (read(stop_fd, signals, sizeof signals) > 0) {
        stopping_ = true;
        return false;
      }
    }
    last_error.clear();
    auto lease = OpenConnection(o_, &last_error);
    auto report = lease ? OpenConnection(o_, &last_error) : nullptr;
    if (lease && report) {
      lease_ = std::move(lease);
      report_ = std::move(report);
      std::fprintf(stderr, "frontier-worker: reconnected\n");
      return true;
    }
    if (Clock::now() >= deadline) {
      *error = StrCat("lost frontierd (", why, ") and could not reconnect in ",
                      static_cast<int64_t>(o_.reconnect), " s: ", last_error);
      return false;
    }
  }
}

bool Worker::SendBpop(int count) {
  CommandArgs args;
  args.Push("BPOP");
  args.PushNumber(kBpopTimeoutSecs);
  args.Push("COUNT");
  args.PushNumber(count);
  std::string lease_text;
  if (o_.lease > 0) {
    lease_text = FormatSeconds(o_.lease);
    args.Push("LEASE");
    args.Push(lease_text);
  }
  // A cluster: URLs of every shard, not only of the node reached.
  if (!o_.nodes.empty()) args.Push("ANYSHARD");
  lease_->Append(args);
  if (!lease_->Flush()) return false;
  bpop_outstanding_ = true;
  return true;
}

std::optional<bool> Worker::FrontierDrained() {
  CommandArgs args;
  args.Push("STATS");
  if (!o_.nodes.empty()) args.Push("CLUSTER");  // every shard's counters
  ReplyPtr reply = report_->Call(args);
  if (!reply) return std::nullopt;
  if (reply->type != REDIS_REPLY_ARRAY) {
    ++totals_.errors;
    std::fprintf(stderr, "frontier-worker: STATS: %s\n", Text(*reply).c_str());
    return false;
  }
  long long queued = -1, leased = -1;
  for (size_t i = 0; i + 1 < reply->elements; i += 2) {
    const std::string name = Text(*reply->element[i]);
    const redisReply& value = *reply->element[i + 1];
    if (value.type != REDIS_REPLY_INTEGER) continue;
    if (name == "queued") queued = value.integer;
    if (name == "leased") leased = value.integer;
  }
  return queued == 0 && leased == 0;
}

bool Worker::OnLeases(const redisReply& reply) {
  if (reply.type == REDIS_REPLY_NIL) {  // timed out
    // Nothing in flight here and nothing queued or leased anywhere: no
    // fetch can bring a new link, so the crawl is over.
    if (o_.exit_when_done && !stopping_ && fetcher_->in_flight() == 0) {
      std::optional<bool> drained = FrontierDrained();
      if (!drained) return false;
      if (*drained) {
        stopping_ = true;
        done_ = true;
      }
    }
    return true;
  }
  if (LeftTheMaster(reply)) {
    std::fprintf(stderr, "frontier-worker: BPOP: %s\n", Text(reply).c_str());
    return false;  // reconnect to the master
  }
  if (reply.type == REDIS_REPLY_ERROR) {
    // E.g. MISCONF: nothing was leased; wait before asking again.
    std::fprintf(stderr, "frontier-worker: BPOP: %s\n", Text(reply).c_str());
    ++totals_.errors;
    next_bpop_ = Clock::now() + kBpopErrorPause;
    return true;
  }
  if (reply.type != REDIS_REPLY_ARRAY) return false;
  if (stopping_ && Clock::now() >= grace_end_) {
    // Leased after the grace period: given back unfetched. (Leased during
    // it, they are fetched like the others: a hand-back costs an attempt.)
    std::vector<std::string> urls;
    for (size_t i = 0; i < reply.elements; ++i) {
      if (reply.element[i]->type == REDIS_REPLY_STRING) {
        ++totals_.leased;
        urls.push_back(Text(*reply.element[i]));
      }
    }
    return HandBackAll(urls);
  }
  std::vector<std::string> refused;
  for (size_t i = 0; i < reply.elements; ++i) {
    const redisReply& e = *reply.element[i];
    if (e.type != REDIS_REPLY_STRING) continue;
    ++totals_.leased;
    std::string url = Text(e);
    if (!fetcher_->Start(url)) refused.push_back(std::move(url));
  }
  // URLs libcurl would not start go back as transient failures.
  for (const std::string& url : refused) {
    FetchResult r;
    r.url = url;
    r.error = CURLE_FAILED_INIT;
    if (!Report(r)) return false;
  }
  return true;
}

bool Worker::Send(const std::vector<std::vector<std::string>>& commands,
                  std::vector<ReplyPtr>* replies) {
  for (const auto& command : commands) {
    CommandArgs args;
    for (const std::string& a : command) args.Push(a);
    report_->Append(args);
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    ReplyPtr reply = report_->Next();
    if (!reply) return false;
    if (LeftTheMaster(*reply)) {
      // Nothing was stored: the lease expires on the new master, and
      // the page is fetched again.
      std::fprintf(stderr, "frontier-worker: %s: %s\n",
                   commands[i][0].c_str(), Text(*reply).c_str());
      return false;
    }
    if (reply->type == REDIS_REPLY_ERROR) {
      ++totals_.errors;
      std::fprintf(stderr, "frontier-worker: %s %s: %s\n",
                   commands[i][0].c_str(), commands[i][1].c_str(),
                   Text(*reply).c_str());
    }
    replies->push_back(std::move(reply));
  }
  return true;
}

bool Worker::Report(const FetchResult& r) {
  Outcome outcome = Classify(r);
  std::vector<std::string> links;
  if (outcome == Outcome::kFetched && !IsRobotsUrl(r.url) && LooksLikeHtml(r)) {
    links = ExtractLinks(r.body, r.final_url);
  }
  if (outcome != Outcome::kTransient) ++totals_.fetched;
  if (store_ && outcome == Outcome::kFetched) {
    std::string error;
    if (!store_->Save(r, &error)) {
      std::fprintf(stderr, "frontier-worker: --save-dir: %s\n", error.c_str());
    }
  }
  std::vector<Command> commands = BuildReport(r, links, o_);
  std::vector<ReplyPtr> replies;
  if (!Send(commands, &replies)) return false;

  int64_t new_links = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::string& verb = commands[i][0];
    const redisReply& reply = *replies[i];
    if (verb == "MADD" && reply.type == REDIS_REPLY_ARRAY) {
      for (size_t j = 0; j < reply.elements; ++j) {
        const redisReply& e = *reply.element[j];
        if (e.type == REDIS_REPLY_INTEGER && e.integer == 1) ++new_links;
      }
    } else if (verb == "CONFIRM" && commands[i][1] == r.url) {
      if (reply.type == REDIS_REPLY_INTEGER && reply.integer == 1) {
        ++totals_.confirmed;
      }
    } else if (verb == "FAIL") {
      ++totals_.failed;
    }
  }
  totals_.links += static_cast<int64_t>(links.size());
  totals_.new_links += new_links;
  Log(r, links.size(), new_links);
  return true;
}

bool Worker::HandBackAll(const std::vector<std::string>& urls) {
  if (urls.empty()) return true;
  std::vector<Command> commands;
  for (const std::string& url : urls) commands.push_back(HandBack(url, o_));
  std::vector<ReplyPtr> replies;
  if (!Send(commands, &replies)) return false;
  totals_.handed_back += static_cast<int64_t>(urls.size());
  if (!o_.quiet) {
    for (const std::string& url : urls) {
      std::printf("handed back %s\n", url.c_str());
    }
    std::fflush(stdout);
  }
  return true;
}

void Worker::Log(const FetchResult& r, size_t links, int64_t new_links) {
  if (o_.quiet) return;
  std::string what;
  if (r.error != CURLE_OK) {
    what = StrCat("ERR ", std::string_view(r.error_text));
  } else {
    what = StrCat(r.status);
  }
  Outcome outcome = Classify(r);
  const char* action = outcome == Outcome::kTransient ? "FAIL" : "CONFIRM";
  std::printf("%s %lldms %zuB links %zu new %lld %s %s%s%s%s\n", what.c_str(),
              static_cast<long long>(r.elapsed_ms), r.body.size(), links,
              static_cast<long long>(new_links), action, r.url.c_str(),
              r.redirects > 0 ? " -> " : "",
              r.redirects > 0 ? r.final_url.c_str() : "",
              r.truncated ? " (truncated)" : "");
  std::fflush(stdout);
}

}  // namespace worker
