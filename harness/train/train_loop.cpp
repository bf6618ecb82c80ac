#include "harness/train/train_loop.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "harness/config/config_error.h"
#include "harness/distributed/gradient_reducer.h"
#include "harness/distributed/sharded_sampler.h"
#include "harness/measure/cpu_memory_tracker.h"
#include "harness/measure/matmul_peak.h"
#include "harness/measure/memory_meter.h"
#include "harness/measure/statistics.h"
#include "harness/measure/step_timer.h"
#include "harness/measure/sync_counter.h"
#include "harness/techniques/amp.h"
#include "harness/techniques/backend_flags.h"
#include "harness/techniques/channels_last.h"
#include "harness/techniques/cuda_graphs.h"
#include "harness/techniques/debug_mode.h"
#include "harness/techniques/grad_clipping.h"
#include "harness/techniques/loss_reader.h"
#include "harness/techniques/lr_schedule.h"
#include "harness/techniques/max_batch.h"
#include "harness/techniques/zero_grad.h"
#include "harness/train/evaluate.h"
#include "harness/train/fault_injection.h"
#include "harness/train/optimizer_factory.h"
#include "harness/train/progress_reporter.h"
#include "harness/train/workload.h"

namespace speedbench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One training run. The constructor sets it up in the order the measurement needs: the matmul
// peak first, then the workload, model, optimizer and data, and last the meters, zeroed just
// before the first step. run() is the loop (called once: it hands the outcome over); each step's
// parts are methods below it, in the order a step runs them. The members are what the steps share.
class TrainingRun {
 public:
  TrainingRun(const TrainConfig& requested, const ProgressFn& progress,
              std::shared_ptr<distributed::ProcessGroup> group);
  TrainingRun(const TrainingRun&) = delete;  // tech_ and m_ refer to its own members
  TrainingRun& operator=(const TrainingRun&) = delete;
  TrainOutcome run();

 private:
  using Loader =
      torch::data::StatelessDataLoader<data::BatchDataset, distributed::ShardedRandomSampler>;
  using BatchIterator = decltype(std::declval<Loader&>().begin());

  double set_up_model();
  void set_up_data_parallel();
  void set_up_steps(double lr_scale);
  void start_meters(const ProgressFn& progress);
  bool train_step(BatchIterator& batch_it);
  void set_step_learning_rate();
  std::pair<torch::Tensor, torch::Tensor> batch_to_device(const torch::data::Example<>& batch);
  torch::Tensor forward_backward_step(const torch::Tensor& inputs, const torch::Tensor& targets);
  bool take_losses(const std::vector<double>& losses);
  void collect_step_times();
  void evaluate_now();
  void record_totals();

  // ---- what the run is ------------------------------------------------------------------------
  TrainConfig config_;  // max_batch may change the batch size
  const Techniques& tech_ = config_.techniques;
  std::shared_ptr<distributed::ProcessGroup> group_;
  int rank_ = 0;
  int world_size_ = 1;
  bool on_cuda_ = false;
  int device_index_ = 0;
  torch::Device device_ = torch::kCPU;
  TrainOutcome outcome_;
  RunMetrics& m_ = outcome_.metrics;
  measure::MatmulPeak matmul_peak_;

  // ---- workload: data, model, optimizer, schedule ---------------------------------------------
  Workload workload_;
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<distributed::GradientReducer> reducer_;  // DDP only
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::optional<data::BatchDataset> test_set_;
  std::unique_ptr<Loader> loader_;
  int64_t steps_per_epoch_ = 0;
  int64_t total_steps_ = 0;
  int64_t eval_every_ = 0;
  std::optional<LrSchedule> schedule_;
  int64_t lr_warmup_ = 0;
  bool autocast_ = false;  // mixed precision: autocast for bf16 and fp16
  c10::ScalarType amp_dtype_ = torch::kBFloat16;
  std::optional<GradScaler> scaler_;                     // fp16 only
  std::unique_ptr<CapturedTrainingStep> captured_step_;  // cuda_graphs, captured on the first batch

  // ---- meters ---------------------------------------------------------------------------------
  std::unique_ptr<measure::MemoryMeter> memory_;
  std::unique_ptr<measure::DeviceSyncCounter> device_syncs_;  // CUDA only
  int64_t eval_device_syncs_ = 0;  // evaluations' own syncs, kept out of the training count
  std::unique_ptr<measure::StepTimer> timer_;
  std::optional<ProgressReporter> reporter_;
  std::optional<LossReader> loss_reader_;
  std::optional<DebugModeGuard> debug_mode_;
  Clock::time_point start_;
  double loss_since_eval_ = 0;
  int64_t losses_since_eval_ = 0;
  double measured_step_s_ = 0;
  int64_t measured_samples_ = 0;
  int64_t steps_timed_ = 0;
  double comm_wait_ms_ = 0;  // this step's wait for the gradient all-reduces
};

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
  m_.matmul_peak_flops = matmul_peak_.flops_per_s;

  const double lr_scale = set_up_model();
  set_up_steps(lr_scale);
  start_meters(progress);
}

// The workload on the device, the largest batch if max_batch asks for it, DDP and the optimizer;
// what the record says of the model. Returns the factor max_batch scales the LR by (else 1).
double TrainingRun::set_up_model() {
  workload_ = build_workload(config_);
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
  // Each rank reads its shard of one shared permutation per epoch (all of it when alone).
  distributed::ShardedRandomSampler sampler(
      workload_.data.train.size(), static_cast<uint64_t>(config_.seed), rank_, world_size_);
  steps_per_epoch_ = static_cast<int64_t>(sampler.shard_size()) / config_.batch_size;
  loader_ = torch::data::make_data_loader(
      data::BatchDataset(workload_.data.train, workload_.transform), std::move(sampler),
      torch::data::DataLoaderOptions(config_.batch_size)
          .drop_last(true)
          .workers(tech_.loader_workers));
  if (steps_per_epoch_ == 0) {  // bad input, known only once the data is loaded
    throw ConfigError("", "batch_size",
                      "got " + std::to_string(config_.batch_size) + ", more than the " +
                          std::to_string(workload_.data.train.size() / world_size_) +
                          " training examples" + (world_size_ > 1 ? " of each rank's shard" : ""));
  }
  total_steps_ = config_.max_steps > 0
                     ? std::min(config_.max_steps, steps_per_epoch_ * config_.epochs)
                     : steps_per_epoch_ * config_.epochs;
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

// ---- the loop ---------------------------------------------------------------------------------
TrainOutcome TrainingRun::run() {
  start_ = Clock::now();
  for (int64_t epoch = 0; epoch < config_.epochs && m_.steps < total_steps_; ++epoch) {
    auto batch_it = loader_->begin();
    while (batch_it != loader_->end() && m_.steps < total_steps_) {
      if (!train_step(batch_it)) break;
    }
    if (outcome_.status != RunStatus::kOk) break;
  }
  if (outcome_.status == RunStatus::kOk) take_losses(loss_reader_->flush());
  record_totals();
  return std::move(outcome_);
}

// One step on the batch at `batch_it`, timed from the LR update to the fetch of the next batch;
// false once the loss is not finite (the run diverged).
bool TrainingRun::train_step(BatchIterator& batch_it) {
  const auto step_start = Clock::now();
  timer_->start_step();
  set_step_learning_rate();
  auto [inputs, targets] = batch_to_device(*batch_it);
  const auto batch_size = inputs.size(0);

  torch::Tensor step_loss;  // stays on the device
  if (tech_.cuda_graphs) {
    // The whole step as one replayed CUDA graph, captured on the first batch.
    if (!captured_step_) {
      captured_step_ = capture_training_step(workload_, *optimizer_, config_, inputs, targets);
    }
    step_loss = captured_step_->run(inputs, targets).clone();  // the graph reuses its output
  } else {
    step_loss = forward_backward_step(inputs, targets);
  }

  // The loss: read now (baseline) or every N steps (tip 7); a non-finite one ends the run.
  if (!take_losses(loss_reader_->add(step_loss))) return false;

  // Fetch the next batch now: its wait belongs to the step that consumes it.
  const auto fetch_start = Clock::now();
  ++batch_it;
  const double fetch_s = seconds_since(fetch_start);
  timer_->end_step();
  const double host_step_s = seconds_since(step_start);  // for progress lines only

  m_.steps += 1;
  maybe_inject_fault(m_.steps);  // tests only: SPEEDBENCH_INJECT_FAULT
  m_.samples_trained += batch_size * world_size_;
  if (m_.steps > config_.warmup_steps) {
    m_.data_wait_ms_total += fetch_s * 1e3;
    m_.distributed.comm_wait_ms_total += comm_wait_ms_;
    measured_samples_ += batch_size * world_size_;  // ranks step together: one step, all batches
  }

  if (m_.steps % eval_every_ == 0 || m_.steps == total_steps_) {
    if (!take_losses(loss_reader_->flush())) return false;
    evaluate_now();
  }
  reporter_->maybe_report([&] {
    char line[200];
    std::snprintf(line, sizeof line, "step %lld/%lld  epoch %.2f  loss %.4f  %.1f ms/step",
                  static_cast<long long>(m_.steps), static_cast<long long>(total_steps_),
                  static_cast<double>(m_.steps) / steps_per_epoch_, m_.final_train_loss,
                  host_step_s * 1e3);
    return std::string(line);
  });
  return true;
}

// Schedule (tip 1), after linear scaling and warmup for max_batch (tip 3).
void TrainingRun::set_step_learning_rate() {
  const double warmup = lr_warmup_ > 0 ? std::min(1.0, (m_.steps + 1.0) / lr_warmup_) : 1.0;
  const double lr = schedule_->lr_at(m_.steps) * warmup;
  set_learning_rate(*optimizer_, lr);
  m_.step_lrs.push_back(lr);
  if (auto momentum = schedule_->momentum_at(m_.steps)) {
    set_momentum(*optimizer_, config_.optimizer.name, *momentum);
  }
}

// Host -> device (tip 2: pinned memory and an asynchronous copy).
std::pair<torch::Tensor, torch::Tensor> TrainingRun::batch_to_device(
    const torch::data::Example<>& batch) {
  auto host_inputs = batch.data, host_targets = batch.target;
  if (tech_.pin_memory) {
    host_inputs = host_inputs.pin_memory();
    host_targets = host_targets.pin_memory();
  }
  auto inputs = host_inputs.to(device_, /*non_blocking=*/tech_.pin_memory);
  auto targets = host_targets.to(device_, /*non_blocking=*/tech_.pin_memory);
  if (tech_.channels_last) inputs = channels_last_input(inputs);
  return {inputs, targets};
}

// Forward and backward, in `grad_accumulation` slices (tip 9) with one optimizer step; returns
// the step's loss, on the device.
torch::Tensor TrainingRun::forward_backward_step(const torch::Tensor& inputs,
                                                 const torch::Tensor& targets) {
  const int64_t micro_batches = tech_.grad_accumulation;
  torch::Tensor step_loss;
  clear_gradients(parameters_, tech_.zero_grad_none);
  const auto input_slices = inputs.chunk(micro_batches);
  const auto target_slices = targets.chunk(micro_batches);
  for (int64_t k = 0; k < micro_batches; ++k) {
    torch::Tensor loss;
    {
      std::optional<AutocastGuard> autocast_guard;
      if (autocast_) autocast_guard.emplace(device_.type(), amp_dtype_);
      loss =
          classification_loss(workload_.train_forward(input_slices[k], config_), target_slices[k]);
      if (micro_batches > 1) loss = loss / static_cast<double>(micro_batches);
    }
    // DDP's no_sync: only the last micro-batch's backward all-reduces.
    if (reducer_) reducer_->prepare_backward(k == micro_batches - 1);
    (scaler_ ? scaler_->scale_loss(loss) : loss).backward();
    step_loss = step_loss.defined() ? step_loss + loss.detach() : loss.detach();
  }
  if (reducer_) comm_wait_ms_ = reducer_->finish();
  bool take_step = true;
  if (scaler_) scaler_->unscale(parameters_);
  if (tech_.grad_clipping > 0) clip_global_grad_norm(parameters_, tech_.grad_clipping);
  if (scaler_) take_step = scaler_->gradients_finite();  // skip a step with inf/NaN gradients
  if (take_step) optimizer_->step();
  if (scaler_) scaler_->update();
  return step_loss;
}

// Takes losses read from the device; false once one is not finite (the run diverged).
bool TrainingRun::take_losses(const std::vector<double>& losses) {
  for (double loss : losses) {
    const bool too_high = config_.divergence_loss > 0 && loss > config_.divergence_loss;
    // Rank 0 decides for a distributed run; its launcher then stops the other workers.
    if ((!std::isfinite(loss) || too_high) && rank_ == 0) {
      outcome_.status = RunStatus::kDiverged;
      outcome_.message =
          "loss became " + std::to_string(loss) + " at step " +
          std::to_string(m_.step_losses.size() + 1) +
          (too_high ? " (above divergence_loss " + std::to_string(config_.divergence_loss) + ")"
                    : "");
      return false;
    }
    m_.step_losses.push_back(loss);
    m_.final_train_loss = loss;
    loss_since_eval_ += loss;
    losses_since_eval_ += 1;
  }
  return true;
}

// Moves the timer's finished steps into the record; the first warmup_steps are not measured.
void TrainingRun::collect_step_times() {
  for (double ms : timer_->take_step_ms()) {
    if (++steps_timed_ <= config_.warmup_steps) continue;
    m_.step_ms.push_back(ms);
    measured_step_s_ += ms / 1e3;
  }
}

// Evaluates, appends a curve point and checks the target.
void TrainingRun::evaluate_now() {
  if (rank_ != 0) return;  // the weights are the same on every rank: one evaluation suffices
  // Training and evaluation peaks are kept apart: one window each.
  m_.peak_allocated_bytes = std::max(m_.peak_allocated_bytes, memory_->peak_bytes());
  m_.peak_reserved_bytes = std::max(m_.peak_reserved_bytes, memory_->peak_reserved_bytes());
  memory_->reset_peak();
  const int64_t syncs_before = device_syncs_ ? device_syncs_->count() : 0;
  collect_step_times();  // waits for the device once; an evaluation would wait anyway
  const auto eval_start = Clock::now();
  EvalResult result;
  {
    std::optional<AutocastGuard> autocast_guard;
    if (autocast_) autocast_guard.emplace(device_.type(), amp_dtype_);
    result = evaluate(workload_, *test_set_, config_.eval_batch_size, device_, tech_.eval_no_grad,
                      tech_.channels_last);
  }
  m_.eval_wall_s += seconds_since(eval_start);
  m_.eval_peak_allocated_bytes = std::max(m_.eval_peak_allocated_bytes, memory_->peak_bytes());
  memory_->reset_peak();
  if (device_syncs_) eval_device_syncs_ += device_syncs_->count() - syncs_before;
  CurvePoint point;
  point.step = m_.steps;
  point.epoch = static_cast<double>(m_.steps) / static_cast<double>(steps_per_epoch_);
  point.wall_s = seconds_since(start_);
  point.train_loss = losses_since_eval_ > 0 ? loss_since_eval_ / losses_since_eval_ : 0.0;
  point.test_loss = result.loss;
  point.test_accuracy = result.accuracy;
  m_.curve.push_back(point);
  loss_since_eval_ = 0;
  losses_since_eval_ = 0;
  if (config_.target_accuracy > 0 && !m_.time_to_target_s &&
      result.accuracy >= config_.target_accuracy) {
    m_.time_to_target_s = point.wall_s;
    m_.steps_to_target = m_.steps;
  }
}

// ---- totals -----------------------------------------------------------------------------------
void TrainingRun::record_totals() {
  collect_step_times();
  m_.train_wall_s = seconds_since(start_);
  m_.measured_steps = static_cast<int64_t>(m_.step_ms.size());
  m_.samples_per_s = measured_step_s_ > 0 ? measured_samples_ / measured_step_s_ : 0.0;
  m_.mfu =
      measure::model_flop_utilisation(m_.train_flops_per_sample * m_.samples_per_s / world_size_,
                                      measure::peak_for_amp(matmul_peak_, tech_.amp));
  m_.peak_allocated_bytes = std::max(m_.peak_allocated_bytes, memory_->peak_bytes());
  m_.peak_reserved_bytes = std::max(m_.peak_reserved_bytes, memory_->peak_reserved_bytes());
  m_.peak_rss_bytes = measure::peak_rss_bytes();
  m_.host_syncs = measure::host_sync_count();
  if (device_syncs_) m_.device_syncs = device_syncs_->count() - eval_device_syncs_;
  if (scaler_) m_.amp_skipped_steps = scaler_->skipped_steps();
  if (reducer_) {
    m_.distributed.overlapped_buckets = reducer_->overlapped_launches();
    // Every rank reaches this point after the same steps unless rank 0 stopped early.
    if (outcome_.status == RunStatus::kOk) {
      m_.distributed.rank_step_ms_median =
          distributed::gather_from_all_ranks(measure::summarize(m_.step_ms).median, *group_);
    }
  }
  outcome_.model = workload_.module;
  if (!m_.curve.empty()) {
    m_.final_test_loss = m_.curve.back().test_loss;
    m_.final_test_accuracy = m_.curve.back().test_accuracy;
  }
}

}  // namespace

void apply_runtime_settings(const TrainConfig& config) {
  torch::set_num_threads(static_cast<int>(config.threads));
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  at::globalContext().setDeterministicAlgorithms(config.deterministic, /*warn_only=*/false);
  apply_backend_flags(config.techniques);
}

TrainOutcome train(const TrainConfig& config, const ProgressFn& progress,
                   std::shared_ptr<distributed::ProcessGroup> group) {
  return TrainingRun(config, progress, std::move(group)).run();
}

}  // namespace speedbench
