// TrainConfig: everything one training run depends on. Every technique of TIPS.md is an
// explicit field of `Techniques`; the defaults (all off) are the baseline. A record embeds the
// resolved config, so a run can be reproduced from its record alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace speedbench {

struct DataConfig {
  std::string dataset = "fashion_mnist";  // fashion_mnist | fortunes | synthetic
  // "" = $SPEEDBENCH_FASHION_MNIST_DIR or $SPEEDBENCH_FORTUNES_DIR, else the package's folder
  std::string root;
  int64_t train_samples = 0;  // 0 = all; else the first N (a quick subset)
  int64_t test_samples = 0;   // 0 = all
  bool augment = false;       // random crop (pad 4) + horizontal flip, images only
  std::vector<int64_t> synthetic_shape = {1, 28, 28};  // C, H, W of synthetic images
  int64_t synthetic_classes = 10;
  int64_t sequence_length = 64;  // characters per window (fortunes)
  // A copy of the dataset on the run's device: batches are gathered and scaled there, with no
  // host batch and no host->device copy (pure throughput runs; the host-batch techniques, tip 2
  // and 12, are then not applicable).
  bool on_device = false;
};

struct ModelConfig {
  std::string arch = "resnet";                 // resnet | resnet18 | resnet50 | row_rnn | char_lm
  int64_t depth = 8;                           // resnet: 6n+2 (8, 14, 20, 32, 44, 56)
  std::vector<int64_t> widths = {16, 32, 64};  // resnet*: channels of each stage
  // resnet*: "cifar" (3x3 conv, full resolution) | "imagenet" (7x7 stride 2 + max pool: 224x224
  // inputs). The loader's default is "imagenet" for resnet50, "cifar" for the others.
  std::string stem = "cifar";
  std::string cell = "lstm";  // row_rnn / char_lm: lstm | gru
  int64_t hidden = 128;       // recurrent hidden size
  int64_t layers = 1;         // recurrent layers
  int64_t embedding = 64;     // char_lm: embedding size
};

inline bool is_resnet_arch(const ModelConfig& m) {
  return m.arch == "resnet" || m.arch == "resnet18" || m.arch == "resnet50";
}

struct OptimizerConfig {
  std::string name = "sgd";  // sgd | adam | adamw
  double lr = 0.05;
  double momentum = 0.9;      // sgd
  bool nesterov = false;      // sgd
  double weight_decay = 0.0;  // sgd/adam: L2 added to the gradient; adamw: decoupled
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam/adamw
};

// Tip 1. The LR (and momentum) of every step; formulas as PyTorch's schedulers define them.
struct LrScheduleConfig {
  std::string kind = "constant";  // constant (off) | step | cosine | cyclic | one_cycle
  double max_lr = 0.0;            // cyclic / one_cycle peak (the optimizer's lr is the base)
  int64_t step_size = 1000;       // step: steps between decays
  double gamma = 0.1;             // step: decay factor; cyclic exp_range: per-step factor
  double min_lr = 0.0;            // cosine: eta_min
  int64_t step_size_up = 0;       // cyclic: steps from base to peak (0 = half an epoch)
  std::string cyclic_mode = "triangular";  // triangular | triangular2 | exp_range
  double pct_start = 0.3;                  // one_cycle: fraction of steps spent rising
  std::string anneal = "cos";              // one_cycle: cos | linear
  double div_factor = 25.0;                // one_cycle: initial lr = max_lr / div_factor
  double final_div_factor = 1e4;           // one_cycle: final lr = initial lr / final_div_factor
  bool cycle_momentum = true;              // one_cycle: momentum (or Adam's beta1) cycles inversely
  double base_momentum = 0.85;
  double max_momentum = 0.95;
};

// Tip 3. Search the largest batch whose training step fits the memory budget.
struct MaxBatchConfig {
  bool enabled = false;
  int64_t budget_bytes = 0;    // CPU: tracked tensor bytes; CUDA: 0 = the device's memory
  int64_t limit = 4096;        // the largest batch tried
  int64_t warmup_steps = 100;  // linear LR warmup after the linear scaling rule
};

// One field per technique (TIPS.md ids); the default value of each is "off".
struct Techniques {
  LrScheduleConfig lr_schedule;         // 1
  int64_t loader_workers = 0;           // 2: DataLoader worker threads (0 = main thread)
  bool pin_memory = false;              // 2: pinned host batches + non_blocking copies (CUDA)
  MaxBatchConfig max_batch;             // 3
  std::string amp = "off";              // 4: off | bf16 | fp16
  std::string optimizer_impl = "loop";  // 5: loop | foreach | fused
  bool cudnn_benchmark = false;         // 6
  bool sync_avoidance = false;          // 7: keep metrics on the device...
  int64_t sync_every_steps = 50;        // 7: ...and read them every N steps
  bool checkpointing = false;           // 8: recompute activations in backward
  int64_t checkpoint_segments = 1;      // 8: model segments per checkpointed chunk
  int64_t grad_accumulation = 1;        // 9: micro-batches per optimizer step (1 = off)
  int64_t ddp_world_size = 1;           // 10: processes (1 = off); --nproc overrides
  double ddp_bucket_cap_mb = 25.0;      // 10: gradient bucket size (MiB), as torch DDP
  double ddp_timeout_s = 60.0;          // 10: rendezvous and collective timeout
  bool zero_grad_none = false;          // 11
  bool host_to_tensor = false;          // 12: wrap host buffers (from_blob) instead of copying
  std::string debug_mode = "off";       // 13: off | anomaly | profiler (debug_off = "off")
  double grad_clipping = 0.0;           // 14: max global grad norm (0 = off)
  bool bn_no_bias = false;              // 15: conv bias off before BatchNorm
  bool eval_no_grad = false;            // 16
  bool input_norm = false;              // 17: normalize inputs by dataset mean/std
  bool channels_last = false;           // beyond the list
  bool tf32 = false;                    // beyond the list (CUDA)
  bool cuda_graphs = false;             // beyond the list (CUDA)
  bool host_memory_reuse = false;       // beyond the list: glibc malloc keeps freed memory
};

struct TrainConfig {
  std::string workload;  // a name for reports; "" = "<dataset>/<arch>"
  DataConfig data;
  ModelConfig model;
  OptimizerConfig optimizer;
  Techniques techniques;

  int64_t batch_size = 128;
  int64_t epochs = 1;
  int64_t max_steps = 0;         // 0 = no cap beyond `epochs`
  int64_t warmup_steps = 5;      // excluded from step-time statistics
  int64_t eval_every_steps = 0;  // 0 = at the end of each epoch
  int64_t eval_batch_size = 1000;
  double target_accuracy = 0.0;  // 0 = none; else time-to-target is measured
  double divergence_loss = 0.0;  // a training loss above this ends the run as diverged
                                 // (0 = only NaN/inf losses do)
  int64_t seed = 0;
  std::string device = "cpu";     // cpu | cuda
  int64_t threads = 2;            // LibTorch intra-op threads
  bool deterministic = false;     // deterministic algorithms (bitwise-repeatable on CPU)
  int64_t progress_every_s = 10;  // progress line period on stderr (0 = quiet)
};

}  // namespace speedbench
