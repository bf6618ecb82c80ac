#include "harness/distributed/gradient_reducer.h"

#include <torch/torch.h>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace speedbench::distributed {

GradientReducer::GradientReducer(const std::vector<torch::Tensor>& parameters,
                                 std::shared_ptr<ProcessGroup> group, int64_t bucket_cap_bytes)
    : parameters_(parameters),
      group_(std::move(group)),
      slots_(parameters.size()),
      arrived_(parameters.size(), false) {
  // Assign parameters, last first, to buckets of one dtype and device and at most the cap.
  int64_t bucket_bytes = 0;
  for (size_t i = parameters_.size(); i-- > 0;) {
    const auto& p = parameters_[i];
    if (!p.requires_grad()) continue;
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    const bool fits = !buckets_.empty() && bucket_bytes + bytes <= bucket_cap_bytes &&
                      buckets_.back().buffer.scalar_type() == p.scalar_type() &&
                      buckets_.back().buffer.device() == p.device();
    if (!fits) {
      buckets_.push_back(Bucket{});
      buckets_.back().buffer = torch::empty({0}, p.options());
      bucket_bytes = 0;
    }
    auto& bucket = buckets_.back();
    slots_[i] = Slot{buckets_.size() - 1, bucket.buffer.numel()};
    bucket.parameters.push_back(i);
    bucket.buffer = torch::empty({bucket.buffer.numel() + p.numel()}, p.options());
    bucket_bytes += bytes;
  }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!parameters_[i].requires_grad()) continue;
    hook_handles_.push_back(parameters_[i].register_hook(
        [this, i](const torch::Tensor& grad) { on_gradient(i, grad); }));
  }
}

GradientReducer::~GradientReducer() {
  size_t h = 0;
  for (auto& p : parameters_) {
    if (p.requires_grad()) p.remove_hook(hook_handles_[h++]);
  }
}

torch::Tensor GradientReducer::slice_of(size_t index) {
  const auto& p = parameters_[index];
  return buckets_[slots_[index].bucket]
      .buffer.narrow(0, slots_[index].offset, p.numel())
      .view(p.sizes());
}

void GradientReducer::prepare_backward(bool synchronize) {
  std::lock_guard<std::mutex> lock(mutex_);
  synchronize_ = synchronize;
  if (!synchronize) return;
  gradients_seen_ = 0;
  std::fill(arrived_.begin(), arrived_.end(), false);
  for (auto& bucket : buckets_) {
    bucket.pending = bucket.parameters.size();
    bucket.work.reset();
    bucket.launched_after_gradients = -1;
  }
}

void GradientReducer::on_gradient(size_t index, const torch::Tensor& grad) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!synchronize_ || arrived_[index]) return;
  arrived_[index] = true;
  gradients_seen_ += 1;
  // The hook sees this backward's gradient before it is added to .grad: the bucket gets the sum
  // (earlier micro-batches of an accumulation live in .grad).
  auto slice = slice_of(index);
  const auto& accumulated = parameters_[index].grad();
  if (accumulated.defined()) {
    torch::add_out(slice, accumulated, grad);
  } else {
    slice.copy_(grad);
  }
  auto& bucket = buckets_[slots_[index].bucket];
  if (--bucket.pending == 0) {
    bucket.launched_after_gradients = gradients_seen_;
    launch(bucket);
  }
}

void GradientReducer::launch(Bucket& bucket) {
  std::vector<torch::Tensor> tensors = {bucket.buffer};
  bucket.work = group_->collectives->allreduce(tensors);
}

double GradientReducer::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  // Parameters that took no part in this backward contribute their current gradient (or zero).
  for (auto& bucket : buckets_) {
    if (bucket.work) continue;
    for (size_t index : bucket.parameters) {
      if (arrived_[index]) continue;
      const auto& grad = parameters_[index].grad();
      grad.defined() ? slice_of(index).copy_(grad) : slice_of(index).zero_();
    }
    launch(bucket);
  }
  overlapped_launches_ = 0;
  double waited_ms = 0;
  for (auto& bucket : buckets_) {
    if (bucket.launched_after_gradients >= 0 && bucket.launched_after_gradients < gradients_seen_) {
      overlapped_launches_ += 1;
    }
    const auto start = std::chrono::steady_clock::now();
    bucket.work->wait(group_->timeout);
    waited_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    bucket.buffer.div_(group_->world_size);
    bucket.work.reset();
    for (size_t index : bucket.parameters) {
      auto& grad = parameters_[index].mutable_grad();
      if (grad.defined()) {
        grad.copy_(slice_of(index));
      } else {
        grad = slice_of(index).clone();
      }
    }
  }
  synchronize_ = false;
  return waited_ms;
}

void broadcast_from_rank0(const std::vector<torch::Tensor>& tensors, ProcessGroup& group) {
  torch::NoGradGuard no_grad;
  for (const auto& tensor : tensors) {
    std::vector<torch::Tensor> one = {tensor.is_contiguous() ? tensor : tensor.contiguous()};
    group.collectives->broadcast(one)->wait(group.timeout);
    if (!one[0].is_same(tensor)) tensor.copy_(one[0]);
  }
}

std::vector<double> gather_from_all_ranks(double value, ProcessGroup& group) {
  // NCCL reduces device tensors only.
  const auto options = torch::TensorOptions(torch::kFloat64)
                           .device(group.backend == "nccl" ? torch::kCUDA : torch::kCPU);
  const auto mine = torch::full({1}, value, options);
  std::vector<torch::Tensor> outputs;
  for (int r = 0; r < group.world_size; ++r) outputs.push_back(torch::empty({1}, options));
  std::vector<std::vector<torch::Tensor>> output_lists = {outputs};
  std::vector<torch::Tensor> inputs = {mine};
  group.collectives->allgather(output_lists, inputs)->wait(group.timeout);
  std::vector<double> values;
  for (const auto& t : output_lists[0]) values.push_back(t.item<double>());
  return values;
}

std::vector<bool> ranks_on_this_machine(ProcessGroup& group) {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  // A hash of the name, cut to 52 bits: a double holds it exactly.
  const auto key = static_cast<double>(std::hash<std::string>{}(name) & ((uint64_t{1} << 52) - 1));
  const auto keys = gather_from_all_ranks(key, group);
  std::vector<bool> same;
  for (const double other : keys) same.push_back(other == key);
  return same;
}

}  // namespace speedbench::distributed
