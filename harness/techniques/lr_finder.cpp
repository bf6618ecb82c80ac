#include "harness/techniques/lr_finder.h"

#include <torch/torch.h>

#include <cmath>

#include "harness/techniques/channels_last.h"
#include "harness/train/evaluate.h"
#include "harness/train/optimizer_factory.h"
#include "harness/train/train_batches.h"
#include "harness/train/train_loop.h"
#include "harness/train/workload.h"

namespace speedbench {

double lr_finder_lr(const LrFinderOptions& options, int64_t step) {
  const double fraction = options.steps > 1 ? static_cast<double>(step) / (options.steps - 1) : 0.0;
  return options.start_lr * std::pow(options.end_lr / options.start_lr, fraction);
}

LrFinderResult find_learning_rate(const TrainConfig& config, const LrFinderOptions& options) {
  apply_runtime_settings(config);
  const torch::Device device(config.device == "cuda" ? torch::kCUDA : torch::kCPU);
  Workload workload = build_workload(config);
  workload.module->to(device);
  if (config.techniques.channels_last) convert_to_channels_last(*workload.module);
  workload.module->train();
  auto optimizer = make_optimizer(config.optimizer, workload.module->parameters(),
                                  config.techniques.optimizer_impl);
  // The run's own batches (seeded order, loader workers): a batch larger than the data is the
  // same bad input here, where an empty loader would sweep forever.
  const auto batches = make_train_batches(workload, config, /*rank=*/0, /*world_size=*/1);

  LrFinderResult result;
  double average = 0, best = std::numeric_limits<double>::infinity();
  int64_t step = 0;
  while (step < options.steps) {
    for (auto& batch : *batches.loader) {
      if (step >= options.steps) break;
      const double lr = lr_finder_lr(options, step);
      set_learning_rate(*optimizer, lr);
      optimizer->zero_grad();
      auto inputs = batch.data.to(device);
      if (config.techniques.channels_last) inputs = channels_last_input(inputs);
      auto loss =
          classification_loss(workload.train_forward(inputs, config), batch.target.to(device));
      loss.backward();
      optimizer->step();
      const double value = loss.item<double>();
      if (!std::isfinite(value)) {  // blown up: nothing more to learn from the sweep
        result.stopped_early = true;
        step = options.steps;
        break;
      }
      step += 1;
      average = options.smoothing * average + (1 - options.smoothing) * value;
      const double smoothed = average / (1 - std::pow(options.smoothing, step));
      result.lrs.push_back(lr);
      result.losses.push_back(value);
      result.smoothed_losses.push_back(smoothed);
      best = std::min(best, smoothed);
      if (smoothed > options.stop_factor * best) {
        result.stopped_early = true;
        step = options.steps;
      }
    }
  }

  size_t at_min = 0, steepest = 0;
  double steepest_slope = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < result.smoothed_losses.size(); ++i) {
    if (result.smoothed_losses[i] < result.smoothed_losses[at_min]) at_min = i;
    if (i > 0) {
      const double slope = (result.smoothed_losses[i] - result.smoothed_losses[i - 1]) /
                           std::log(result.lrs[i] / result.lrs[i - 1]);
      if (slope < steepest_slope) {
        steepest_slope = slope;
        steepest = i;
      }
    }
  }
  result.lr_at_min_loss = result.lrs.empty() ? 0 : result.lrs[at_min];
  result.steepest_lr = result.lrs.empty() ? 0 : result.lrs[steepest];
  result.suggested_lr = result.lr_at_min_loss / 10.0;
  return result;
}

nlohmann::json lr_finder_to_json(const LrFinderResult& r, const LrFinderOptions& o) {
  return {{"start_lr", o.start_lr},
          {"end_lr", o.end_lr},
          {"steps", o.steps},
          {"smoothing", o.smoothing},
          {"stop_factor", o.stop_factor},
          {"lrs", r.lrs},
          {"losses", r.losses},
          {"smoothed_losses", r.smoothed_losses},
          {"lr_at_min_loss", r.lr_at_min_loss},
          {"steepest_lr", r.steepest_lr},
          {"suggested_lr", r.suggested_lr},
          {"stopped_early", r.stopped_early}};
}

}  // namespace speedbench
