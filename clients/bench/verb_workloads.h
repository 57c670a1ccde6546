// The per-verb workloads: POP alone and CONFIRM alone, each the only thing
// the clock measures. The URLs they need are loaded (and, for confirm,
// popped) by unmeasured phases first, and what a run leased it confirms
// before it returns, so the server is left as it was found.
#pragma once

#include "options.h"
#include "workload_parts.h"
#include "workloads.h"

namespace bench {

// pop: ADDs o.ops new URLs (tag "p<seed>") before the clock, then times POPs
// only (o.pipeline URLs per round trip, POPs of up to o.pop_count) until
// o.ops URLs were popped or POP stays empty for --idle-wait; then CONFIRMs
// every popped URL, unmeasured. conns must be open; result gets the timed
// phase's rates and latencies, and the checks of all phases.
void RunPopAlone(const Options& o, Connections& conns, RunResult& result);

// confirm: ADDs o.ops new URLs (tag "k<seed>") and POPs them before the
// clock, then times the CONFIRMs of every popped URL, o.pipeline per round
// trip, spread evenly over the connections.
void RunConfirmAlone(const Options& o, Connections& conns, RunResult& result);

}  // namespace bench
