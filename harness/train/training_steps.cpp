#include "harness/train/steps_per_epoch.h"

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

}  // namespace speedbench
