// Tip 3, max_batch: the default batch -> the largest batch whose training step fits the memory
// budget, found by search, trained with the LR scaled linearly (Goyal et al., arXiv 1706.02677)
// and a linear warmup. Claims: "4x faster going from batch 64 to 512 with 1cycle" (unverified
// article); counter-evidence: 128 -> 512 gave only ~14% faster time-to-94% (Myrtle, "How to
// train your ResNet").
// On the CPU the budget is counted in exact tensor bytes (the tracking allocator), so the search
// is deterministic. On CUDA a candidate that raises out-of-memory does not fit (the error is
// caught and the allocator's cache emptied before the next candidate); a budget > 0 also caps the
// caching allocator's peak of live bytes, budget 0 leaves the whole device to the search.
#pragma once

#include <functional>
#include <vector>

#include "harness/train/workload.h"

namespace speedbench {

struct BatchProbe {
  int64_t batch = 0;
  int64_t peak_bytes = -1;  // -1: out of memory
  bool fits = false;
};

struct MaxBatchResult {
  int64_t batch = 0;               // the largest batch that fits (0: not even `start`)
  std::vector<BatchProbe> probes;  // every candidate tried, in order
};

// Doubling from `start` until a candidate does not fit (or `limit`), then bisection between the
// last fit and the first failure. `measure` returns a probe for one candidate batch.
MaxBatchResult search_max_batch(const std::function<BatchProbe(int64_t)>& measure, int64_t start,
                                int64_t limit);

// One training step (forward, backward, optimizer step) of a fresh copy of the config's model at
// `batch`. It fits when its peak tensor bytes above the level before it are within
// `budget_bytes` and, on CUDA, when it does not run out of device memory (budget 0: only that).
BatchProbe probe_training_step(const TrainConfig& config, const Workload& workload, int64_t batch,
                               int64_t budget_bytes, const torch::Device& device);

// Replaces config.batch_size by the largest batch within techniques.max_batch's budget (the
// caller scales the LR by new / old batch: the linear scaling rule) and returns how many
// candidates the search tried. Throws c10::OutOfMemoryError, saying the bytes its step took,
// when not even the config's batch fits.
int64_t apply_max_batch(TrainConfig& config, const Workload& workload, const torch::Device& device);

}  // namespace speedbench
