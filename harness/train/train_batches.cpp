#include "harness/train/train_batches.h"

#include <utility>

#include "harness/train/training_steps.h"

namespace speedbench {

TrainBatches make_train_batches(const Workload& workload, const TrainConfig& config, int rank,
                                int world_size) {
  distributed::ShardedRandomSampler sampler(workload.data.train.size(),
                                            static_cast<uint64_t>(config.seed), rank, world_size);
  TrainBatches batches;
  batches.steps_per_epoch =
      steps_per_epoch(workload.data.train.size(), config.batch_size, world_size);
  auto transform = workload.transform;
  transform.pin_memory = config.techniques.pin_memory;  // on the thread that makes the batch
  batches.loader = torch::data::make_data_loader(data::BatchDataset(workload.data.train, transform),
                                                 std::move(sampler),
                                                 torch::data::DataLoaderOptions(config.batch_size)
                                                     .drop_last(true)
                                                     .workers(config.techniques.loader_workers));
  return batches;
}

}  // namespace speedbench
