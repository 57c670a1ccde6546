// The pieces every workload is built from: the stop flag a run's connections
// share, a budget they claim work from, one pipelined round trip with its
// timing, the reply counters, the thread harness that times only the phase it
// runs, and the URL lists and add plan generated before any clock starts.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client.h"
#include "common/str_cat.h"
#include "options.h"
#include "workloads.h"

namespace bench {

uint64_t NowNanos();
uint64_t HashUrl(std::string_view url);

// Shared by all connections of one phase. o must outlive it.
struct Shared {
  explicit Shared(const Options& opts) : o(opts), verbs(opts.target) {}
  const Options& o;
  Verbs verbs;
  std::atomic<bool> stop{false};
  std::atomic<bool> hit_duration{false};
  uint64_t deadline = 0;  // NowNanos() value; 0 = none

  // True once any connection failed or --duration has passed.
  bool ShouldStop();
};

// A pool of URLs (or pages) that connections claim in chunks.
class Budget {
 public:
  explicit Budget(int64_t total) : left_(total) {}
  // Takes up to want; returns how many were granted (0 when spent).
  int Claim(int want);
  // Gives back part of a claim that was not used.
  void Return(int n);

 private:
  std::atomic<int64_t> left_;
};

// How long POP has given nothing; a connection stops after --idle-wait.
class IdleWait {
 public:
  explicit IdleWait(double seconds)
      : limit_(static_cast<uint64_t>(seconds * 1e9)) {}
  // After a POP that gave something.
  void Reset() { since_ = 0; }
  // After an empty POP: false once POP has been empty for the whole wait,
  // else pauses a moment (2 ms) before the caller retries and returns true.
  bool Continue();

 private:
  uint64_t limit_;
  uint64_t since_ = 0;
};

// URLs in one buffer with their end offsets: no allocation per URL, even for
// millions of them.
class UrlList {
 public:
  void Append(std::string_view url) {
    bytes_.append(url);
    ends_.push_back(bytes_.size());
  }
  void AppendAll(const UrlList& other);
  size_t size() const { return ends_.size(); }
  // Valid until the next Append.
  std::string_view operator[](size_t i) const {
    size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_).substr(begin, ends_[i] - begin);
  }

 private:
  std::string bytes_;
  std::vector<uint64_t> ends_;
};

// The commands of one round trip, and the timing of each reply: latency of a
// request is from the moment the round is written to its own reply.
class Pipe {
 public:
  Pipe(Connection& conn, Counters& counters) : conn_(conn), c_(counters) {}

  void Queue(Verb verb, CommandArgs& args) {
    conn_.Append(args);
    verbs_.push_back(verb);
  }
  bool empty() const { return verbs_.empty(); }

  // Reads one reply per queued command, in order, and hands each to
  // on_reply(verb, reply). Top-level error replies are counted here. Returns
  // false on an I/O error (the connection is then unusable).
  template <typename OnReply>
  bool Flush(OnReply&& on_reply) {
    uint64_t sent = NowNanos();
    for (Verb verb : verbs_) {
      ReplyPtr reply = conn_.Next();
      if (!reply) {
        c_.NoteError(frontier_client::StrCat("connection: ", conn_.Error()));
        c_.io_failed = true;
        verbs_.clear();
        return false;
      }
      c_.latency[verb].Record(NowNanos() - sent);
      ++c_.commands[verb];
      if (reply->type == REDIS_REPLY_ERROR) {
        c_.NoteError(std::string_view(reply->str, reply->len));
        continue;
      }
      on_reply(verb, reply.get());
    }
    verbs_.clear();
    return true;
  }

 private:
  Connection& conn_;
  Counters& c_;
  std::vector<Verb> verbs_;
};

// Counts one ADD reply, or one element of a MADD reply.
void CountAddReply(const redisReply* r, Counters& c);
// Counts a CONFIRM reply: :1, :0, or an error for anything else.
void CountConfirmReply(const redisReply* r, Counters& c);

// Hands each URL of a POP reply (nil, bulk, or array of bulks) to
// on_url(std::string_view), which must copy what it keeps; counts them in
// c.popped with their hashes in c.popped_hashes. Returns how many.
template <typename OnUrl>
size_t TakePopReply(const redisReply* r, Counters& c, OnUrl&& on_url) {
  size_t n = 0;
  auto take = [&](const redisReply* e) {
    if (e->type != REDIS_REPLY_STRING) {
      c.NoteError("POP returned a non-string element");
      return;
    }
    std::string_view url(e->str, e->len);
    c.popped_hashes.push_back(HashUrl(url));
    on_url(url);
    ++n;
  };
  if (r->type == REDIS_REPLY_STRING) {
    take(r);
  } else if (r->type == REDIS_REPLY_ARRAY) {
    for (size_t i = 0; i < r->elements; ++i) take(r->element[i]);
  } else if (r->type != REDIS_REPLY_NIL) {
    c.NoteError("POP reply is not nil, a bulk string or an array");
  }
  c.popped += n;
  return n;
}

using Connections = std::vector<std::unique_ptr<Connection>>;

// Opens o.connections connections; empty (and *error set) if one fails.
Connections OpenAll(const Options& o, std::string* error);

// Runs body(i, conn, counters) on one thread per connection, all released at
// once; result gets the seconds of the bodies alone, their merged counters,
// and whether o.duration stopped them.
void RunThreads(const Options& o, Shared& shared, RunResult& result,
                const std::function<void(int, Connection&, Counters&)>& body,
                Connections& conns);

// [begin, end) of part i when total items are shared evenly among parts.
std::pair<size_t, size_t> SliceOf(size_t total, int parts, int i);

// Every URL of an add run once, and the order of the ADDs as indexes into it.
struct AddPlan {
  UrlList urls;
  std::vector<uint32_t> ops;
};

// o.ops ADDs, of which (1 - dup_ratio)·o.ops unique URLs on sites drawn
// uniformly from o.sites, the rest repeats, shuffled. tag goes into every
// path (SyntheticWeb), so plans with different tags never share a URL.
AddPlan MakeAddPlan(const Options& o, std::string_view tag, double dup_ratio);

// ADDs plan.ops[begin, end), s.o.pipeline per round trip.
void AddWorker(Shared& s, const AddPlan& plan, size_t begin, size_t end,
               Connection& conn, Counters& c);

// CONFIRMs urls[begin, end), s.o.pipeline per round trip.
void ConfirmWorker(Shared& s, const UrlList& urls, size_t begin, size_t end,
                   Connection& conn, Counters& c);

// POPs (and nothing else) until budget is spent, --duration, or POP has given
// nothing for s.o.idle_wait seconds: s.o.pipeline URLs per round trip in POPs
// of up to s.o.pop_count each. Every URL popped is appended to *popped.
void PopWorker(Shared& s, Budget& budget, Connection& conn, Counters& c,
               UrlList* popped);

}  // namespace bench
