// The DistributedSampler of LibTorch training here: each epoch draws one permutation of the
// training set from (seed, epoch), the same on every rank, and rank r takes positions
// r, r + W, r + 2W, ... (W = world size; the tail that does not divide evenly is dropped so that
// every rank runs the same number of steps). With W = 1 it is a seeded random sampler.
// Batch i of rank r, over all ranks, is exactly batch i of one process with W times the batch:
// the equivalence the DDP test checks.
#pragma once

#include <torch/data/samplers/base.h>

#include <cstdint>
#include <vector>

namespace speedbench::distributed {

class ShardedRandomSampler : public torch::data::samplers::Sampler<std::vector<size_t>> {
 public:
  ShardedRandomSampler(size_t dataset_size, uint64_t seed, int rank, int world_size);

  // Starts the next epoch (the DataLoader calls this at every begin()).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

  // Examples this rank sees per epoch.
  size_t shard_size() const { return dataset_size_ / static_cast<size_t>(world_size_); }
  // This rank's indices of epoch `epoch` (0-based), in order.
  std::vector<size_t> shard_of_epoch(int64_t epoch) const;

 private:
  size_t dataset_size_;
  uint64_t seed_;
  int rank_;
  int world_size_;
  int64_t epoch_ = -1;
  std::vector<size_t> shard_;
  size_t position_ = 0;
};

}  // namespace speedbench::distributed
