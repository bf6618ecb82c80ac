// Tip 1's companion, the LR range test ("LR finder", Smith arXiv 1506.01186 section 3.3): train
// for a few steps while the LR grows exponentially from start_lr to end_lr, smooth the loss, and
// suggest a peak LR for 1cycle / cyclic schedules from where the loss falls fastest and where it
// bottoms out before it blows up.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "harness/config/train_config.h"

namespace speedbench {

struct LrFinderOptions {
  double start_lr = 1e-5;
  double end_lr = 10.0;
  int64_t steps = 100;
  double smoothing = 0.98;   // EMA factor of the loss (bias-corrected)
  double stop_factor = 4.0;  // stop once the smoothed loss exceeds stop_factor x its minimum
};

struct LrFinderResult {
  std::vector<double> lrs;
  std::vector<double> losses;
  std::vector<double> smoothed_losses;
  double lr_at_min_loss = 0;   // where the smoothed loss is lowest
  double steepest_lr = 0;      // where the smoothed loss falls fastest (per log-LR)
  double suggested_lr = 0;     // lr_at_min_loss / 10, the usual 1cycle peak
  bool stopped_early = false;  // the loss blew up before end_lr
};

// The LR of sweep step i: start * (end / start)^(i / (steps - 1)).
double lr_finder_lr(const LrFinderOptions& options, int64_t step);

LrFinderResult find_learning_rate(const TrainConfig& config, const LrFinderOptions& options);

nlohmann::json lr_finder_to_json(const LrFinderResult& result, const LrFinderOptions& options);

}  // namespace speedbench
