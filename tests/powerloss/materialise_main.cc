// powerloss_materialise: the disk model of materialise.h as a command, for
// a person looking into a failure of the power-loss test by hand.
//
//   powerloss_materialise BASE TRACE OUT [synced|prefix|subset] [SEED]
//                         [strict|journal]
//   powerloss_materialise --dump TRACE
//
// BASE is the data directory as the traced run found it ("" for none),
// OUT an empty directory that receives the copy.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "powerloss/materialise.h"

int main(int argc, char** argv) {
  using namespace frontier::powerloss;
  if (argc == 3 && std::string(argv[1]) == "--dump") {
    std::fputs(DumpTrace(argv[2]).c_str(), stdout);
    return 0;
  }
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s BASE TRACE OUT [synced|prefix|subset] [SEED] "
                 "[strict|journal]\n       %s --dump TRACE\n",
                 argv[0], argv[0]);
    return 2;
  }
  MaterialiseOptions o;
  const std::string landing = argc > 4 ? argv[4] : "synced";
  if (landing == "prefix") o.landing = Landing::kPrefix;
  if (landing == "subset") o.landing = Landing::kSubset;
  if (argc > 5) o.seed = std::strtoull(argv[5], nullptr, 10);
  if (argc > 6 && std::string(argv[6]) == "journal") o.dirs = DirModel::kJournal;
  TraceSummary s;
  const std::string err = Materialise(argv[1], argv[2], argv[3], o, &s);
  if (!err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::printf("%llu records: %llu writes, %llu syncs, %llu entry operations; "
              "%llu landed, %llu dropped%s%s\n",
              static_cast<unsigned long long>(s.records),
              static_cast<unsigned long long>(s.writes),
              static_cast<unsigned long long>(s.syncs),
              static_cast<unsigned long long>(s.dir_ops),
              static_cast<unsigned long long>(s.landed),
              static_cast<unsigned long long>(s.dropped),
              s.cut_event.empty() ? "" : ", cut at ",
              s.cut_event.c_str());
  return 0;
}
