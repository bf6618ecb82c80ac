#include "harness/train/train_loop.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "harness/measure/cpu_memory_tracker.h"
#include "harness/measure/sync_counter.h"
#include "harness/train/evaluate.h"
#include "harness/train/optimizer_factory.h"
#include "harness/train/workload.h"

namespace speedbench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void synchronize(const torch::Device& device) {
  // CPU kernels are synchronous; a CUDA step is timed only once its kernels have finished.
  if (device.is_cuda()) torch::cuda::synchronize();
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

}  // namespace

void apply_runtime_settings(const TrainConfig& config) {
  torch::set_num_threads(static_cast<int>(config.threads));
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  at::globalContext().setDeterministicAlgorithms(config.deterministic, /*warn_only=*/false);
}

TrainOutcome train(const TrainConfig& config, const ProgressFn& progress) {
  apply_runtime_settings(config);
  const torch::Device device(config.device == "cuda" ? torch::kCUDA : torch::kCPU);

  // ---- workload: data, model, optimizer -------------------------------------------------------
  Workload workload = build_workload(config);
  workload.module->to(device);
  workload.module->train();
  auto optimizer = make_optimizer(config.optimizer, workload.module->parameters());
  data::BatchDataset test_set(workload.data.test, workload.transform);
  auto loader = torch::data::make_data_loader(
      data::BatchDataset(workload.data.train, workload.transform),
      torch::data::DataLoaderOptions(config.batch_size).drop_last(true));
  const int64_t steps_per_epoch = workload.data.train.size() / config.batch_size;
  if (steps_per_epoch == 0) {
    throw std::invalid_argument("batch_size " + std::to_string(config.batch_size) +
                                " exceeds the " + std::to_string(workload.data.train.size()) +
                                " training examples");
  }
  const int64_t total_steps = config.max_steps > 0
                                  ? std::min(config.max_steps, steps_per_epoch * config.epochs)
                                  : steps_per_epoch * config.epochs;
  const int64_t eval_every = config.eval_every_steps > 0 ? config.eval_every_steps : steps_per_epoch;

  TrainOutcome outcome;
  outcome.unigram_entropy_bits = workload.data.unigram_entropy_bits;
  outcome.data_source = workload.data.source;
  RunMetrics& m = outcome.metrics;
  m.parameter_count = count_parameters(*workload.module);
  m.target_accuracy = config.target_accuracy;

  auto& memory = measure::CpuMemoryTracker::install();
  memory.reset_peak();
  measure::reset_host_sync_count();
  ProgressReporter reporter(progress, static_cast<double>(config.progress_every_s));

  double loss_since_eval = 0;
  int64_t steps_since_eval = 0;
  double measured_step_s = 0;
  int64_t measured_samples = 0;
  const auto start = Clock::now();

  // Evaluates, appends a curve point and checks the target; returns true when training may stop.
  auto evaluate_now = [&]() {
    // Training and evaluation peaks are kept apart: one window each.
    m.peak_allocated_bytes = std::max(m.peak_allocated_bytes, memory.peak_bytes());
    memory.reset_peak();
    const auto eval_start = Clock::now();
    const EvalResult result = evaluate(workload, test_set, config.eval_batch_size, device);
    m.eval_wall_s += seconds_since(eval_start);
    m.eval_peak_allocated_bytes = std::max(m.eval_peak_allocated_bytes, memory.peak_bytes());
    memory.reset_peak();
    CurvePoint point;
    point.step = m.steps;
    point.epoch = static_cast<double>(m.steps) / static_cast<double>(steps_per_epoch);
    point.wall_s = seconds_since(start);
    point.train_loss = steps_since_eval > 0 ? loss_since_eval / steps_since_eval : 0.0;
    point.test_loss = result.loss;
    point.test_accuracy = result.accuracy;
    m.curve.push_back(point);
    loss_since_eval = 0;
    steps_since_eval = 0;
    if (config.target_accuracy > 0 && !m.time_to_target_s &&
        result.accuracy >= config.target_accuracy) {
      m.time_to_target_s = point.wall_s;
      m.steps_to_target = m.steps;
    }
  };

  // ---- the loop ---------------------------------------------------------------------------------
  for (int64_t epoch = 0; epoch < config.epochs && m.steps < total_steps; ++epoch) {
    auto batch_it = loader->begin();
    while (batch_it != loader->end() && m.steps < total_steps) {
      const auto step_start = Clock::now();
      auto inputs = batch_it->data.to(device);
      auto targets = batch_it->target.to(device);
      const auto batch_size = inputs.size(0);

      optimizer->zero_grad();
      auto logits = workload.model.forward(inputs);
      auto loss = classification_loss(logits, targets);
      loss.backward();
      optimizer->step();

      // Baseline: read the loss every step (a host sync), which is also the divergence check.
      measure::count_host_sync();
      const double loss_value = loss.item<double>();
      if (!std::isfinite(loss_value)) {
        outcome.status = RunStatus::kDiverged;
        outcome.message = "loss became " + std::to_string(loss_value) + " at step " +
                          std::to_string(m.steps + 1);
        break;
      }
      synchronize(device);
      const double compute_s = seconds_since(step_start);

      // Fetch the next batch now: its wait belongs to the step that consumes it.
      const auto fetch_start = Clock::now();
      ++batch_it;
      const double fetch_s = seconds_since(fetch_start);

      m.steps += 1;
      m.samples_trained += batch_size;
      loss_since_eval += loss_value;
      steps_since_eval += 1;
      if (m.steps > config.warmup_steps) {
        m.step_ms.push_back((compute_s + fetch_s) * 1e3);
        m.data_wait_ms_total += fetch_s * 1e3;
        measured_step_s += compute_s + fetch_s;
        measured_samples += batch_size;
      }
      m.final_train_loss = loss_value;
      m.step_losses.push_back(loss_value);

      if (m.steps % eval_every == 0 || m.steps == total_steps) evaluate_now();
      reporter.maybe_report([&] {
        char line[200];
        std::snprintf(line, sizeof line, "step %lld/%lld  epoch %.2f  loss %.4f  %.1f ms/step",
                      static_cast<long long>(m.steps), static_cast<long long>(total_steps),
                      static_cast<double>(m.steps) / steps_per_epoch, loss_value,
                      (compute_s + fetch_s) * 1e3);
        return std::string(line);
      });
    }
    if (outcome.status != RunStatus::kOk) break;
  }

  // ---- totals -----------------------------------------------------------------------------------
  m.train_wall_s = seconds_since(start);
  m.measured_steps = static_cast<int64_t>(m.step_ms.size());
  m.samples_per_s = measured_step_s > 0 ? measured_samples / measured_step_s : 0.0;
  m.peak_allocated_bytes = std::max(m.peak_allocated_bytes, memory.peak_bytes());
  m.peak_rss_bytes = measure::peak_rss_bytes();
  m.host_syncs = measure::host_sync_count();
  if (!m.curve.empty()) {
    m.final_test_loss = m.curve.back().test_loss;
    m.final_test_accuracy = m.curve.back().test_accuracy;
  }
  return outcome;
}

}  // namespace speedbench
