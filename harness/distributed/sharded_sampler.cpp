#include "harness/distributed/sharded_sampler.h"

#include <torch/serialize/archive.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace speedbench::distributed {

ShardedRandomSampler::ShardedRandomSampler(size_t dataset_size, uint64_t seed, int rank,
                                           int world_size)
    : dataset_size_(dataset_size), seed_(seed), rank_(rank), world_size_(world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size) {
    throw std::invalid_argument("ShardedRandomSampler: rank " + std::to_string(rank) +
                                " outside world size " + std::to_string(world_size));
  }
}

std::vector<size_t> ShardedRandomSampler::shard_of_epoch(int64_t epoch) const {
  std::vector<size_t> permutation(dataset_size_);
  std::iota(permutation.begin(), permutation.end(), size_t{0});
  // A generator of its own: every rank draws the same permutation, whatever else used torch's RNG.
  std::mt19937_64 generator(seed_ * 1000003u + static_cast<uint64_t>(epoch));
  std::shuffle(permutation.begin(), permutation.end(), generator);
  std::vector<size_t> shard;
  shard.reserve(shard_size());
  for (size_t k = 0; k < shard_size(); ++k) {
    shard.push_back(permutation[k * static_cast<size_t>(world_size_) + static_cast<size_t>(rank_)]);
  }
  return shard;
}

void ShardedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) dataset_size_ = *new_size;
  epoch_ += 1;
  shard_ = shard_of_epoch(epoch_);
  position_ = 0;
}

std::optional<std::vector<size_t>> ShardedRandomSampler::next(size_t batch_size) {
  if (position_ >= shard_.size()) return std::nullopt;
  const size_t end = std::min(shard_.size(), position_ + batch_size);
  std::vector<size_t> batch(shard_.begin() + static_cast<std::ptrdiff_t>(position_),
                            shard_.begin() + static_cast<std::ptrdiff_t>(end));
  position_ = end;
  return batch;
}

void ShardedRandomSampler::save(torch::serialize::OutputArchive&) const {
  throw std::logic_error("ShardedRandomSampler: saving the position is not supported");
}

void ShardedRandomSampler::load(torch::serialize::InputArchive&) {
  throw std::logic_error("ShardedRandomSampler: loading a position is not supported");
}

}  // namespace speedbench::distributed
