#include "server_info.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "common/str_cat.h"

namespace bench {

using frontier_client::StrCat;
namespace {

bool ToInt(std::string_view s, int64_t* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

void ParseInfo(std::string_view text, ServerSnapshot& snap) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    snap.info.emplace(std::string(line.substr(0, colon)),
                      std::string(line.substr(colon + 1)));
  }
}

int64_t ProcRssBytes(int64_t pid) {
  std::ifstream in(StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      int64_t kb = -1;
      fields >> kb;
      return kb < 0 ? -1 : kb * 1024;
    }
  }
  return -1;
}

}  // namespace

int64_t ServerSnapshot::Counter(std::string_view name) const {
  auto it = counters.find(name);
  return it == counters.end() ? -1 : it->second;
}

ServerSnapshot TakeSnapshot(Connection& conn, const Verbs& verbs,
                            bool server_is_local) {
  ServerSnapshot snap;
  CommandArgs args;
  args.Push("INFO");
  args.Push("everything");
  ReplyPtr r = conn.Call(args);
  if (!r) {
    snap.error = StrCat("INFO: ", conn.Error());
    return snap;
  }
  if (r->type == REDIS_REPLY_ERROR) {  // a server without INFO everything
    args.Clear();
    args.Push("INFO");
    r = conn.Call(args);
    if (!r) {
      snap.error = StrCat("INFO: ", conn.Error());
      return snap;
    }
  }
  if (r->type != REDIS_REPLY_STRING) {
    snap.error = r->type == REDIS_REPLY_ERROR
                     ? StrCat("INFO: ", std::string_view(r->str, r->len))
                     : "INFO: not a bulk string";
  } else {
    ParseInfo(std::string_view(r->str, r->len), snap);
  }

  int64_t v = 0;
  for (const char* key : {"used_memory_rss", "process_rss"}) {
    auto it = snap.info.find(key);
    if (it != snap.info.end() && ToInt(it->second, &v)) {
      snap.rss_bytes = v;
      snap.rss_source = std::string("INFO ") + key;
      break;
    }
  }
  auto pid = snap.info.find("process_id");
  if (snap.rss_bytes < 0 && server_is_local && pid != snap.info.end() &&
      ToInt(pid->second, &v)) {
    snap.rss_bytes = ProcRssBytes(v);
    if (snap.rss_bytes >= 0)
      snap.rss_source = StrCat("VmRSS of pid ", pid->second);
  }
  for (const char* key : {"data_bytes", "aof_current_size"}) {
    auto it = snap.info.find(key);
    if (it != snap.info.end() && ToInt(it->second, &v)) {
      snap.data_bytes = v;
      snap.data_source = std::string("INFO ") + key;
      break;
    }
  }

  verbs.Stats(args);
  r = conn.Call(args);
  if (r && r->type == REDIS_REPLY_ARRAY) {
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
      const redisReply* name = r->element[i];
      const redisReply* value = r->element[i + 1];
      if (name->type != REDIS_REPLY_STRING && name->type != REDIS_REPLY_STATUS)
        continue;
      int64_t n = 0;
      if (value->type == REDIS_REPLY_INTEGER) {
        n = value->integer;
      } else if (value->type != REDIS_REPLY_STRING ||
                 !ToInt(std::string_view(value->str, value->len), &n)) {
        continue;
      }
      snap.counters.emplace(std::string(name->str, name->len), n);
    }
  }
  return snap;
}

}  // namespace bench
