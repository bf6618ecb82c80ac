// The training batches of one run: `batch_size` examples at a time from this rank's shard of a
// permutation drawn per epoch (harness/distributed/sharded_sampler.h), the last partial batch
// dropped, assembled, augmented and (with `techniques.pin_memory`) pinned by
// `techniques.loader_workers` threads (tip 2) that work ahead of the training thread, or by the
// training thread itself with 0 workers.
#pragma once

#include <torch/data/dataloader.h>

#include <cstdint>
#include <memory>

#include "harness/config/train_config.h"
#include "harness/data/batch_dataset.h"
#include "harness/distributed/sharded_sampler.h"
#include "harness/train/workload.h"

namespace speedbench {

using TrainLoader =
    torch::data::StatelessDataLoader<data::BatchDataset, distributed::ShardedRandomSampler>;

struct TrainBatches {
  std::unique_ptr<TrainLoader> loader;
  int64_t steps_per_epoch = 0;
};

// Throws ConfigError (field batch_size) when a batch is larger than the rank's shard: bad input
// that only the loaded data reveals (training_steps.h).
TrainBatches make_train_batches(const Workload& workload, const TrainConfig& config, int rank,
                                int world_size);

}  // namespace speedbench
