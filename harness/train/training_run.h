// TrainingRun, the class behind train(): one training run's state, shared by its set-up
// (training_run_setup.cpp) and its loop (train_loop.cpp). Internal to harness/train/; the
// interface is train() in train_loop.h.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/distributed/gradient_reducer.h"
#include "harness/measure/cpu_quota_throttling.h"
#include "harness/measure/matmul_peak.h"
#include "harness/measure/memory_meter.h"
#include "harness/measure/other_processes_cpu.h"
#include "harness/measure/run_queue_wait.h"
#include "harness/measure/step_timer.h"
#include "harness/measure/sync_counter.h"
#include "harness/techniques/amp.h"
#include "harness/techniques/cuda_graphs.h"
#include "harness/techniques/debug_mode.h"
#include "harness/techniques/loss_reader.h"
#include "harness/techniques/lr_schedule.h"
#include "harness/train/heap_layout_draw.h"
#include "harness/train/progress_reporter.h"
#include "harness/train/train_batches.h"
#include "harness/train/train_loop.h"
#include "harness/train/workload.h"

namespace speedbench {

// One training run. The constructor (training_run_setup.cpp) sets it up in the order the
// measurement needs: the matmul peak first, then the workload, model, optimizer and data, and last
// the meters, zeroed just before the first step. run() is the loop (train_loop.cpp; called once:
// it hands the outcome over); each step's parts follow it there, in the order a step runs them.
// The members are what the set-up and the steps share.
class TrainingRun {
 public:
  TrainingRun(const TrainConfig& requested, const ProgressFn& progress,
              std::shared_ptr<distributed::ProcessGroup> group);
  TrainingRun(const TrainingRun&) = delete;  // tech_ and m_ refer to its own members
  TrainingRun& operator=(const TrainingRun&) = delete;
  TrainOutcome run();

 private:
  using BatchIterator = decltype(std::declval<TrainLoader&>().begin());
  using Clock = std::chrono::steady_clock;

  // The set-up, in the order the constructor calls it.
  double set_up_model();
  void set_up_data_parallel();
  void set_up_steps(double lr_scale);
  void start_meters(const ProgressFn& progress);
  // One step's parts, in the order it runs them; then the totals.
  bool train_step(BatchIterator& batch_it);
  void set_step_learning_rate();
  std::pair<torch::Tensor, torch::Tensor> batch_to_device(const torch::data::Example<>& batch);
  torch::Tensor forward_backward_step(const torch::Tensor& inputs, const torch::Tensor& targets);
  bool take_losses(const std::vector<double>& losses);
  void end_as_diverged(const std::string& message);
  void collect_step_times();
  void evaluate_now();
  void record_totals();
  void time_matmul_peak_at_end();
  std::optional<measure::OthersLoad> load_of_others();
  std::optional<double> cpu_wait_threads();

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
  measure::MatmulPeak matmul_peak_;  // timed at the start; at the end, the faster of two probes

  // ---- workload: data, model, optimizer, schedule ---------------------------------------------
  Workload workload_;
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<distributed::GradientReducer> reducer_;  // DDP only
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::optional<data::BatchDataset> test_set_;
  std::unique_ptr<TrainLoader> loader_;
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
  std::optional<HeapLayoutDraw> heap_layout_;  // from the first step on: the seed's heap layout
  std::optional<measure::OtherProcessesCpuMeter> other_load_;  // over the training, from start_
  std::optional<measure::RunQueueWaitMeter> cpu_wait_;         // the same
  std::optional<measure::CpuQuotaThrottlingMeter> quota_throttling_;  // the same
  double loss_since_eval_ = 0;
  int64_t losses_since_eval_ = 0;
  double measured_step_s_ = 0;
  int64_t measured_samples_ = 0;
  int64_t steps_timed_ = 0;
  double comm_wait_ms_ = 0;  // this step's wait for the gradient all-reduces
};
}  // namespace speedbench
