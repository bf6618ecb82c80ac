// How many steps a run trains: each rank takes an equal shard of the training set and drops the
// last partial batch (harness/distributed/sharded_sampler.h, train_batches.h); a run trains its
// epochs of those batches, capped by max_steps. The suite runner asks before any run, the
// training run and lr-find when they make their batches.
#pragma once

#include <cstdint>

#include "harness/config/train_config.h"

namespace speedbench {

// Batches per epoch. Throws ConfigError (field batch_size, naming no file: the caller knows which
// config it read) when not even one batch of `batch_size` fits in a rank's shard of
// `train_examples`.
int64_t steps_per_epoch(int64_t train_examples, int64_t batch_size, int world_size);

// The run's steps: `config.epochs` of `steps_per_epoch`, capped by max_steps (0: no cap). Throws
// ConfigError (field warmup_steps, naming no file) when the warmup would leave no step to time:
// such a run could only report 0 samples/s.
int64_t total_training_steps(const TrainConfig& config, int64_t steps_per_epoch);

}  // namespace speedbench
