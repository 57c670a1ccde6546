#include "page_store.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "common/str_cat.h"

namespace worker {
namespace {

using frontier_client::StrCat;

// The host[:port] of an absolute URL, as a directory name ("_" for ':').
std::string HostDirectory(std::string_view url) {
  size_t start = url.find("://");
  start = start == std::string_view::npos ? 0 : start + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string host(url.substr(start, end == std::string_view::npos
                                         ? std::string_view::npos
                                         : end - start));
  size_t at = host.rfind('@');
  if (at != std::string::npos) host.erase(0, at + 1);
  for (char& c : host) {
    if (c == ':' || c == '/' || c == '\\' || c == '[' || c == ']') c = '_';
  }
  if (host.empty() || host == "." || host == "..") return std::string(1, '_');
  return host;
}

// FNV-1a, 64 bits, as 16 hex digits: a stable file name per URL.
std::string UrlHash(std::string_view url) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : url) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Tabs and newlines would break index.tsv's lines; URLs have none, but a
// final URL comes from a server's Location header.
std::string TsvField(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

std::unique_ptr<PageStore> PageStore::Open(const std::string& dir,
                                           std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = StrCat("cannot create ", dir, ": ", ec.message());
    return nullptr;
  }
  std::string index_path = StrCat(dir, "/index.tsv");
  std::FILE* index = std::fopen(index_path.c_str(), "a");
  if (index == nullptr) {
    *error = StrCat("cannot open ", index_path, ": ",
                    std::string_view(std::strerror(errno)));
    return nullptr;
  }
  return std::unique_ptr<PageStore>(new PageStore(dir, index));
}

PageStore::~PageStore() { std::fclose(index_); }

bool PageStore::Save(const FetchResult& r, std::string* error) {
  std::string host = HostDirectory(r.url);
  std::string relative = StrCat(host, "/", UrlHash(r.url));
  std::error_code ec;
  std::filesystem::create_directories(StrCat(dir_, "/", host), ec);
  if (ec) {
    *error = StrCat("cannot create ", dir_, "/", host, ": ", ec.message());
    return false;
  }
  std::string path = StrCat(dir_, "/", relative);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(r.body.data(), static_cast<std::streamsize>(r.body.size()));
    if (!out.flush()) {
      *error = StrCat("cannot write ", path);
      return false;
    }
  }
  std::string line =
      StrCat(static_cast<int64_t>(std::time(nullptr)), "\t", r.status, "\t",
             r.body.size(), "\t", relative, "\t", TsvField(r.url), "\t",
             r.redirects > 0 ? TsvField(r.final_url) : std::string(), "\n");
  if (std::fputs(line.c_str(), index_) < 0 || std::fflush(index_) != 0) {
    *error = StrCat("cannot append to ", dir_, "/index.tsv");
    return false;
  }
  return true;
}

}  // namespace worker
