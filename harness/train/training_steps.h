// How many batches one epoch has: each rank takes an equal shard of the training set and drops
// the last partial batch (harness/distributed/sharded_sampler.h, train_batches.h).
#pragma once

#include <cstdint>

namespace speedbench {

// Throws ConfigError (field batch_size, naming no file: the caller knows which config it read)
// when not even one batch of `batch_size` fits in a rank's shard of `train_examples`. The suite
// runner asks before any run, the training run and lr-find when they make their batches.
int64_t steps_per_epoch(int64_t train_examples, int64_t batch_size, int world_size);

}  // namespace speedbench
