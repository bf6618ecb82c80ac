#include "harness/train/train_batches.h"

#include <string>
#include <utility>

#include "harness/config/config_error.h"

namespace speedbench {

TrainBatches make_train_batches(const Workload& workload, const TrainConfig& config, int rank,
                                int world_size) {
  distributed::ShardedRandomSampler sampler(workload.data.train.size(),
                                            static_cast<uint64_t>(config.seed), rank, world_size);
  TrainBatches batches;
  batches.steps_per_epoch = static_cast<int64_t>(sampler.shard_size()) / config.batch_size;
  if (batches.steps_per_epoch == 0) {
    throw ConfigError("", "batch_size",
                      "got " + std::to_string(config.batch_size) + ", more than the " +
                          std::to_string(sampler.shard_size()) + " training examples" +
                          (world_size > 1 ? " of each rank's shard" : ""));
  }
  batches.loader = torch::data::make_data_loader(
      data::BatchDataset(workload.data.train, workload.transform), std::move(sampler),
      torch::data::DataLoaderOptions(config.batch_size)
          .drop_last(true)
          .workers(config.techniques.loader_workers));
  return batches;
}

}  // namespace speedbench
