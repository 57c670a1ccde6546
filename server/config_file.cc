// Reading the configuration (config.h): a config file's lines, split into
// words, and the command line's --directive pairs, each applied through
// the directive table; and creating the data directory.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "server/cluster_etcd_map.h"
#include "server/config.h"
#include "server/replication_config.h"

namespace frontier {
namespace {

Status ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::InvalidArgument("cannot open config file '" + path +
                                   "': " + std::strerror(errno));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return Status::OK();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
         c == '\f';
}

}  // namespace

bool SplitConfigLine(std::string_view line, std::vector<std::string>* words) {
  words->clear();
  size_t i = 0;
  while (true) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (i == line.size()) return true;
    std::string word;
    if (line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        char c = line[i];
        if (c == '"') {
          closed = true;
          ++i;
          break;
        }
        if (c == '\\' && i + 3 < line.size() && line[i + 1] == 'x' &&
            HexValue(line[i + 2]) >= 0 && HexValue(line[i + 3]) >= 0) {
          word += static_cast<char>(HexValue(line[i + 2]) * 16 +
                                    HexValue(line[i + 3]));
          i += 4;
          continue;
        }
        if (c == '\\' && i + 1 < line.size()) {
          char e = line[i + 1];
          word += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
          i += 2;
          continue;
        }
        word += c;
        ++i;
      }
      if (!closed || (i < line.size() && !IsSpace(line[i]))) return false;
    } else if (line[i] == '\'') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '\'') {
          word += '\'';
          i += 2;
          continue;
        }
        if (line[i] == '\'') {
          closed = true;
          ++i;
          break;
        }
        word += line[i++];
      }
      if (!closed || (i < line.size() && !IsSpace(line[i]))) return false;
    } else {
      while (i < line.size() && !IsSpace(line[i])) word += line[i++];
    }
    words->push_back(std::move(word));
  }
}

Status ApplyConfigText(Config* config, std::string_view text,
                       std::string_view source) {
  size_t line_no = 0;
  std::vector<std::string> words;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_no;

    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    std::string where = std::string(source) + ":" + std::to_string(line_no);
    if (!SplitConfigLine(line, &words)) {
      // Never quote a line that may hold a password.
      std::string_view first_word = line.substr(first);
      first_word = first_word.substr(0, first_word.find_first_of(" \t\r"));
      const Directive* d = FindDirective(first_word);
      if (d != nullptr && (d->flags & kDirSecret)) {
        return Status::InvalidArgument(where + ": unbalanced quotes in a '" +
                                       std::string(d->name) + "' line");
      }
      return Status::InvalidArgument(where + ": unbalanced quotes in '" +
                                     std::string(line) + "'");
    }
    std::string value;
    for (size_t i = 1; i < words.size(); ++i) {
      if (i > 1) value += ' ';
      value += words[i];
    }
    Status s = SetDirective(config, words[0], value);
    if (!s.ok()) return Status::InvalidArgument(where + ": " + s.message());
  }
  return Status::OK();
}

StatusOr<Config> LoadConfig(std::span<const std::string> args) {
  Config config = DefaultConfig();
  size_t i = 0;
  if (!args.empty() && !args[0].starts_with("--")) {
    std::string text;
    Status s = ReadFile(args[0], &text);
    if (!s.ok()) return s;
    s = ApplyConfigText(&config, text, args[0]);
    if (!s.ok()) return s;
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(args[0], ec);
    config.config_file = ec ? args[0] : abs.string();
    i = 1;
  }
  while (i < args.size()) {
    if (!args[i].starts_with("--") || args[i].size() == 2) {
      return Status::InvalidArgument("unexpected argument '" + args[i] +
                                     "' (expected --directive value)");
    }
    std::string name = args[i].substr(2);
    std::string value;
    for (++i; i < args.size() && !args[i].starts_with("--"); ++i) {
      if (!value.empty()) value += ' ';
      value += args[i];
    }
    Status s = SetDirective(&config, name, value);
    if (!s.ok()) return s;
  }
  if (Status s = CheckReplicationConfig(config); !s.ok()) return s;
  if (Status s = CheckClusterEtcdConfig(config); !s.ok()) return s;
  return config;
}

Status PrepareDirectories(const Config& config) {
  std::error_code ec;
  std::filesystem::create_directories(config.dir, ec);
  if (ec) {
    return Status::IOError("cannot create dir '" + config.dir +
                           "': " + ec.message());
  }
  return Status::OK();
}

}  // namespace frontier
