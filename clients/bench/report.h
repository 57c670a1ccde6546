// Turns a run into the human table and the one-line JSON record, and decides
// whether the correctness checks passed.
#pragma once

#include <string>

#include "options.h"
#include "server_info.h"
#include "workloads.h"

namespace bench {

struct Verdict {
  bool ok = true;
  bool new_checked = false;  // false when refusals make the :1 count moot
  std::string reason;        // why not ok, for the table
};

Verdict Judge(const Options& o, const RunResult& r);

// Writes the table to stdout.
void PrintTable(const Options& o, const RunResult& r,
                const ServerSnapshot& before, const ServerSnapshot& after,
                const Verdict& v);

// One JSON object on one line, no trailing newline.
std::string JsonLine(const Options& o, const RunResult& r,
                     const ServerSnapshot& before, const ServerSnapshot& after,
                     const Verdict& v);

}  // namespace bench
