// The training loop: runs a TrainConfig and measures it. Behind train() is TrainingRun
// (training_run.h): training_run_setup.cpp sets a run up; train_loop.cpp reads top to bottom:
// the loop, the parts of one step in the order it runs them, the totals.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/config/train_config.h"
#include "harness/train/run_metrics.h"

namespace speedbench {

namespace distributed {
struct ProcessGroup;
}
}  // namespace speedbench
namespace torch::nn {
class Module;
}
namespace speedbench {

struct TrainOutcome {
  RunStatus status = RunStatus::kOk;
  std::string message;  // why it stopped early, if it did
  RunMetrics metrics;
  double unigram_entropy_bits = 0;  // text workloads: the bar the LM must beat
  std::string data_source;
  std::shared_ptr<torch::nn::Module> model;  // the trained model (tests compare its weights)
};

// Called with one human-readable progress line (roughly every config.progress_every_s seconds).
using ProgressFn = std::function<void(const std::string& line)>;

// Runs the whole training of `config` on this process's device. A loss that is NaN/inf (or above
// config.divergence_loss) ends the run with status kDiverged and the metrics gathered so far;
// other errors propagate.
// With a process group of world size > 1 this process is one DDP worker: it trains on its shard,
// all-reduces gradients with the others, and only rank 0 evaluates; the metrics are rank 0's, with
// throughput counting the samples of all ranks.
TrainOutcome train(const TrainConfig& config, const ProgressFn& progress = {},
                   std::shared_ptr<distributed::ProcessGroup> group = nullptr);

// Seeds every random generator and applies threads / deterministic mode of `config`.
void apply_runtime_settings(const TrainConfig& config);

}  // namespace speedbench
