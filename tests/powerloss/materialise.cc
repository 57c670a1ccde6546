#include "powerloss/materialise.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <variant>
#include <vector>

#include "powerloss/trace_format.h"

namespace frontier::powerloss {

namespace {

namespace fs = std::filesystem;

struct Record {
  RecordHeader h;
  std::string name, name2;
  size_t data = 0;  // offset of the data in the stream's bytes
};

bool ReadAll(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// The records of `bytes`, up to a torn tail.
std::vector<Record> Parse(const std::string& bytes, bool* torn) {
  std::vector<Record> out;
  size_t p = 0;
  *torn = false;
  while (p < bytes.size()) {
    Record r;
    if (bytes.size() - p < sizeof(RecordHeader)) break;
    std::memcpy(&r.h, bytes.data() + p, sizeof(RecordHeader));
    const uint64_t need = sizeof(RecordHeader) + uint64_t{r.h.name_len} +
                          r.h.name2_len + r.h.length;
    if (r.h.magic != kRecordMagic || r.h.seq != out.size() ||
        bytes.size() - p < need) {
      break;
    }
    p += sizeof(RecordHeader);
    r.name.assign(bytes, p, r.h.name_len);
    p += r.h.name_len;
    r.name2.assign(bytes, p, r.h.name2_len);
    p += r.h.name2_len;
    r.data = p;
    p += r.h.length;
    out.push_back(std::move(r));
  }
  *torn = p != bytes.size();
  return out;
}

bool IsData(Op op) { return op == Op::kWrite || op == Op::kTruncate; }
bool IsDirOp(Op op) {
  return op == Op::kCreate || op == Op::kRename || op == Op::kUnlink;
}

// A directory entry's file: one of the base directory, or one the trace
// created (by id).
using Source = std::variant<std::string, uint64_t>;

}  // namespace

std::string Materialise(const std::string& base_dir,
                        const std::string& trace_path,
                        const std::string& out_dir,
                        const MaterialiseOptions& options,
                        TraceSummary* summary) {
  std::string bytes;
  if (!ReadAll(trace_path, &bytes)) return "cannot read " + trace_path;
  TraceSummary sum;
  const std::vector<Record> records = Parse(bytes, &sum.torn_tail);
  sum.records = records.size();

  // What the syncs made durable: per file, and for the directory.
  std::map<uint64_t, uint64_t> synced;  // id -> records before this are durable
  uint64_t all_synced = 0;              // sync()/syncfs()
  uint64_t dir_synced = 0;
  for (const Record& r : records) {
    const Op op = static_cast<Op>(r.h.op);
    if (IsData(op)) ++sum.writes;
    if (IsDirOp(op)) ++sum.dir_ops;
    if (op == Op::kCut) sum.cut_event = r.name;
    if (op == Op::kSync) {
      ++sum.syncs;
      synced[r.h.id] = std::max(synced[r.h.id], r.h.offset);
      if (options.dirs == DirModel::kJournal) {
        dir_synced = std::max(dir_synced, r.h.offset);
      }
    } else if (op == Op::kDirSync) {
      ++sum.syncs;
      dir_synced = std::max(dir_synced, r.h.offset);
    } else if (op == Op::kSyncAll) {
      ++sum.syncs;
      all_synced = std::max(all_synced, r.h.offset);
    }
  }
  dir_synced = std::max(dir_synced, all_synced);

  // Which of the operations that were not durable land anyway.
  std::mt19937_64 rng(options.seed);
  const uint64_t prefix =
      options.landing == Landing::kSyncedOnly
          ? 0
          : std::uniform_int_distribution<uint64_t>(0, records.size())(rng);
  auto lands = [&](const Record& r) {
    const Op op = static_cast<Op>(r.h.op);
    const uint64_t seq = r.h.seq;
    bool durable = seq < all_synced;
    if (IsData(op)) {
      auto it = synced.find(r.h.id);
      durable = durable || (it != synced.end() && seq < it->second);
    } else {
      durable = durable || seq < dir_synced;
    }
    if (durable) return true;
    switch (options.landing) {
      case Landing::kSyncedOnly:
        return false;
      case Landing::kPrefix:
        return seq < prefix;
      case Landing::kSubset:
        return IsData(op) ? (rng() & 1) == 1 : seq < prefix;
    }
    return false;
  };

  // The directory: base entries, then the entry operations that landed.
  std::map<std::string, Source> entries;
  std::error_code ec;
  if (!base_dir.empty()) {
    for (const auto& e : fs::directory_iterator(base_dir, ec)) {
      if (e.is_regular_file()) {
        entries[e.path().filename().string()] = e.path().filename().string();
      }
    }
    if (ec) return "cannot list " + base_dir + ": " + ec.message();
  }
  std::map<uint64_t, std::string> base_of;  // id -> base file it started as
  std::map<uint64_t, std::vector<const Record*>> data;  // id -> landed ops
  for (const Record& r : records) {
    const Op op = static_cast<Op>(r.h.op);
    if (op == Op::kOpen) {
      base_of.emplace(r.h.id, r.name);
      continue;
    }
    if (!IsData(op) && !IsDirOp(op)) continue;
    if (!lands(r)) {
      ++sum.dropped;
      continue;
    }
    ++sum.landed;
    if (IsData(op)) {
      data[r.h.id].push_back(&r);
    } else if (op == Op::kCreate) {
      entries[r.name] = r.h.id;
    } else if (op == Op::kRename) {
      auto it = entries.find(r.name);
      if (it != entries.end()) {
        Source s = it->second;
        entries.erase(it);
        entries[r.name2] = s;
      }
    } else if (op == Op::kUnlink) {
      entries.erase(r.name);
    }
  }

  // The files' contents.
  for (const auto& [name, source] : entries) {
    std::string content;
    const std::string* base_name = std::get_if<std::string>(&source);
    uint64_t id = 0;
    if (base_name == nullptr) {
      id = std::get<uint64_t>(source);
      auto b = base_of.find(id);
      if (b != base_of.end()) base_name = &b->second;
    } else {
      // A base file the run opened: its id, to apply what landed.
      for (const auto& [i, n] : base_of) {
        if (n == *base_name) id = i;
      }
    }
    if (base_name != nullptr && !base_dir.empty() &&
        fs::exists(fs::path(base_dir) / *base_name) &&
        !ReadAll((fs::path(base_dir) / *base_name).string(), &content)) {
      return "cannot read base file " + *base_name;
    }
    if (id != 0) {
      for (const Record* r : data[id]) {
        if (static_cast<Op>(r->h.op) == Op::kTruncate) {
          content.resize(r->h.offset, '\0');
          continue;
        }
        const uint64_t end = r->h.offset + r->h.length;
        if (content.size() < end) content.resize(end, '\0');
        std::memcpy(content.data() + r->h.offset, bytes.data() + r->data,
                    r->h.length);
      }
    }
    std::ofstream out(fs::path(out_dir) / name, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) return "cannot write " + (fs::path(out_dir) / name).string();
  }
  if (summary != nullptr) *summary = sum;
  return "";
}

std::string DumpTrace(const std::string& trace_path) {
  static const char* const kNames[] = {
      "?",       "create",   "open",   "write",  "truncate", "sync",
      "dirsync", "syncall",  "rename", "unlink", "syncrange", "cut"};
  std::string bytes;
  if (!ReadAll(trace_path, &bytes)) return "cannot read " + trace_path + "\n";
  bool torn = false;
  std::ostringstream out;
  for (const Record& r : Parse(bytes, &torn)) {
    const char* name = r.h.op < std::size(kNames) ? kNames[r.h.op] : "?";
    out << r.h.seq << ' ' << name << " id=" << r.h.id
        << " offset=" << r.h.offset << " length=" << r.h.length;
    if (!r.name.empty()) out << ' ' << r.name;
    if (!r.name2.empty()) out << " -> " << r.name2;
    out << '\n';
  }
  if (torn) out << "(torn tail)\n";
  return out.str();
}

}  // namespace frontier::powerloss
