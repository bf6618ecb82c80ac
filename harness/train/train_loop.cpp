// TrainingRun's loop (training_run.h), read top to bottom: run(), the parts of one step in the
// order a step runs them, the totals; then train(). The set-up is in training_run_setup.cpp.
#include "harness/train/train_loop.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/measure/cpu_memory_tracker.h"
#include "harness/measure/statistics.h"
#include "harness/techniques/backend_flags.h"
#include "harness/techniques/channels_last.h"
#include "harness/techniques/debug_mode.h"
#include "harness/techniques/grad_clipping.h"
#include "harness/techniques/host_memory_reuse.h"
#include "harness/techniques/zero_grad.h"
#include "harness/train/evaluate.h"
#include "harness/train/fault_injection.h"
#include "harness/train/optimizer_factory.h"
#include "harness/train/training_run.h"

namespace speedbench {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// ---- the loop ---------------------------------------------------------------------------------
TrainOutcome TrainingRun::run() {
  heap_layout_.emplace(config_.seed);  // before the clock: its malloc is not the training's
  m_.heap_layout_bytes = heap_layout_->bytes();
  start_ = Clock::now();
  other_load_.emplace();
  cpu_wait_.emplace();
  quota_throttling_.emplace();
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
  const int64_t faults_at_start = measure::minor_page_faults();
  timer_->start_step();
  set_step_learning_rate();
  auto [inputs, targets] = batch_to_device(*batch_it);
  const auto batch_size = inputs.size(0);

  torch::Tensor step_loss;  // stays on the device
  try {
    if (tech_.cuda_graphs) {
      // The whole step as one replayed CUDA graph, captured on the first batch.
      if (!captured_step_) {
        captured_step_ = capture_training_step(workload_, *optimizer_, config_, inputs, targets);
      }
      step_loss = captured_step_->run(inputs, targets).clone();  // the graph reuses its output
    } else {
      step_loss = forward_backward_step(inputs, targets);
    }
  } catch (const c10::Error& error) {
    // Anomaly detection (debug_mode "anomaly") stops the backward pass that makes a NaN: the
    // run diverged, as when a loss is read as NaN without it (rank 0 decides), and it names the op.
    const std::string report = error.what_without_backtrace();
    if (!is_anomaly_nan_report(report) || rank_ != 0) throw;
    if (take_losses(loss_reader_->flush())) {  // the earlier steps' losses, still unread
      end_as_diverged("gradients became NaN at step " + std::to_string(m_.steps + 1) +
                      " (anomaly detection: " + report + ")");
    }
    return false;
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
    m_.minor_page_faults =
        m_.minor_page_faults.value_or(0) + measure::minor_page_faults() - faults_at_start;
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

// Host -> device (tip 2: the loader pinned the batch, so the copy can be asynchronous).
std::pair<torch::Tensor, torch::Tensor> TrainingRun::batch_to_device(
    const torch::data::Example<>& batch) {
  auto inputs = batch.data.to(device_, /*non_blocking=*/tech_.pin_memory);
  auto targets = batch.target.to(device_, /*non_blocking=*/tech_.pin_memory);
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
      end_as_diverged(
          "loss became " + std::to_string(loss) + " at step " +
          std::to_string(m_.step_losses.size() + 1) +
          (too_high ? " (above divergence_loss " + std::to_string(config_.divergence_loss) + ")"
                    : ""));
      return false;
    }
    m_.step_losses.push_back(static_cast<float>(loss));  // as the record keeps it
    m_.final_train_loss = loss;
    loss_since_eval_ += loss;
    losses_since_eval_ += 1;
  }
  return true;
}

void TrainingRun::end_as_diverged(const std::string& message) {
  outcome_.status = RunStatus::kDiverged;
  outcome_.message = message;
}

// Moves the timer's finished steps into the record; the first warmup_steps are kept apart.
void TrainingRun::collect_step_times() {
  for (double ms : timer_->take_step_ms()) {
    if (++steps_timed_ <= config_.warmup_steps) {
      m_.warmup_step_ms.push_back(ms);
      continue;
    }
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
  if (const auto others = load_of_others()) {
    m_.other_processes_busy_cores = others->busy_cores;
    m_.stolen_cores = others->stolen_cores;
  }
  m_.cpu_wait_threads = cpu_wait_threads();
  m_.quota_throttled_share = quota_throttling_->throttled_share();
  time_matmul_peak_at_end();  // after the meters above: its products are not the training's
  m_.mfu = measure::model_flop_utilisation(m_.model_flops_per_s_per_device(),
                                           measure::peak_for_amp(matmul_peak_, tech_.amp));
  outcome_.model = workload_.module;
  if (!m_.curve.empty()) {
    m_.final_test_loss = m_.curve.back().test_loss;
    m_.final_test_accuracy = m_.curve.back().test_accuracy;
  }
}

// The matmul peak again, now that the run has trained, and the faster of the two for its MFU: a
// transient (another process, a vCPU the hypervisor held back) that slows the start's probe of
// milliseconds is rarely there at the end too (matmul_peak.h). A run that did not end ok, or a
// device the training left no room on for the products, keeps the start's.
void TrainingRun::time_matmul_peak_at_end() {
  if (outcome_.status != RunStatus::kOk) return;
  device_syncs_.reset();  // counted already; the products' syncs are not the training's
  try {
    const auto at_end = measure::measure_matmul_peak(on_cuda_, device_index_,
                                                     {measure::matmul_dtype_for_amp(tech_.amp)});
    m_.matmul_peak_flops_at_end = at_end.flops_per_s;
    matmul_peak_ = measure::faster_peak(matmul_peak_, at_end);
  } catch (const c10::OutOfMemoryError&) {
    return;
  }
  m_.matmul_peak_flops = matmul_peak_.flops_per_s;
  m_.matmul_peak_kernel = matmul_peak_.kernel;
}

// What processes other than the run's, and the hypervisor, took of its CPUs since the first step:
// a DDP run's other ranks on this machine are the run's own (their CPU seconds gathered, as the
// step times are).
std::optional<measure::OthersLoad> TrainingRun::load_of_others() {
  double run_cpu_s = other_load_->own_cpu_s();
  if (reducer_) {
    if (outcome_.status != RunStatus::kOk) return std::nullopt;  // the ranks met no more
    m_.distributed.rank_cpu_s = distributed::gather_from_all_ranks(run_cpu_s, *group_);
    const auto on_this_machine = distributed::ranks_on_this_machine(*group_);
    run_cpu_s = 0;
    for (size_t r = 0; r < on_this_machine.size(); ++r) {
      if (on_this_machine[r]) run_cpu_s += m_.distributed.rank_cpu_s[r];
    }
  }
  return other_load_->load(run_cpu_s);
}

// The run's threads that waited for a CPU since the first step: in a DDP run, every rank's
// (gathered, as the step times are); none where a rank's kernel keeps no schedstat.
std::optional<double> TrainingRun::cpu_wait_threads() {
  const auto waiting = cpu_wait_->waiting_threads();
  if (!reducer_) return waiting;
  if (outcome_.status != RunStatus::kOk) return std::nullopt;  // the ranks met no more
  double all_ranks = 0;
  for (double rank_waiting : distributed::gather_from_all_ranks(waiting.value_or(-1), *group_)) {
    if (rank_waiting < 0) return std::nullopt;
    all_ranks += rank_waiting;
  }
  return all_ranks;
}

void apply_runtime_settings(const TrainConfig& config) {
  torch::set_num_threads(static_cast<int>(config.threads));
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  at::globalContext().setDeterministicAlgorithms(config.deterministic, /*warn_only=*/false);
  apply_backend_flags(config.techniques);
  if (config.techniques.host_memory_reuse && !keep_freed_host_memory()) {
    throw std::runtime_error(
        "host_memory_reuse: this C library's malloc took no mmap limit and trim threshold (glibc's "
        "mallopt does)");
  }
}

TrainOutcome train(const TrainConfig& config, const ProgressFn& progress,
                   std::shared_ptr<distributed::ProcessGroup> group) {
  return TrainingRun(config, progress, std::move(group)).run();
}

}  // namespace speedbench
