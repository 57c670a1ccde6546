// Reply (frontierd_process.h): printing and comparing replies, the
// expected values tests compare with, and the maps of URLINFO, STATS and
// INFO.
#include <sstream>

#include "support/frontierd_process.h"

namespace frontier::itest {

std::string Reply::DebugString() const {
  switch (type) {
    case Type::kString:
      return "\"" + str + "\"";
    case Type::kInteger:
      return "(integer) " + std::to_string(integer);
    case Type::kNil:
      return "(nil)";
    case Type::kStatus:
      return "+" + str;
    case Type::kError:
      return "(error) " + str;
    case Type::kIoError:
      return "(I/O error: " + str + ")";
    case Type::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) s += " ";
        s += elements[i].DebugString();
      }
      return s + "]";
    }
  }
  return "?";
}

bool operator==(const Reply& a, const Reply& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case Reply::Type::kInteger:
      return a.integer == b.integer;
    case Reply::Type::kNil:
      return true;
    case Reply::Type::kArray:
      return a.elements == b.elements;
    default:
      return a.str == b.str;
  }
}

void PrintTo(const Reply& reply, std::ostream* os) {
  *os << reply.DebugString();
}
std::ostream& operator<<(std::ostream& os, const Reply& reply) {
  return os << reply.DebugString();
}

Reply Int(long long n) {
  Reply r;
  r.type = Reply::Type::kInteger;
  r.integer = n;
  return r;
}
Reply Bulk(const std::string& s) {
  Reply r;
  r.type = Reply::Type::kString;
  r.str = s;
  return r;
}
Reply StatusReply(const std::string& s) {
  Reply r;
  r.type = Reply::Type::kStatus;
  r.str = s;
  return r;
}
Reply Nil() { return Reply(); }
Reply Error(const std::string& message) {
  Reply r;
  r.type = Reply::Type::kError;
  r.str = message;
  return r;
}
Reply Array(std::vector<Reply> elements) {
  Reply r;
  r.type = Reply::Type::kArray;
  r.elements = std::move(elements);
  return r;
}
Reply BulkArray(const std::vector<std::string>& strings) {
  std::vector<Reply> e;
  for (const std::string& s : strings) e.push_back(Bulk(s));
  return Array(std::move(e));
}

::testing::AssertionResult IsErrorStartingWith(const Reply& reply,
                                               const std::string& prefix) {
  if (reply.IsError() && reply.str.compare(0, prefix.size(), prefix) == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "expected an error starting with \"" << prefix << "\", got "
         << reply.DebugString();
}

std::map<std::string, std::string> FieldMap(const Reply& reply) {
  std::map<std::string, std::string> m;
  if (!reply.IsArray() || reply.elements.size() % 2 != 0) return m;
  for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    const Reply& v = reply.elements[i + 1];
    std::string value;
    if (v.IsInteger()) {
      value = std::to_string(v.integer);
    } else if (v.IsNil()) {
      value = "(nil)";
    } else {
      value = v.str;
    }
    m[reply.elements[i].str] = value;
  }
  return m;
}

std::map<std::string, std::string> InfoMap(const std::string& info) {
  std::map<std::string, std::string> m;
  std::istringstream in(info);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    m[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return m;
}

}  // namespace frontier::itest
