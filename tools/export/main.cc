// frontierd-export: writes one crawl of a frontier (the default crawl
// unless --crawl names another), or one site or partition of it, as JSON
// Lines on standard output (docs/operations.md, "Export and import").
//
//   frontierd-export --dir COPY [--crawl NAME] [--site NAME | --partition
//                    NAME --partitions TEXT] > out.jsonl
//   frontierd-export --from HOST:PORT [--backup-dir DIR] [--crawl NAME]
//                    [--site NAME | --partition NAME] > out.jsonl
//
// --dir reads a BACKUP copy or a stopped server's directory. --from asks a
// running server (on this machine: BACKUP writes on the server's disk) for
// a BACKUP into a fresh directory under --backup-dir (default /tmp),
// exports it and removes it: the server's loop is held only for the
// BACKUP's checkpoint (its copy runs on a thread of the server's), never
// for the export.
#include <hiredis/hiredis.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "export/export_lines.h"
#include "export/snapshot_reader.h"
#include "partition/partition_map.h"
#include "storage/frontier.h"

namespace {

using frontier::Status;
namespace ex = frontier::exporter;

constexpr char kUsage[] =
    "Usage: frontierd-export --dir DIR [--crawl NAME] [--site NAME | "
    "--partition NAME --partitions TEXT]\n"
    "       frontierd-export --from HOST:PORT [--backup-dir DIR] "
    "[--crawl NAME] [--site NAME | --partition NAME]\n"
    "The JSON Lines go to standard output.\n"
    "  --dir DIR         a BACKUP copy or a stopped server's data directory\n"
    "  --from HOST:PORT  BACKUP a running server (same machine), export the\n"
    "                    copy, remove it\n"
    "  --backup-dir DIR  where --from puts the copy (default /tmp)\n"
    "  --crawl NAME      the crawl to export (default DEFAULT: the crawl of\n"
    "                    connections that never sent CRAWL)\n"
    "  --site NAME       only this site (its name as SITE INFO shows it):\n"
    "                    its site line, its URLs, and the robots lines of\n"
    "                    origins on its hosts\n"
    "  --partition NAME  only the sites of this partition, their URLs and\n"
    "                    the robots lines of origins whose host is in it\n"
    "  --partitions TEXT the server's `partition` directive (with --dir;\n"
    "                    --from reads it with CONFIG GET partition)\n";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// True if `host` is `site` or a host below it, label by label.
bool HostInSite(std::string_view host, std::string_view site) {
  if (host == site) return true;
  return host.size() > site.size() && host.ends_with(site) &&
         host[host.size() - site.size() - 1] == '.';
}

// The host of an origin ("https://example.com:8443" -> "example.com").
std::string_view OriginHost(std::string_view origin) {
  size_t p = origin.find("://");
  std::string_view host =
      p == std::string_view::npos ? origin : origin.substr(p + 3);
  if (!host.empty() && host[0] == '[')
    return host.substr(0, host.find(']') + 1);
  return host.substr(0, host.find(':'));
}

// Sends one command (printf-style, hiredis) to the server at `from`
// (host:port); *out gets a string reply's text.
Status RemoteCommand(const std::string& from, std::string* out,
                     const char* format, const char* arg) {
  const size_t colon = from.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("--from wants HOST:PORT");
  }
  const std::string host = from.substr(0, colon);
  const int port = std::atoi(from.c_str() + colon + 1);
  redisContext* c = redisConnect(host.c_str(), port);
  if (c == nullptr || c->err) {
    std::string why = c ? c->errstr : "out of memory";
    if (c) redisFree(c);
    return Status::IOError("cannot connect to " + from + ": " + why);
  }
  auto* r = static_cast<redisReply*>(redisCommand(c, format, arg));
  Status s;
  if (r == nullptr) {
    s = Status::IOError(std::string(format) + ": " + c->errstr);
  } else if (r->type == REDIS_REPLY_ERROR) {
    s = Status::IOError(std::string(format) + ": " +
                        std::string(r->str, r->len));
  } else if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
             r->element[1]->type == REDIS_REPLY_STRING) {
    out->assign(r->element[1]->str, r->element[1]->len);  // CONFIG GET
  }
  if (r) freeReplyObject(r);
  redisFree(c);
  return s;
}

// What to export: everything, one site, or one partition.
struct Filter {
  std::string site;
  std::optional<size_t> partition;
  frontier::partition::PartitionMap map;
  bool Site(const std::string& name) const {
    if (!site.empty()) return name == site;
    return !partition || map.Match(name) == *partition;
  }
  bool Origin(std::string_view origin) const {
    if (!site.empty()) return HostInSite(OriginHost(origin), site);
    return !partition || map.Match(OriginHost(origin)) == *partition;
  }
};

struct Counts {
  uint64_t sites = 0, robots = 0, urls = 0;
};

Status Export(const std::string& dir, const std::string& crawl,
              const Filter& filter, Counts* n) {
  ex::SnapshotReader reader;
  Status s = reader.Open(dir, crawl);
  if (!s.ok()) return s;
  std::fputs(ex::HeaderLine(NowMs()).c_str(), stdout);
  // The sites exported, by fingerprint (a URL record holds its site's).
  std::unordered_map<uint64_t, std::string> names;
  s = reader.ForEachSite([&](const frontier::SiteRecord& rec) {
    if (!filter.Site(rec.name)) return Status::OK();
    names.emplace(frontier::Fingerprint(rec.name), rec.name);
    std::fputs(ex::SiteLine(rec).c_str(), stdout);
    n->sites++;
    return Status::OK();
  });
  if (s.ok()) {
    s = reader.ForEachPolicy([&](const frontier::PolicyRecord& rec) {
      if (!filter.Origin(rec.origin)) return Status::OK();
      std::fputs(ex::RobotsLine(rec).c_str(), stdout);
      n->robots++;
      return Status::OK();
    });
  }
  if (s.ok()) {
    s = reader.ForEachUrl([&](const frontier::UrlRecord& rec,
                              const std::optional<std::string>& data) {
      auto it = names.find(rec.site_fp);
      if (it == names.end()) return Status::OK();  // a site not exported
      std::fputs(ex::UrlLine(rec, it->second, data).c_str(), stdout);
      n->urls++;
      return Status::OK();
    });
  }
  if (s.ok() && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
    s = Status::IOError("cannot write the output");
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, from, backup_dir = "/tmp", partition, partitions;
  std::string crawl(frontier::Frontier::kDefaultCrawl);
  bool have_partitions = false;
  Filter filter;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--dir" && has_value) {
      dir = argv[++i];
    } else if (a == "--from" && has_value) {
      from = argv[++i];
    } else if (a == "--crawl" && has_value) {
      crawl = argv[++i];
    } else if (a == "--site" && has_value) {
      filter.site = argv[++i];
    } else if (a == "--partition" && has_value) {
      partition = argv[++i];
    } else if (a == "--partitions" && has_value) {
      partitions = argv[++i];
      have_partitions = true;
    } else if (a == "--backup-dir" && has_value) {
      backup_dir = argv[++i];
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (dir.empty() == from.empty() ||
      (!filter.site.empty() && !partition.empty())) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (!partition.empty()) {
    if (!have_partitions && !from.empty()) {
      Status s = RemoteCommand(from, &partitions, "CONFIG GET %s", "partition");
      if (!s.ok()) {
        std::fprintf(stderr, "frontierd-export: %s\n", s.ToString().c_str());
        return 1;
      }
    }
    std::string error;
    if (!filter.map.AddText(partitions, &error)) {
      std::fprintf(stderr, "frontierd-export: --partitions: %s\n",
                   error.c_str());
      return 2;
    }
    filter.partition = filter.map.Find(partition);
    if (!filter.partition) {
      std::fprintf(stderr, "frontierd-export: unknown partition '%s'\n",
                   partition.c_str());
      return 2;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  std::string copy;
  if (!from.empty()) {
    std::error_code ec;
    copy = (std::filesystem::absolute(backup_dir, ec) /
            ("frontierd-export-" + std::to_string(::getpid()) + "-" +
             std::to_string(NowMs())))
               .string();
    std::string ignored;
    Status s = RemoteCommand(from, &ignored, "BACKUP %s", copy.c_str());
    if (!s.ok()) {
      std::fprintf(stderr, "frontierd-export: %s\n", s.ToString().c_str());
      return 1;
    }
    dir = copy;
  }
  Counts n;
  Status s = Export(dir, crawl, filter, &n);
  if (!copy.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(copy, ec);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  if (!s.ok()) {
    std::fprintf(stderr, "frontierd-export: %s\n", s.ToString().c_str());
    return 1;
  }
  std::fprintf(stderr,
               "frontierd-export: %llu sites, %llu robots origins, %llu URLs "
               "in %.1f s\n",
               static_cast<unsigned long long>(n.sites),
               static_cast<unsigned long long>(n.robots),
               static_cast<unsigned long long>(n.urls), secs);
  return 0;
}
