#include "server/madd_batch.h"

#include <utility>

#include "server/args.h"

namespace frontier {
namespace {

// MADDLINKS ref depth depth-site: the arguments before the links.
constexpr size_t kHead = 4;

}  // namespace

void MaddBatch::Add(uint64_t client, uint32_t part,
                    std::vector<std::string> argv) {
  const bool with_data =
      argv.size() > kHead && EqualsIgnoreCase(argv[kHead], "DATA");
  const size_t args = argv.size() - kHead - (with_data ? 1 : 0);
  members_.push_back(Member{client, part, with_data ? args / 2 : args});
  for (const std::string& arg : argv) bytes_ += arg.size();
  groups_.push_back(std::move(argv));
}

std::vector<std::string> MaddBatch::Argv() const {
  if (groups_.size() == 1) return groups_.front();
  std::vector<std::string> out = {"MADDLINKS", "GROUPS",
                                  std::to_string(groups_.size())};
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::vector<std::string>& argv = groups_[g];
    const bool with_data =
        argv.size() > kHead && EqualsIgnoreCase(argv[kHead], "DATA");
    out.insert(out.end(), argv.begin() + 1, argv.begin() + kHead);
    out.emplace_back(with_data ? "DATA" : "-");
    out.push_back(std::to_string(members_[g].links));
    out.insert(out.end(), argv.begin() + kHead + (with_data ? 1 : 0),
               argv.end());
  }
  return out;
}

std::vector<RelayedReply> MaddBatch::Split(const RelayedReply& reply) const {
  size_t total = 0;
  for (const Member& m : members_) total += m.links;
  if (groups_.size() == 1 || reply.error || reply.elements.size() != total) {
    return std::vector<RelayedReply>(members_.size(), reply);
  }
  std::vector<RelayedReply> out(members_.size());
  size_t next = 0;
  for (size_t g = 0; g < members_.size(); ++g) {
    RelayedReply& one = out[g];
    one.resp = "*" + std::to_string(members_[g].links) + "\r\n";
    for (size_t i = 0; i < members_[g].links; ++i) {
      one.resp += reply.elements[next];
      one.elements.push_back(reply.elements[next++]);
    }
  }
  return out;
}

}  // namespace frontier
