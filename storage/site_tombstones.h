// SiteTombstones: the sites whose URL records are being removed after a
// SITE DELETE too large for one transaction (docs/design.md, "Deleting a
// large site"): a tombstone per site in the crawl's meta.db
// ("deleting:<fp>"), and in memory the urls.db key each site's next
// removal slice starts at.
//
// While a site has a tombstone its URL records read as absent
// (IsDeleted) and no URL may be added to it. The position is not stored:
// after a restart a removal starts over at the site's first key (host
// scope) or at the first record of urls.db (domain scope), which is where
// Add() and Load() start it.
//
// Owned by FrontierImpl; the meta.db given is the current crawl's, and
// switching crawls swaps the memory (Swap). The tombstone's writes go in
// the caller's transaction; the memory follows once it committed. Loop
// thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "storage/bdb.h"
#include "storage/records.h"
#include "util/status.h"

namespace frontier {

class SiteTombstones {
 public:
  using Positions = std::map<uint64_t, std::string>;

  bool empty() const { return sites_.empty(); }
  bool Holds(uint64_t site_fp) const { return sites_.contains(site_fp); }
  // True if `rec` belongs to a site being removed: every verb treats it
  // as absent.
  bool IsDeleted(const UrlRecord& rec) const {
    return !sites_.empty() && sites_.contains(rec.site_fp);
  }

  // Writes the site's tombstone into `meta` inside `t`.
  static Status Put(DbTxn* t, bdb::Database* meta, uint64_t site_fp);
  // Deletes it (the removal ended); NotFound if it had none.
  static Status Remove(DbTxn* t, bdb::Database* meta, uint64_t site_fp);
  // The tombstone of `site_fp` committed: its removal starts.
  void Add(uint64_t site_fp, bool by_host);
  // The tombstones of `meta`, every removal from its start.
  Status Load(bdb::Database* meta, bool by_host);

  // The removal Tick works on: the first site's, with the key its next
  // slice starts at ("" for the first record of urls.db). Not empty().
  Positions::iterator Next() { return sites_.begin(); }
  // The removal at `it` ended (its tombstone removed and committed).
  void Finish(Positions::iterator it) { sites_.erase(it); }
  void Swap(Positions* other) { sites_.swap(*other); }

 private:
  Positions sites_;
};

}  // namespace frontier
