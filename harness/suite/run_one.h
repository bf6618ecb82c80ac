// One run, start to record: applies the device check, trains, and turns the outcome (or the
// failure) into a Record with the full config and environment.
#pragma once

#include <string>

#include "harness/config/train_config.h"
#include "harness/distributed/launch_environment.h"
#include "harness/results/record.h"
#include "harness/train/train_loop.h"

namespace speedbench {

struct RunIdentity {
  std::string run_id;
  std::string suite = "adhoc";
  std::string variant = "baseline";
  int64_t run_index = 0;
  int64_t repetition = 0;
};

// Whether this process can run on a CUDA device.
bool cuda_device_available();

// A new run id: UTC time to the second plus the process id (sorts by time, unique per host).
std::string make_run_id();

// Trains `config` and returns its record. A run that cannot happen here (CUDA asked for on a
// machine without a GPU, a CUDA-only technique on the CPU) is `not_applicable` with the reason;
// divergence is `diverged`; an out-of-memory error is `oom`; any other failure during training is
// `crashed`. Bad input (ConfigError) propagates: it is the user's to fix, not a result.
// With `launch` (world size > 1) this process first joins the DDP process group as that rank; a
// failed rendezvous or a dead peer is a `crashed` run.
Record execute_run(const TrainConfig& config, const RunIdentity& identity,
                   const ProgressFn& progress = {},
                   const std::optional<distributed::LaunchEnvironment>& launch = std::nullopt);

// A record for a run that produced none itself (its process died): status `crashed`.
Record crashed_record(const TrainConfig& config, const RunIdentity& identity,
                      const std::string& message);

}  // namespace speedbench
