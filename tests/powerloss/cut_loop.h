// The power-loss test's loop: run frontierd under the recorder
// (powerloss_preload.cc) with a load (load.h), cut the power at a random
// point or inside a chosen window (a trigger), rebuild the data directory
// as the disk held it (materialise.h), start a fresh frontierd on it and
// check that everything acknowledged is there. The recovered directory,
// after a clean stop, is where the next cycle starts.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "powerloss/materialise.h"

namespace frontier::powerloss {

struct CutLoopOptions {
  std::string traced_binary;  // the server under test (runs with the preload)
  std::string check_binary;   // the server that recovers the copy
  std::string preload;        // the recorder library
  std::string fsync = "always";
  int cycles = 50;
  bool stop_at_first_loss = false;
  // With `fsync everysec`: an acknowledged write may be missing if its
  // reply arrived at most this long before the cut.
  std::chrono::milliseconds loss_window{0};
  uint64_t seed = 0;
  // How directory entries become durable (materialise.h).
  DirModel dirs = DirModel::kJournal;
  // Every cut keeps only what was synced (otherwise cycles alternate
  // between that and a random prefix or subset of the rest landing).
  bool only_synced = false;
  // Small, so that cuts land in checkpoints and write-behind.
  std::string checkpoint_interval = "0.2";
};

struct CutLoopResult {
  int cycles = 0;
  int cycles_with_loss = 0;
  // Acknowledged writes missing after recovery (all of them, with
  // loss_window: only those older than the window).
  std::vector<std::string> losses;
  // Acknowledged writes missing but inside loss_window, and the largest
  // age (reply to cut) of one of them.
  int lost_in_window = 0;
  std::chrono::milliseconds oldest_lost_in_window{0};
  // Anything else that went wrong: a failed recovery, counts that differ
  // from a recount, replies of the wrong shape. Always a defect.
  std::vector<std::string> errors;
  std::map<std::string, int> cuts;  // how each cycle's power cut came
  uint64_t acknowledged = 0;
};

// Runs the loop; never returns early on a failure unless
// stop_at_first_loss (then after the first cycle with a loss).
CutLoopResult RunCutLoop(const CutLoopOptions& options);

}  // namespace frontier::powerloss
