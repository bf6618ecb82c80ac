#include "harness/train/training_steps.h"

#include <algorithm>
#include <string>

#include "harness/config/config_error.h"

namespace speedbench {

int64_t steps_per_epoch(int64_t train_examples, int64_t batch_size, int world_size) {
  const int64_t shard = train_examples / world_size;
  const int64_t steps = shard / batch_size;
  if (steps == 0) {
    throw ConfigError("", "batch_size",
                      "got " + std::to_string(batch_size) + ", more than the " +
                          std::to_string(shard) + " training examples" +
                          (world_size > 1 ? " of each rank's shard" : ""));
  }
  return steps;
}

int64_t total_training_steps(const TrainConfig& config, int64_t steps_per_epoch) {
  const int64_t epoch_steps = steps_per_epoch * config.epochs;
  const int64_t total =
      config.max_steps > 0 ? std::min(config.max_steps, epoch_steps) : epoch_steps;
  if (config.warmup_steps >= total) {
    throw ConfigError("", "warmup_steps",
                      "got " + std::to_string(config.warmup_steps) + ", but the run trains " +
                          std::to_string(total) + " steps (" + std::to_string(config.epochs) +
                          (config.epochs == 1 ? " epoch" : " epochs") + " of " +
                          std::to_string(steps_per_epoch) + " steps" +
                          (config.max_steps > 0 ? ", max_steps " + std::to_string(config.max_steps)
                                                : std::string()) +
                          "): no step would be timed; expected fewer warmup steps than steps");
  }
  return total;
}

}  // namespace speedbench
