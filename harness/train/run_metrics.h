// What one training run measured. Torch-free so that records, reports and tests can use it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace speedbench {

// One evaluation: where training stood and what the test set said.
struct CurvePoint {
  int64_t step = 0;          // optimizer steps done
  double epoch = 0;          // fractional epochs done
  double wall_s = 0;         // seconds since the first step, evaluations included
  double train_loss = 0;     // mean training loss since the previous evaluation
  double test_loss = 0;      // mean per-example (per-character) cross-entropy, nats
  double test_accuracy = 0;  // fraction correct (next-character accuracy for the LM)
};

// A distributed (DDP) run, as rank 0 saw it; world_size 1 = a single process.
struct DistributedMetrics {
  int64_t world_size = 1;
  std::string backend;   // gloo | nccl
  std::string launcher;  // torchrun (also speedbench --nproc) | slurm
  int64_t bucket_cap_bytes = 0;
  int64_t buckets = 0;                      // gradient buckets (all-reduces per step)
  int64_t overlapped_buckets = 0;           // last step: buckets launched while backward still ran
  double comm_wait_ms_total = 0;            // measured steps: time waiting for the all-reduces
  std::vector<double> rank_step_ms_median;  // per rank: median measured step time
  std::vector<double> rank_cpu_s;           // per rank: CPU seconds of its process in training
};

struct RunMetrics {
  int64_t steps = 0;                       // optimizer steps done
  int64_t batch_size = 0;                  // the batch trained with (max_batch may have chosen it)
  int64_t max_batch_probes = 0;            // candidates the max_batch search tried (0: no search)
  int64_t amp_skipped_steps = 0;           // fp16: steps the gradient scaler skipped (inf/NaN)
  int64_t measured_steps = 0;              // steps after warmup (the timed ones)
  int64_t samples_trained = 0;             // examples seen by training, warmup included
  std::vector<double> step_ms;             // per measured step: data wait + forward/backward/step
  std::string step_timing = "host_clock";  // how step_ms was taken: host_clock | cuda_events
  // Per warmup step, timed alike but left out of throughput: one-time costs land here, in the
  // first above all (cuDNN's autotuning with cudnn_benchmark, a CUDA graph's capture, oneDNN's
  // kernel creation on a CPU).
  std::vector<double> warmup_step_ms;
  // Training loss of every step (warmup included), at the float32 precision of the loss tensors
  // (a record writes and reads them at that precision).
  std::vector<double> step_losses;
  std::vector<double> step_lrs;      // learning rate of every step (schedule and warmup applied)
  double data_wait_ms_total = 0;     // time spent waiting on the data loader (measured steps)
  double samples_per_s = 0;          // measured samples / measured step time (all ranks together)
  double train_wall_s = 0;           // first step to the end, evaluations included
  double eval_wall_s = 0;            // of which evaluation
  int64_t resident_bytes = 0;        // tracked bytes live when training starts (data, model)
  int64_t peak_allocated_bytes = 0;  // training's peak tensor bytes (CPU tracker / CUDA allocator)
  int64_t peak_reserved_bytes = 0;  // CUDA: the caching allocator's peak reserve in training; CPU 0
  int64_t eval_peak_allocated_bytes = 0;  // the same during evaluations
  int64_t peak_rss_bytes = 0;             // process peak resident set size
  // The block held through training so that the seed draws the heap's layout
  // (harness/train/heap_layout_draw.h); 0 in records before 2026-12-07, which held none.
  int64_t heap_layout_bytes = 0;
  // Minor page faults the process took in the measured steps (none in records before 2026-12-07).
  std::optional<int64_t> minor_page_faults;
  int64_t parameter_count = 0;
  double train_flops_per_sample = 0;    // model FLOPs of a training step per example (3x forward)
  int64_t host_syncs = 0;               // syncs the harness forced during training
  std::optional<int64_t> device_syncs;  // CUDA: syncs sync-debug mode saw in training steps
  int64_t matmul_peak_size = 0;         // n of the n x n products behind matmul_peak_flops
  // FLOP/s per dtype: the faster of the peaks timed at the start and at the end of the run (at
  // start-up only in records before 2026-12-07); the kernel of each.
  std::map<std::string, double> matmul_peak_flops;
  std::map<std::string, std::string> matmul_peak_kernel;
  // The two probes' FLOP/s per dtype; at_end is empty where the run did not end ok, and both are
  // in records since 2026-12-07 only.
  std::map<std::string, double> matmul_peak_flops_at_start;
  std::map<std::string, double> matmul_peak_flops_at_end;
  double mfu = 0;  // model FLOP/s per device / the peak of the run's precision
  // Cores other processes kept busy during training (harness/measure/other_processes_cpu.h);
  // none where /proc/stat cannot be read or a DDP run ended early (its ranks' CPU is unknown).
  std::optional<double> other_processes_busy_cores;
  // Cores the hypervisor took from the run's CPUs during training (steal; 0 off a virtual
  // machine); none where other_processes_busy_cores is none.
  std::optional<double> stolen_cores;
  // The run's threads that were ready to run but waited for a CPU during training, on average
  // (harness/measure/run_queue_wait.h; a DDP run's: every rank's); none where the kernel keeps
  // no schedstat, or a DDP run ended early.
  std::optional<double> cpu_wait_threads;
  // The share of its cgroup CPU quota's periods in which the quota ran out and stopped the run's
  // threads until the next (harness/measure/cpu_quota_throttling.h; the quota that bound, where
  // the cgroup and a parent both set one; in a DDP run, rank 0's); none where no cgroup of the
  // run sets a quota, and in records before 2026-12-07.
  std::optional<double> quota_throttled_share;
  double final_train_loss = 0;
  double final_test_loss = 0;
  double final_test_accuracy = 0;
  double target_accuracy = 0;              // 0 = no target
  std::optional<double> time_to_target_s;  // wall time to the first eval >= target
  std::optional<int64_t> steps_to_target;
  std::vector<CurvePoint> curve;
  DistributedMetrics distributed;

  // The training's own memory: its peak above what was resident when it started.
  int64_t training_bytes() const { return peak_allocated_bytes - resident_bytes; }
  // Achieved model FLOP/s of one device (each rank trains its own batch): what MFU divides.
  double model_flops_per_s_per_device() const {
    return train_flops_per_sample * samples_per_s /
           static_cast<double>(std::max<int64_t>(1, distributed.world_size));
  }
};

// How a run ended.
enum class RunStatus { kOk, kDiverged, kOutOfMemory, kCrashed, kNotApplicable };
std::string to_string(RunStatus status);
RunStatus run_status_from_string(const std::string& text);  // throws std::invalid_argument

}  // namespace speedbench
