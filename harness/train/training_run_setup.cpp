// TrainingRun's set-up (training_run.h): the matmul peak, the workload on its device, max batch,
// DDP, the optimizer, the loader and schedule, and last the meters. The loop is in train_loop.cpp.
#include <torch/torch.h>

#include <algorithm>
#include <string>

#include "harness/techniques/channels_last.h"
#include "harness/techniques/max_batch.h"
#include "harness/train/optimizer_factory.h"
#include "harness/train/training_run.h"
#include "harness/train/training_steps.h"

namespace speedbench {

TrainingRun::TrainingRun(const TrainConfig& requested, const ProgressFn& progress,
                         std::shared_ptr<distributed::ProcessGroup> group)
    : config_(requested), group_(std::move(group)) {
  apply_runtime_settings(config_);
  rank_ = group_ ? group_->rank : 0;
  world_size_ = group_ ? group_->world_size : 1;
  on_cuda_ = config_.device == "cuda";
  device_index_ = on_cuda_ && group_ ? group_->local_rank : 0;
  device_ = on_cuda_ ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(device_index_))
                     : torch::Device(torch::kCPU);

  // The peak MFU divides by, in the run's precision, with its threads and backend flags; its
  // random matrices must not move the run's random stream, so the seed is set again after it.
  matmul_peak_ = measure::measure_matmul_peak(on_cuda_, device_index_,
                                              {measure::matmul_dtype_for_amp(tech_.amp)});
  torch::manual_seed(static_cast<uint64_t>(config_.seed));
  m_.matmul_peak_size = matmul_peak_.size;
  m_.matmul_peak_flops = matmul_peak_.flops_per_s;  // until the end's probe is faster
  m_.matmul_peak_flops_at_start = matmul_peak_.flops_per_s;
  m_.matmul_peak_kernel = matmul_peak_.kernel;

  const double lr_scale = set_up_model();
  set_up_steps(lr_scale);
  start_meters(progress);
}

// The workload on the device, the largest batch if max_batch asks for it, DDP and the optimizer;
// what the record says of the model. Returns the factor max_batch scales the LR by (else 1).
double TrainingRun::set_up_model() {
  workload_ = build_workload(config_);
  if (config_.data.on_device) data::move_examples_to(workload_.data, device_);
  double lr_scale = 1.0;
  if (tech_.max_batch.enabled) {
    const auto requested_batch = config_.batch_size;
    m_.max_batch_probes = apply_max_batch(config_, workload_, device_);
    lr_scale = static_cast<double>(config_.batch_size) / static_cast<double>(requested_batch);
  }
  m_.batch_size = config_.batch_size;
  workload_.module->to(device_);
  if (tech_.channels_last) convert_to_channels_last(*workload_.module);
  workload_.module->train();
  parameters_ = workload_.module->parameters();
  if (world_size_ > 1) set_up_data_parallel();
  optimizer_ = make_optimizer(config_.optimizer, parameters_, tech_.optimizer_impl);

  outcome_.unigram_entropy_bits = workload_.data.unigram_entropy_bits;
  outcome_.data_source = workload_.data.source;
  m_.parameter_count = count_parameters(*workload_.module);
  m_.train_flops_per_sample =
      3.0 * forward_flops_per_sample(config_, workload_.data.train.inputs.sizes().slice(1).vec(),
                                     workload_.data.num_classes);
  m_.target_accuracy = config_.target_accuracy;
  return lr_scale;
}

// DDP (tip 10): every rank starts from rank 0's weights; gradients meet in the reducer.
void TrainingRun::set_up_data_parallel() {
  auto state = parameters_;
  for (const auto& buffer : workload_.module->buffers()) state.push_back(buffer);
  distributed::broadcast_from_rank0(state, *group_);
  m_.distributed.bucket_cap_bytes = static_cast<int64_t>(tech_.ddp_bucket_cap_mb * 1024 * 1024);
  reducer_ = std::make_unique<distributed::GradientReducer>(parameters_, group_,
                                                            m_.distributed.bucket_cap_bytes);
  m_.distributed.world_size = world_size_;
  m_.distributed.backend = group_->backend;
  m_.distributed.launcher = group_->launcher;
  m_.distributed.buckets = reducer_->bucket_count();
}

// The loader, how many steps, when to evaluate, the LR schedule and mixed precision.
void TrainingRun::set_up_steps(double lr_scale) {
  test_set_.emplace(workload_.data.test, workload_.transform);
  auto batches = make_train_batches(workload_, config_, rank_, world_size_);
  loader_ = std::move(batches.loader);
  steps_per_epoch_ = batches.steps_per_epoch;
  total_steps_ = total_training_steps(config_, steps_per_epoch_);
  eval_every_ = config_.eval_every_steps > 0 ? config_.eval_every_steps : steps_per_epoch_;
  auto schedule_config = tech_.lr_schedule;
  schedule_config.max_lr *= lr_scale;
  schedule_.emplace(schedule_config, config_.optimizer.lr * lr_scale, total_steps_,
                    steps_per_epoch_);
  lr_warmup_ = tech_.max_batch.enabled ? tech_.max_batch.warmup_steps : 0;

  autocast_ = tech_.amp != "off";
  amp_dtype_ = tech_.amp == "fp16" ? torch::kFloat16 : torch::kBFloat16;
  if (tech_.amp == "fp16") scaler_.emplace(device_);
}

// The meters, last: what the set-up allocated and synced is not the training's.
void TrainingRun::start_meters(const ProgressFn& progress) {
  memory_ = measure::make_memory_meter(on_cuda_, device_index_);
  memory_->release_cached();  // the peak's matrices and max_batch's probes are gone
  m_.resident_bytes = memory_->current_bytes();  // data, model: what every step's peak stands on
  memory_->reset_peak();
  measure::reset_host_sync_count();
  if (on_cuda_) device_syncs_ = measure::start_cuda_sync_counter();
  timer_ = measure::make_step_timer(on_cuda_, device_index_);
  m_.step_timing = timer_->source();
  reporter_.emplace(progress, static_cast<double>(config_.progress_every_s));
  loss_reader_.emplace(tech_.sync_avoidance ? tech_.sync_every_steps : 1);
  debug_mode_.emplace(tech_.debug_mode);
}

}  // namespace speedbench
