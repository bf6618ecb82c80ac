#include "harness/train/train_loop.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

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
#include "harness/train/workload.h"

namespace speedbench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Prints a progress line at most every `period_s` seconds.
class ProgressReporter {
 public:
  ProgressReporter(const ProgressFn& sink, double period_s) : sink_(sink), period_s_(period_s) {}
  void maybe_report(const std::function<std::string()>& make_line) {
    if (!sink_ || period_s_ <= 0 || seconds_since(last_) < period_s_) return;
    last_ = Clock::now();
    sink_(make_line());
  }

 private:
  const ProgressFn& sink_;
  double period_s_;
  Clock::time_point last_ = Clock::now();
};

// Tip 3: replaces config.batch_size by the largest batch within the budget; returns the factor
// the LR is scaled by (the linear scaling rule).
double apply_max_batch(TrainConfig& config, const Workload& workload, const torch::Device& device,
                       RunMetrics& metrics) {
  const auto& options = config.techniques.max_batch;
  const auto result = search_max_batch(
      [&](int64_t batch) {
        return probe_training_step(config, workload, batch, options.budget_bytes, device);
      },
      config.batch_size, std::min<int64_t>(options.limit, workload.data.train.size()));
  if (result.batch == 0) {
    throw std::invalid_argument("max_batch: not even batch " + std::to_string(config.batch_size) +
                                " fits techniques.max_batch.budget_bytes");
  }
  metrics.max_batch_probes = static_cast<int64_t>(result.probes.size());
  const double scale = static_cast<double>(result.batch) / static_cast<double>(config.batch_size);
  config.batch_size = result.batch;
  return scale;
}

}  // namespace

void apply_runtime_settings(const TrainConfig& config) {
  torch::set_num_threads(static_cast<int>(config.threads));
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  at::globalContext().setDeterministicAlgorithms(config.deterministic, /*warn_only=*/false);
  apply_backend_flags(config.techniques);
}

TrainOutcome train(const TrainConfig& requested, const ProgressFn& progress,
                   std::shared_ptr<distributed::ProcessGroup> group) {
  TrainConfig config = requested;  // max_batch may change the batch size
  const auto& tech = config.techniques;
  apply_runtime_settings(config);
  const int rank = group ? group->rank : 0;
  const int world_size = group ? group->world_size : 1;
  const bool on_cuda = config.device == "cuda";
  const int device_index = on_cuda && group ? group->local_rank : 0;
  const torch::Device device =
      on_cuda ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(device_index))
              : torch::Device(torch::kCPU);

  TrainOutcome outcome;
  RunMetrics& m = outcome.metrics;

  // The peak MFU divides by, with this run's threads and backend flags; its random matrices
  // must not move the run's random stream, so the seed is set again after it.
  const auto matmul_peak = measure::measure_matmul_peak(on_cuda, device_index);
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  m.matmul_peak_size = matmul_peak.size;
  m.matmul_peak_flops = matmul_peak.flops_per_s;

  // ---- workload: data, model, optimizer, schedule --------------------------------------------
  Workload workload = build_workload(config);
  double lr_scale = 1.0;
  if (tech.max_batch.enabled) lr_scale = apply_max_batch(config, workload, device, m);
  m.batch_size = config.batch_size;
  workload.module->to(device);
  if (tech.channels_last) convert_to_channels_last(*workload.module);
  workload.module->train();
  const auto parameters = workload.module->parameters();
  // DDP (tip 10): every rank starts from rank 0's weights; gradients meet in the reducer.
  std::unique_ptr<distributed::GradientReducer> reducer;
  if (world_size > 1) {
    auto state = parameters;
    for (const auto& buffer : workload.module->buffers()) state.push_back(buffer);
    distributed::broadcast_from_rank0(state, *group);
    m.distributed.bucket_cap_bytes = static_cast<int64_t>(tech.ddp_bucket_cap_mb * 1024 * 1024);
    reducer = std::make_unique<distributed::GradientReducer>(parameters, group,
                                                             m.distributed.bucket_cap_bytes);
    m.distributed.world_size = world_size;
    m.distributed.backend = group->backend;
    m.distributed.launcher = group->launcher;
    m.distributed.buckets = reducer->bucket_count();
  }
  auto optimizer = make_optimizer(config.optimizer, parameters, tech.optimizer_impl);
  data::BatchDataset test_set(workload.data.test, workload.transform);
  // Each rank reads its shard of one shared permutation per epoch (all of it when alone).
  distributed::ShardedRandomSampler sampler(workload.data.train.size(),
                                            static_cast<uint64_t>(config.seed), rank, world_size);
  const int64_t steps_per_epoch = static_cast<int64_t>(sampler.shard_size()) / config.batch_size;
  auto loader = torch::data::make_data_loader(
      data::BatchDataset(workload.data.train, workload.transform), std::move(sampler),
      torch::data::DataLoaderOptions(config.batch_size)
          .drop_last(true)
          .workers(tech.loader_workers));
  if (steps_per_epoch == 0) {  // bad input, known only once the data is loaded
    throw ConfigError("", "batch_size",
                      "got " + std::to_string(config.batch_size) + ", more than the " +
                          std::to_string(workload.data.train.size() / world_size) +
                          " training examples" + (world_size > 1 ? " of each rank's shard" : ""));
  }
  const int64_t total_steps = config.max_steps > 0
                                  ? std::min(config.max_steps, steps_per_epoch * config.epochs)
                                  : steps_per_epoch * config.epochs;
  const int64_t eval_every =
      config.eval_every_steps > 0 ? config.eval_every_steps : steps_per_epoch;
  auto schedule_config = tech.lr_schedule;
  schedule_config.max_lr *= lr_scale;
  const LrSchedule schedule(schedule_config, config.optimizer.lr * lr_scale, total_steps,
                            steps_per_epoch);
  const int64_t lr_warmup = tech.max_batch.enabled ? tech.max_batch.warmup_steps : 0;

  // Mixed precision: autocast for bf16 and fp16; the gradient scaler for fp16 only.
  const bool autocast = tech.amp != "off";
  const auto amp_dtype = tech.amp == "fp16" ? torch::kFloat16 : torch::kBFloat16;
  std::optional<GradScaler> scaler;
  if (tech.amp == "fp16") scaler.emplace(device);

  outcome.unigram_entropy_bits = workload.data.unigram_entropy_bits;
  outcome.data_source = workload.data.source;
  m.parameter_count = count_parameters(*workload.module);
  m.train_flops_per_sample =
      3.0 * forward_flops_per_sample(config, workload.data.train.inputs.sizes().slice(1).vec(),
                                     workload.data.num_classes);
  m.target_accuracy = config.target_accuracy;

  auto memory = measure::make_memory_meter(on_cuda, device_index);
  memory->release_cached();  // the peak's matrices and max_batch's probes are gone
  m.resident_bytes = memory->current_bytes();  // data, model: what every step's peak stands on
  memory->reset_peak();
  measure::reset_host_sync_count();
  std::unique_ptr<measure::DeviceSyncCounter> device_syncs;
  if (on_cuda) device_syncs = measure::start_cuda_sync_counter();
  int64_t eval_device_syncs = 0;  // evaluations' own syncs, kept out of the training count
  auto timer = measure::make_step_timer(on_cuda, device_index);
  m.step_timing = timer->source();
  ProgressReporter reporter(progress, static_cast<double>(config.progress_every_s));
  LossReader loss_reader(tech.sync_avoidance ? tech.sync_every_steps : 1);
  DebugModeGuard debug_mode(tech.debug_mode);

  double loss_since_eval = 0;
  int64_t losses_since_eval = 0;
  double measured_step_s = 0;
  int64_t measured_samples = 0;
  int64_t steps_timed = 0;
  const auto start = Clock::now();

  // Moves the timer's finished steps into the record; the first warmup_steps are not measured.
  auto collect_step_times = [&] {
    for (double ms : timer->take_step_ms()) {
      if (++steps_timed <= config.warmup_steps) continue;
      m.step_ms.push_back(ms);
      measured_step_s += ms / 1e3;
    }
  };

  // Takes losses read from the device; false once one is not finite (the run diverged).
  auto take_losses = [&](const std::vector<double>& losses) {
    for (double loss : losses) {
      const bool too_high = config.divergence_loss > 0 && loss > config.divergence_loss;
      // Rank 0 decides for a distributed run; its launcher then stops the other workers.
      if ((!std::isfinite(loss) || too_high) && rank == 0) {
        outcome.status = RunStatus::kDiverged;
        outcome.message =
            "loss became " + std::to_string(loss) + " at step " +
            std::to_string(m.step_losses.size() + 1) +
            (too_high ? " (above divergence_loss " + std::to_string(config.divergence_loss) + ")"
                      : "");
        return false;
      }
      m.step_losses.push_back(loss);
      m.final_train_loss = loss;
      loss_since_eval += loss;
      losses_since_eval += 1;
    }
    return true;
  };

  // Evaluates, appends a curve point and checks the target.
  auto evaluate_now = [&]() {
    if (rank != 0) return;  // the weights are the same on every rank: one evaluation suffices
    // Training and evaluation peaks are kept apart: one window each.
    m.peak_allocated_bytes = std::max(m.peak_allocated_bytes, memory->peak_bytes());
    m.peak_reserved_bytes = std::max(m.peak_reserved_bytes, memory->peak_reserved_bytes());
    memory->reset_peak();
    const int64_t syncs_before = device_syncs ? device_syncs->count() : 0;
    collect_step_times();  // waits for the device once; an evaluation would wait anyway
    const auto eval_start = Clock::now();
    EvalResult result;
    {
      std::optional<AutocastGuard> autocast_guard;
      if (autocast) autocast_guard.emplace(device.type(), amp_dtype);
      result = evaluate(workload, test_set, config.eval_batch_size, device, tech.eval_no_grad,
                        tech.channels_last);
    }
    m.eval_wall_s += seconds_since(eval_start);
    m.eval_peak_allocated_bytes = std::max(m.eval_peak_allocated_bytes, memory->peak_bytes());
    memory->reset_peak();
    if (device_syncs) eval_device_syncs += device_syncs->count() - syncs_before;
    CurvePoint point;
    point.step = m.steps;
    point.epoch = static_cast<double>(m.steps) / static_cast<double>(steps_per_epoch);
    point.wall_s = seconds_since(start);
    point.train_loss = losses_since_eval > 0 ? loss_since_eval / losses_since_eval : 0.0;
    point.test_loss = result.loss;
    point.test_accuracy = result.accuracy;
    m.curve.push_back(point);
    loss_since_eval = 0;
    losses_since_eval = 0;
    if (config.target_accuracy > 0 && !m.time_to_target_s &&
        result.accuracy >= config.target_accuracy) {
      m.time_to_target_s = point.wall_s;
      m.steps_to_target = m.steps;
    }
  };

  // ---- the loop -------------------------------------------------------------------------------
  const int64_t micro_batches = tech.grad_accumulation;
  double comm_wait_ms = 0;  // this step's wait for the gradient all-reduces
  std::unique_ptr<CapturedTrainingStep> captured_step;
  for (int64_t epoch = 0; epoch < config.epochs && m.steps < total_steps; ++epoch) {
    auto batch_it = loader->begin();
    while (batch_it != loader->end() && m.steps < total_steps) {
      const auto step_start = Clock::now();
      timer->start_step();
      // Schedule (tip 1), after linear scaling and warmup for max_batch (tip 3).
      const double warmup = lr_warmup > 0 ? std::min(1.0, (m.steps + 1.0) / lr_warmup) : 1.0;
      const double lr = schedule.lr_at(m.steps) * warmup;
      set_learning_rate(*optimizer, lr);
      m.step_lrs.push_back(lr);
      if (auto momentum = schedule.momentum_at(m.steps)) {
        set_momentum(*optimizer, config.optimizer.name, *momentum);
      }

      // Host -> device (tip 2: pinned memory and an asynchronous copy).
      auto host_inputs = batch_it->data, host_targets = batch_it->target;
      if (tech.pin_memory) {
        host_inputs = host_inputs.pin_memory();
        host_targets = host_targets.pin_memory();
      }
      auto inputs = host_inputs.to(device, /*non_blocking=*/tech.pin_memory);
      auto targets = host_targets.to(device, /*non_blocking=*/tech.pin_memory);
      if (tech.channels_last) inputs = channels_last_input(inputs);
      const auto batch_size = inputs.size(0);

      torch::Tensor step_loss;  // stays on the device
      if (tech.cuda_graphs) {
        // The whole step as one replayed CUDA graph, captured on the first batch.
        if (!captured_step) {
          captured_step = capture_training_step(workload, *optimizer, config, inputs, targets);
        }
        step_loss = captured_step->run(inputs, targets).clone();  // the graph reuses its output
      } else {
        // Forward and backward, in `micro_batches` slices (tip 9) with one optimizer step.
        clear_gradients(parameters, tech.zero_grad_none);
        const auto input_slices = inputs.chunk(micro_batches);
        const auto target_slices = targets.chunk(micro_batches);
        for (int64_t k = 0; k < micro_batches; ++k) {
          torch::Tensor loss;
          {
            std::optional<AutocastGuard> autocast_guard;
            if (autocast) autocast_guard.emplace(device.type(), amp_dtype);
            loss = classification_loss(workload.train_forward(input_slices[k], config),
                                       target_slices[k]);
            if (micro_batches > 1) loss = loss / static_cast<double>(micro_batches);
          }
          // DDP's no_sync: only the last micro-batch's backward all-reduces.
          if (reducer) reducer->prepare_backward(k == micro_batches - 1);
          (scaler ? scaler->scale_loss(loss) : loss).backward();
          step_loss = step_loss.defined() ? step_loss + loss.detach() : loss.detach();
        }
        if (reducer) comm_wait_ms = reducer->finish();
        bool take_step = true;
        if (scaler) scaler->unscale(parameters);
        if (tech.grad_clipping > 0) clip_global_grad_norm(parameters, tech.grad_clipping);
        if (scaler) take_step = scaler->gradients_finite();  // skip a step with inf/NaN gradients
        if (take_step) optimizer->step();
        if (scaler) scaler->update();
      }

      // The loss: read now (baseline) or every N steps (tip 7); a non-finite one ends the run.
      if (!take_losses(loss_reader.add(step_loss))) break;

      // Fetch the next batch now: its wait belongs to the step that consumes it.
      const auto fetch_start = Clock::now();
      ++batch_it;
      const double fetch_s = seconds_since(fetch_start);
      timer->end_step();
      const double host_step_s = seconds_since(step_start);  // for progress lines only

      m.steps += 1;
      maybe_inject_fault(m.steps);  // tests only: SPEEDBENCH_INJECT_FAULT
      m.samples_trained += batch_size * world_size;
      if (m.steps > config.warmup_steps) {
        m.data_wait_ms_total += fetch_s * 1e3;
        m.distributed.comm_wait_ms_total += comm_wait_ms;
        measured_samples += batch_size * world_size;  // ranks step together: one step, all batches
      }

      if (m.steps % eval_every == 0 || m.steps == total_steps) {
        if (!take_losses(loss_reader.flush())) break;
        evaluate_now();
      }
      reporter.maybe_report([&] {
        char line[200];
        std::snprintf(line, sizeof line, "step %lld/%lld  epoch %.2f  loss %.4f  %.1f ms/step",
                      static_cast<long long>(m.steps), static_cast<long long>(total_steps),
                      static_cast<double>(m.steps) / steps_per_epoch, m.final_train_loss,
                      host_step_s * 1e3);
        return std::string(line);
      });
    }
    if (outcome.status != RunStatus::kOk) break;
  }
  if (outcome.status == RunStatus::kOk) take_losses(loss_reader.flush());

  // ---- totals ---------------------------------------------------------------------------------
  collect_step_times();
  m.train_wall_s = seconds_since(start);
  m.measured_steps = static_cast<int64_t>(m.step_ms.size());
  m.samples_per_s = measured_step_s > 0 ? measured_samples / measured_step_s : 0.0;
  const double peak_flops = measure::peak_for_amp(matmul_peak, tech.amp);
  if (peak_flops > 0) m.mfu = m.train_flops_per_sample * m.samples_per_s / world_size / peak_flops;
  m.peak_allocated_bytes = std::max(m.peak_allocated_bytes, memory->peak_bytes());
  m.peak_reserved_bytes = std::max(m.peak_reserved_bytes, memory->peak_reserved_bytes());
  m.peak_rss_bytes = measure::peak_rss_bytes();
  m.host_syncs = measure::host_sync_count();
  if (device_syncs) m.device_syncs = device_syncs->count() - eval_device_syncs;
  if (scaler) m.amp_skipped_steps = scaler->skipped_steps();
  if (reducer) {
    m.distributed.overlapped_buckets = reducer->overlapped_launches();
    // Every rank reaches this point after the same steps unless rank 0 stopped early.
    if (outcome.status == RunStatus::kOk) {
      m.distributed.rank_step_ms_median =
          distributed::gather_from_all_ranks(measure::summarize(m.step_ms).median, *group);
    }
  }
  outcome.model = workload.module;
  if (!m.curve.empty()) {
    m.final_test_loss = m.curve.back().test_loss;
    m.final_test_accuracy = m.curve.back().test_accuracy;
  }
  return outcome;
}

}  // namespace speedbench
