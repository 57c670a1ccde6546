// FrontierImpl: crawls (issue 22). A crawl is a set of databases of its
// own in the one environment (CrawlFile() names them; the default crawl's
// are the directory's original files), registered by name in crawls.db.
// The verbs work on the members of FrontierImpl, which hold the current
// crawl: switching swaps them with the crawl's parked CrawlSpace. The
// per-site politeness state is shared through gate_. docs/design.md,
// "Crawls".
#include <algorithm>
#include <utility>

#include "storage/coding.h"
#include "storage/frontier_impl.h"

namespace frontier {

namespace {

// crawls.db: name -> id (4 bytes, big-endian); kNextIdKey -> the id the
// next crawl gets (ids are never reused, so a file name never means two
// crawls). A control character: no crawl name holds one.
constexpr std::string_view kNextIdKey = "\x01next-id";

// The databases of a crawl, in the order Open/Close/remove visit them.
struct CrawlDb {
  bdb::Database CrawlSpace::*member;
  const char* base;
  uint32_t page_size;
};
constexpr CrawlDb kCrawlDbs[] = {
    {&CrawlSpace::urls, "urls.db", 8192},
    {&CrawlSpace::queue, "queue.db", 0},
    {&CrawlSpace::timers, "timers.db", 0},
    {&CrawlSpace::sites, "sites.db", 0},
    {&CrawlSpace::meta, "meta.db", 0},
    {&CrawlSpace::excluded, "excluded.db", 0},
    {&CrawlSpace::data, "data.db", 8192},
};

std::string EncodeId(uint32_t id) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(id >> (24 - 8 * i));
  return out;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool DecodeCrawlId(std::string_view in, uint32_t* id) {
  if (in.size() != 4) return false;
  *id = 0;
  for (char c : in) *id = (*id << 8) | static_cast<uint8_t>(c);
  return true;
}

std::string CrawlFile(uint32_t id, const char* base) {
  if (id == 0) return base;
  return "crawl-" + std::to_string(id) + "-" + base;
}

bool Frontier::ValidCrawlName(std::string_view name) {
  if (name.empty() || name.size() > kMaxCrawlName) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  return !EqualsNoCase(name, "LIST") && !EqualsNoCase(name, "INFO") &&
         !EqualsNoCase(name, "DELETE");
}

void FrontierImpl::SwapCrawlState(CrawlSpace* c) {
  urls_.db().Swap(c->urls);
  queue_.db().Swap(c->queue);
  timers_.db().Swap(c->timers);
  sites_.db().Swap(c->sites);
  meta_.Swap(c->meta);
  excluded_.Swap(c->excluded);
  values_.db().Swap(c->data);
  std::swap(sched_, c->sched);
  std::swap(blocks_, c->blocks);
  std::swap(stats_, c->stats);
  part_counts_.Swap(&c->part_counts, &c->counted_partitions);
  sites_.SwapCache(&c->site_cache);
  tombstones_.Swap(&c->deleting);
  rechecks_.swap(c->rechecks);
  std::swap(scope_recheck_, c->scope_recheck);
  scope_recheck_next_.swap(c->scope_recheck_next);
  timers_.SwapMin(&c->timer_min);
}

void FrontierImpl::SwitchTo(CrawlSpace* space) {
  if (space == current_) return;
  Status s = EndOpenPass();
  if (!s.ok() && in_pass_) pass_error_ = s;
  // The journal serves one crawl's sites.db: it ends (until a start with
  // one crawl) before another crawl's state comes in.
  s = StopJournal();
  if (!s.ok()) {
    // What is pending stays in the log only: memory no longer matches
    // sites.db, so writes stop (a panic) until RetryWrites' reopen
    // replays the journal.
    write_failure_.Note(s);
    sites_.DisableJournal();
    (void)env_->set_flags(DB_PANIC_ENVIRONMENT, 1);
  }
  SwapCrawlState(current_);
  SwapCrawlState(space);
  current_ = space;
  crawl_name_ = space->name;
  crawl_id_ = space->id;
}

Status FrontierImpl::UseCrawl(std::string_view name) {
  if (name == crawl_name_) return Status::OK();
  if (closed_) return Status::IOError("frontier is closed");
  auto it = crawls_.find(name);
  if (it != crawls_.end()) {
    SwitchTo(it->second.get());
    return Status::OK();
  }
  if (!ValidCrawlName(name)) {
    return Status::InvalidArgument(
        "invalid crawl name: 1 to 255 bytes, no spaces or control "
        "characters, and not LIST, INFO or DELETE");
  }
  return CreateCrawl(name);
}

Status FrontierImpl::OpenCrawlDatabases(CrawlSpace* space, DbTxn* txn) {
  for (const CrawlDb& d : kCrawlDbs) {
    const std::string file = CrawlFile(space->id, d.base);
    Status s =
        (space->*d.member).OpenIn(env_.get(), txn, file.c_str(), d.page_size);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status FrontierImpl::CreateCrawl(std::string_view name) {
  // The pass's writes so far commit first, as at any switch of crawl: the
  // creation has a transaction of its own, and the rebuild below reads the
  // current crawl's site records, which must hold those writes.
  if (Status s = EndOpenPass(); !s.ok()) {
    if (in_pass_) pass_error_ = s;
    return s;
  }
  auto space = std::make_unique<CrawlSpace>();
  space->id = next_crawl_id_;
  space->name = std::string(name);
  bdb::Txn txn;
  Status s = txn.Begin(env_.get());
  if (s.ok()) s = OpenCrawlDatabases(space.get(), txn.get());
  if (s.ok()) s = crawls_db_.Put(txn.get(), name, EncodeId(space->id));
  if (s.ok())
    s = crawls_db_.Put(txn.get(), kNextIdKey, EncodeId(space->id + 1));
  if (s.ok()) {
    s = txn.Commit();
  } else {
    txn.Abort();
  }
  if (!s.ok()) {
    // Handles opened in an aborted transaction are closed, not used.
    for (const CrawlDb& d : kCrawlDbs)
      (void)(space.get()->*d.member).CloseWithoutSync();
    write_failure_.Note(s);
    return s;
  }
  commit_seq_.fetch_add(1, std::memory_order_release);
  ++next_crawl_id_;
  // The new files' directory entries, as at first start.
  if (Status ds = durability_.SyncDirectory(); !ds.ok()) return ds;
  if (!gate_on_) {
    // The first crawl beside the default one: from now on the crawls
    // share their sites' politeness, so the gate learns the default's
    // (the rebuild's pass over its site records feeds it).
    gate_on_ = true;
    if (Status gs = RebuildScheduler(); !gs.ok()) return gs;
  }
  CrawlSpace* raw = space.get();
  crawls_.emplace(raw->name, std::move(space));
  SwitchTo(raw);
  return RebuildScheduler();  // sizes its partition counts; reads nothing
}

Status FrontierImpl::LoadCrawlCounters() {
  std::string stats;
  Status s = meta_.Get(nullptr, "stats", &stats);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  if (!DecodeStats(stats, &stats_)) {
    return Status::Corruption("undecodable counters of crawl " + crawl_name_);
  }
  return Status::OK();
}

Status FrontierImpl::OpenCrawls() {
  // The default crawl (the members, already open) is current.
  auto home = std::make_unique<CrawlSpace>();
  home->name = std::string(kDefaultCrawl);
  current_ = home.get();
  crawl_name_ = home->name;
  crawl_id_ = 0;
  crawls_.clear();
  crawls_.emplace(home->name, std::move(home));
  gate_.Clear();
  Status s = crawls_db_.Open(env_.get(), "crawls.db", 0);
  if (!s.ok()) return s;
  std::vector<std::pair<std::string, uint32_t>> registered;
  next_crawl_id_ = 1;
  {
    bdb::Cursor cursor;
    s = cursor.Open(&crawls_db_, nullptr);
    std::string key, value;
    if (s.ok()) s = cursor.First(&key, &value);
    while (s.ok()) {
      uint32_t id = 0;
      if (!DecodeCrawlId(value, &id)) {
        return Status::Corruption("undecodable crawl registry record");
      }
      if (key == kNextIdKey) {
        next_crawl_id_ = std::max(next_crawl_id_, id);
      } else {
        registered.emplace_back(key, id);
        next_crawl_id_ = std::max(next_crawl_id_, id + 1);
      }
      s = cursor.Next(&key, &value);
    }
    if (!s.IsNotFound()) return s;
  }
  if (registered.empty()) return MarkLegacyRechecks();
  // More than one crawl: the default crawl's sites feed the gate (a second
  // pass over them, at start only when there are crawls), and each
  // crawl's as its scheduler is rebuilt below.
  gate_on_ = true;
  s = RebuildScheduler();
  CrawlSpace* home_space = current_;
  for (auto& [name, id] : registered) {
    if (!s.ok()) break;
    auto space = std::make_unique<CrawlSpace>();
    space->id = id;
    space->name = name;
    s = OpenCrawlDatabases(space.get(), nullptr);
    CrawlSpace* raw = space.get();
    crawls_.emplace(name, std::move(space));
    if (!s.ok()) break;
    SwitchTo(raw);
    s = LoadCrawlCounters();
    if (s.ok()) s = RebuildScheduler();  // feeds the gate (gate_on_)
    if (s.ok()) s = LoadRechecks();
    if (s.ok()) s = tombstones_.Load(&meta_, ByHost());
    if (s.ok()) s = LoadScopeRecheck();
  }
  SwitchTo(home_space);
  if (s.ok()) s = MarkLegacyRechecks();
  return s;
}

Status FrontierImpl::CloseCrawls(bool sync) {
  Status result;
  if (current_ != nullptr) {
    // The default crawl's state goes back to the members, which the
    // caller closes with the shared databases.
    auto home = crawls_.find(kDefaultCrawl);
    if (home != crawls_.end() && home->second.get() != current_) {
      SwapCrawlState(current_);
      SwapCrawlState(home->second.get());
    }
  }
  for (auto& [name, space] : crawls_) {
    for (const CrawlDb& d : kCrawlDbs) {
      bdb::Database& db = space.get()->*d.member;
      Status s = sync ? db.Close() : db.CloseWithoutSync();
      if (result.ok()) result = s;
    }
  }
  Status s = sync ? crawls_db_.Close() : crawls_db_.CloseWithoutSync();
  if (result.ok()) result = s;
  crawls_.clear();
  current_ = nullptr;
  crawl_name_ = std::string(kDefaultCrawl);
  crawl_id_ = 0;
  gate_.Clear();
  gate_on_ = false;
  return result;
}

std::vector<std::string> FrontierImpl::ListCrawls() const {
  std::vector<std::string> names;
  names.emplace_back(kDefaultCrawl);
  for (const auto& [name, space] : crawls_) {
    if (space->id != 0) names.push_back(name);
  }
  return names;
}

std::optional<FrontierStats> FrontierImpl::CrawlStats(
    std::string_view name) const {
  if (name == crawl_name_) return Stats();
  auto it = crawls_.find(name);
  if (it == crawls_.end()) return std::nullopt;
  const CrawlSpace& c = *it->second;
  FrontierStats s = c.stats;
  s.ready_sites = c.sched.ready_count();
  s.blocked_sites = c.blocks.count();
  return s;
}

StatusOr<bool> FrontierImpl::DeleteCrawl(std::string_view name) {
  if (name == kDefaultCrawl) {
    return Status::InvalidArgument("the DEFAULT crawl cannot be deleted");
  }
  if (!ValidCrawlName(name))
    return Status::InvalidArgument("invalid crawl name");
  if (closed_) return Status::IOError("frontier is closed");
  auto it = crawls_.find(name);
  if (it == crawls_.end()) return false;
  CrawlSpace* victim = it->second.get();
  // Its state parks in its entry: a transaction holds one crawl's writes,
  // so none of the crawl's is open once it is not current.
  if (victim == current_) SwitchTo(crawls_.find(kDefaultCrawl)->second.get());
  // dbremove needs the files closed. Their dirty pages are dropped, not
  // written: the files go.
  for (const CrawlDb& d : kCrawlDbs)
    (void)(victim->*d.member).CloseWithoutSync();
  bdb::Txn txn;
  Status s = txn.Begin(env_.get());
  if (s.ok()) s = crawls_db_.Delete(txn.get(), name);
  for (const CrawlDb& d : kCrawlDbs) {
    if (!s.ok()) break;
    const std::string file = CrawlFile(victim->id, d.base);
    s = bdb::FromDb(env_->dbremove(txn.get(), file.c_str(), nullptr, 0),
                    "dbremove " + file);
  }
  if (s.ok()) {
    s = txn.Commit();
  } else {
    txn.Abort();
  }
  if (!s.ok()) {
    // The crawl stays: open its files again.
    write_failure_.Note(s);
    (void)OpenCrawlDatabases(victim, nullptr);
    return s;
  }
  commit_seq_.fetch_add(1, std::memory_order_release);
  gate_.ForgetCrawl(victim->id);
  crawls_.erase(it);
  if (crawls_.size() == 1) {
    gate_on_ = false;
    gate_.Clear();
  }
  if (Status ds = durability_.SyncDirectory(); !ds.ok()) return ds;
  return true;
}

StatusOr<TickResult> FrontierImpl::Tick(int64_t now_ms) {
  if (Status p = CatchUpPromotion(); !p.ok()) return p;
  if (crawls_.size() <= 1) return TickCrawl(now_ms);
  CrawlSpace* home = current_;
  TickResult total;
  Status failed;
  for (auto& [name, space] : crawls_) {
    CrawlSpace* c = space.get();
    const bool due = c == current_ ||
                     (c->timer_min && *c->timer_min <= now_ms) ||
                     !c->rechecks.empty() || !c->deleting.empty() ||
                     c->scope_recheck.running;
    if (!due) continue;
    SwitchTo(c);
    StatusOr<TickResult> r = TickCrawl(now_ms);
    if (!r.ok()) {
      failed = r.status();
      break;
    }
    total.expired += r->expired;
    total.requeued += r->requeued;
    total.more_due = total.more_due || r->more_due;
  }
  SwitchTo(home);
  if (!failed.ok()) return failed;
  return total;
}

std::optional<int64_t> FrontierImpl::NextWakeMs() const {
  std::optional<int64_t> wake;
  auto take = [&wake](std::optional<int64_t> t) {
    if (t && (!wake || *t < *wake)) wake = t;
  };
  take(sched_.NextWakeMs());
  take(timers_.min());
  for (const auto& [name, space] : crawls_) {
    if (space.get() == current_) continue;
    take(space->sched.NextWakeMs());
    take(space->timer_min);
  }
  return wake;
}

void FrontierImpl::GateSet(uint64_t site_fp, const SiteRecord& site,
                           int64_t now_ms) {
  HostGate::Hold hold;
  hold.leases = site.leases;
  hold.until_ms = std::max(site.next_allowed_ms, site.block_until_ms);
  if (hold.until_ms <= now_ms) hold.until_ms = 0;
  gate_.Set(crawl_id_, site_fp, hold);
}

bool FrontierImpl::GateHolds(uint64_t site_fp, const SiteRecord& site,
                             int64_t now_ms) const {
  const HostGate::Hold others = gate_.Others(crawl_id_, site_fp);
  if (others.until_ms > now_ms) return true;
  const uint64_t cap = opts_.site_max_leases;
  return cap != 0 && others.leases > 0 && site.leases + others.leases >= cap;
}

}  // namespace frontier
