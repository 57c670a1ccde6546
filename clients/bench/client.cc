#include "client.h"

namespace bench {
namespace {

constexpr std::string_view kSeenKey = "frontier:seen";
constexpr std::string_view kQueueKey = "frontier:queue";
constexpr std::string_view kInflightKey = "frontier:inflight";

}  // namespace

void Verbs::Add(CommandArgs& a, std::string_view url) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("ADD");
  } else {
    a.Push("FCALL");
    a.Push("fadd");
    a.Push("2");
    a.Push(kSeenKey);
    a.Push(kQueueKey);
  }
  a.Push(url);
}

void Verbs::Madd(CommandArgs& a, std::string_view ref,
                 const std::vector<std::string_view>& urls) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("MADD");
  } else {
    a.Push("FCALL");
    a.Push("fmadd");
    a.Push("2");
    a.Push(kSeenKey);
    a.Push(kQueueKey);
  }
  a.Push(ref);
  for (std::string_view u : urls) a.Push(u);
}

void Verbs::Pop(CommandArgs& a, int count) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("POP");
    if (count > 0) {
      a.Push("COUNT");
      a.PushNumber(count);
    }
  } else {
    a.Push("FCALL");
    a.Push("fpop");
    a.Push("2");
    a.Push(kQueueKey);
    a.Push(kInflightKey);
    if (count > 0) a.PushNumber(count);
  }
}

void Verbs::Confirm(CommandArgs& a, std::string_view url) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("CONFIRM");
  } else {
    a.Push("FCALL");
    a.Push("fconfirm");
    a.Push("1");
    a.Push(kInflightKey);
  }
  a.Push(url);
}

void Verbs::Stats(CommandArgs& a) const {
  a.Clear();
  if (target_ == Target::kFrontierd) {
    a.Push("STATS");
  } else {
    a.Push("FCALL");
    a.Push("fstats");
    a.Push("3");
    a.Push(kSeenKey);
    a.Push(kQueueKey);
    a.Push(kInflightKey);
  }
}

}  // namespace bench
