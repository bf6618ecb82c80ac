// Tip 10's engine, built on c10d collectives: gradients are all-reduced in size-capped buckets,
// each launched asynchronously from the autograd hooks as soon as its last gradient arrives, so
// communication overlaps the rest of backward (the DistributedDataParallel design, Li et al.
// arXiv 2006.15704). finish() waits for every bucket, averages by world size and writes the
// gradients back. A backward prepared with synchronize=false (an accumulation micro-batch other
// than the last) reduces nothing: DDP's no_sync.
#pragma once

#include <torch/types.h>

#include <memory>
#include <mutex>
#include <vector>

#include "harness/distributed/process_group.h"

namespace speedbench::distributed {

class GradientReducer {
 public:
  // Buckets hold parameters in reverse registration order (the order backward produces their
  // gradients), at most `bucket_cap_bytes` each (a larger single parameter gets its own bucket).
  GradientReducer(const std::vector<torch::Tensor>& parameters, std::shared_ptr<ProcessGroup> group,
                  int64_t bucket_cap_bytes);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Call before each backward; `synchronize` = this backward's gradients are all-reduced.
  void prepare_backward(bool synchronize);

  // After a synchronized backward: launches buckets that did not fill (unused parameters), waits
  // for all, and leaves every parameter's .grad equal to the mean over ranks. Returns the
  // milliseconds spent waiting for communication.
  double finish();

  int64_t bucket_count() const { return static_cast<int64_t>(buckets_.size()); }
  // Of the last synchronized backward: buckets launched while gradients were still arriving.
  int64_t overlapped_launches() const { return overlapped_launches_; }

 private:
  struct Slot {
    size_t bucket = 0;
    int64_t offset = 0;
  };
  struct Bucket {
    torch::Tensor buffer;                   // the flat gradients of its parameters
    std::vector<size_t> parameters;         // indices into parameters_
    size_t pending = 0;                     // gradients not yet arrived this backward
    c10::intrusive_ptr<c10d::Work> work;    // the all-reduce in flight
    int64_t launched_after_gradients = -1;  // gradients seen when it was launched (-1: by finish)
  };

  void on_gradient(size_t index, const torch::Tensor& grad);
  torch::Tensor slice_of(size_t index);
  void launch(Bucket& bucket);

  std::vector<torch::Tensor> parameters_;
  std::shared_ptr<ProcessGroup> group_;
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  std::vector<unsigned> hook_handles_;
  std::vector<bool> arrived_;
  std::mutex mutex_;  // hooks may run on autograd's device threads
  bool synchronize_ = false;
  int64_t gradients_seen_ = 0;
  int64_t overlapped_launches_ = 0;
};

// Copies rank 0's values of `tensors` (parameters, buffers) to every rank.
void broadcast_from_rank0(const std::vector<torch::Tensor>& tensors, ProcessGroup& group);

// Gathers one number per rank (for per-rank step times); every rank gets all of them.
std::vector<double> gather_from_all_ranks(double value, ProcessGroup& group);

// For each rank, whether it runs on this rank's machine (the same host name).
std::vector<bool> ranks_on_this_machine(ProcessGroup& group);

}  // namespace speedbench::distributed
