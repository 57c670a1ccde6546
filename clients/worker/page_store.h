// Saves fetched pages under a directory: <dir>/<host>/<hash> per page (the
// body as downloaded, cut at --max-bytes), and one line per page in
// <dir>/index.tsv: time, status, bytes, the file (relative to <dir>), the
// URL and, when redirected, the final URL.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "fetcher.h"

namespace worker {

class PageStore {
 public:
  // Creates `dir` if missing and opens its index for appending. Returns
  // nullptr and sets *error if it cannot.
  static std::unique_ptr<PageStore> Open(const std::string& dir,
                                         std::string* error);
  ~PageStore();
  PageStore(const PageStore&) = delete;
  PageStore& operator=(const PageStore&) = delete;

  // Writes the page and its index line. False, with *error set, if the disk
  // refused (the fetch is still reported to the frontier).
  bool Save(const FetchResult& r, std::string* error);

 private:
  PageStore(std::string dir, std::FILE* index)
      : dir_(std::move(dir)), index_(index) {}
  std::string dir_;
  std::FILE* index_;
};

}  // namespace worker
