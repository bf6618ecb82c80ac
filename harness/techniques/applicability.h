// Whether the techniques a config turns on can run on this machine, as a run decides before it
// starts and `run --plan` says beforehand: the registry's device and data-placement rules, then
// the probes that only this machine can answer (bf16 RNN kernels on a CPU, amp.h), and what this
// build's allocator allows (host_memory_reuse.h).
#pragma once

#include <string>

#include "harness/config/train_config.h"

namespace speedbench {

// "" when they can; else why not (the first reason found). Whether a CUDA device is here is not
// asked: a run checks that first, the plan once for its suite.
std::string techniques_not_applicable_here(const TrainConfig& config);

}  // namespace speedbench
