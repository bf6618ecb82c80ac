#include "harness/techniques/registry.h"

#include <algorithm>

namespace speedbench {

namespace {

const std::vector<std::string> kAnyDevice = {"cpu", "cuda"};
const std::vector<std::string> kCudaOnly = {"cuda"};

std::vector<TechniqueInfo> build_registry() {
  using C = const TrainConfig&;
  return {
      {"lr_schedule", 1, "constant LR -> step / cosine / cyclic / 1cycle (+ LR range test)",
       "1cycle: ResNet-56 CIFAR-10 92.4% in 10k iterations vs 91.2% after ~80k (step); CLR: same "
       "accuracy in ~2.8x fewer iterations",
       "Smith & Topin arXiv 1708.07120; Smith arXiv 1506.01186", kAnyDevice,
       "techniques.lr_schedule.kind", true,
       [](C c) { return c.techniques.lr_schedule.kind != "constant"; }},
      {"loader_workers", 2, "DataLoader workers 0 -> N (threads) with CPU augmentation",
       "about 2x for one epoch with 4 workers and pinned memory; no gain once augmentation is "
       "cheap (hlb-CIFAR10)",
       "PyTorch performance tuning guide (attributed); hlb-CIFAR10 README", kAnyDevice,
       "techniques.loader_workers", true, [](C c) { return c.techniques.loader_workers > 0; },
       /*acts_on_host_batches=*/true},
      {"pin_memory", 2, "pageable -> pinned host batches with non_blocking copies",
       "faster host->device copies that overlap compute", "PyTorch performance tuning guide",
       kCudaOnly, "techniques.pin_memory", true, [](C c) { return c.techniques.pin_memory; },
       /*acts_on_host_batches=*/true},
      // The claim is about the two together: registered apart so that a suite compares them as
      // it states, beside each alone.
      {"loader_workers_pinned", 2,
       "DataLoader workers 0 -> N and pageable -> pinned batches, together",
       "about 2x for one epoch with 4 workers and pinned memory",
       "PyTorch performance tuning guide (attributed)", kCudaOnly,
       "techniques.loader_workers and techniques.pin_memory", true,
       [](C c) { return c.techniques.loader_workers > 0 && c.techniques.pin_memory; },
       /*acts_on_host_batches=*/true},
      {"max_batch", 3,
       "default batch -> largest batch within the memory budget, LR scaled linearly",
       "4x faster from batch 64 to 512 with 1cycle (unverified); 128 -> 512 gave ~14% faster "
       "time-to-94% (Myrtle)",
       "article; Myrtle 'How to train your ResNet'; Goyal et al. arXiv 1706.02677", kAnyDevice,
       "techniques.max_batch.enabled", true, [](C c) { return c.techniques.max_batch.enabled; }},
      {"amp", 4, "fp32 -> autocast bf16 / fp16 with a gradient scaler",
       "ResNet-50 1x A100 938 -> 2470 img/s (2.63x); up to 3x",
       "NVIDIA DeepLearningExamples resnet50v1.5 README; PyTorch tuning guide", kAnyDevice,
       "techniques.amp", true, [](C c) { return c.techniques.amp != "off"; }},
      // fp16 beside bf16 in one suite: the same switch, compared on its own.
      {"amp_fp16", 4, "fp32 -> autocast fp16 with a dynamic gradient scaler",
       "ResNet-50 1x A100 938 -> 2470 img/s (2.63x) is fp16 AMP",
       "NVIDIA DeepLearningExamples resnet50v1.5 README", kCudaOnly, "techniques.amp", true,
       [](C c) { return c.techniques.amp == "fp16"; }},
      {"optimizer", 5,
       "per-tensor loop -> multi-tensor foreach / fused step (and Adam+L2 -> AdamW)",
       "fused Adam 10-15% end to end vs torch AdamW; fused step 2.75x but ~3% end to end",
       "pytorch/pytorch#71274; deepmd-kit#4463; Loshchilov & Hutter (AdamW)", kAnyDevice,
       "techniques.optimizer_impl", true,
       [](C c) { return c.techniques.optimizer_impl != "loop"; }},
      {"cudnn_benchmark", 6, "cuDNN autotuning off -> on (fixed input shapes)",
       "anecdotal 1.4x-2.4x", "speechbrain#294; NVIDIA/waveglow#172", kCudaOnly,
       "techniques.cudnn_benchmark", true, [](C c) { return c.techniques.cudnn_benchmark; }},
      {"sync_avoidance", 7, "loss.item() every step -> metrics kept on device, read every N steps",
       "eager dispatch ~3.6 us/op; a sync stalls the pipeline",
       "horace.io 'Making deep learning go brrrr'", kAnyDevice, "techniques.sync_avoidance", true,
       [](C c) { return c.techniques.sync_avoidance; }},
      {"checkpointing", 8, "store all activations -> recompute segments in backward",
       "O(sqrt(n)) memory for one extra forward; 48 GB -> 7 GB at +30% time",
       "Chen et al. arXiv 1604.06174", kAnyDevice, "techniques.checkpointing", true,
       [](C c) { return c.techniques.checkpointing; }},
      {"grad_accumulation", 9, "one big batch -> k micro-batches, one optimizer step",
       "same gradient as the big batch at a fraction of the memory",
       "HF 'Training neural nets on larger batches'", kAnyDevice, "techniques.grad_accumulation",
       true, [](C c) { return c.techniques.grad_accumulation > 1; }},
      {"ddp", 10, "single process -> DistributedDataParallel, one process per device",
       "near-linear scaling to 256 GPUs; avoids DataParallel's GIL and scatter overhead",
       "Li et al. arXiv 2006.15704", kAnyDevice, "techniques.ddp_world_size", true,
       [](C c) { return c.techniques.ddp_world_size > 1; }},
      {"zero_grad_none", 11, "zero_() the gradients -> set them to undefined",
       "lower memory footprint, modest speedup", "torch.optim docs", kAnyDevice,
       "techniques.zero_grad_none", true, [](C c) { return c.techniques.zero_grad_none; }},
      {"host_to_tensor", 12, "copy host data into a tensor -> wrap it without copy (from_blob)",
       "avoids a copy", "PyTorch docs (torch.as_tensor)", kAnyDevice, "techniques.host_to_tensor",
       true, [](C c) { return c.techniques.host_to_tensor; }, /*acts_on_host_batches=*/true},
      {"debug_off", 13, "anomaly detection / profiler on -> off", "debug modes slow training",
       "PyTorch performance tuning guide", kAnyDevice, "techniques.debug_mode", true,
       // On by default, as everyone trains: the baseline is debug_mode anomaly or profiler.
       [](C c) { return c.techniques.debug_mode == "off"; }},
      {"grad_clipping", 14, "no clipping -> clip the global gradient norm",
       "stabilises RNN training at high LR", "Pascanu et al. arXiv 1211.5063", kAnyDevice,
       "techniques.grad_clipping", true, [](C c) { return c.techniques.grad_clipping > 0; }},
      {"bn_no_bias", 15, "conv bias=True before BatchNorm -> bias=False",
       "the bias is cancelled by BN: fewer parameters, less work", "PyTorch tuning guide",
       kAnyDevice, "techniques.bn_no_bias", true, [](C c) { return c.techniques.bn_no_bias; }},
      {"eval_no_grad", 16, "evaluation with autograd recording -> under a no-grad guard",
       "no graph kept: less memory, faster eval", "PyTorch docs (torch.no_grad)", kAnyDevice,
       "techniques.eval_no_grad", true, [](C c) { return c.techniques.eval_no_grad; }},
      {"input_norm", 17, "raw inputs in [0,1] -> normalized by dataset mean/std",
       "better-conditioned optimisation, faster convergence", "LeCun et al. 'Efficient BackProp'",
       kAnyDevice, "techniques.input_norm", true, [](C c) { return c.techniques.input_norm; }},
      {"channels_last", 0, "NCHW -> NHWC (channels_last) memory format",
       "+22-30% on ResNet-50 with AMP", "PyTorch memory-format tutorial", kAnyDevice,
       "techniques.channels_last", true, [](C c) { return c.techniques.channels_last; }},
      {"tf32", 0, "fp32 matmul/conv -> TensorFloat-32 on Ampere and newer",
       "up to 8x matmul throughput vs fp32 on A100", "NVIDIA A100 whitepaper", kCudaOnly,
       "techniques.tf32", true, [](C c) { return c.techniques.tf32; }},
      {"cuda_graphs", 0, "eager launches -> one captured CUDA graph replayed per step",
       "cuts CPU launch overhead for small, launch-bound steps",
       "PyTorch blog 'Accelerating PyTorch with CUDA Graphs'", kCudaOnly, "techniques.cuda_graphs",
       true, [](C c) { return c.techniques.cuda_graphs; }},
      {"host_memory_reuse", 0,
       "glibc malloc returns large freed blocks to the kernel -> keeps them for reuse (mallopt)",
       "jemalloc/TCMalloc perform better by reusing memory than default malloc",
       "PyTorch performance tuning guide (CPU: switch memory allocator)", kAnyDevice,
       "techniques.host_memory_reuse", true, [](C c) { return c.techniques.host_memory_reuse; }},
  };
}

}  // namespace

const std::vector<TechniqueInfo>& technique_registry() {
  static const std::vector<TechniqueInfo> registry = build_registry();
  return registry;
}

const TechniqueInfo* find_technique(const std::string& id) {
  for (const auto& info : technique_registry()) {
    if (info.id == id) return &info;
  }
  return nullptr;
}

std::vector<std::string> enabled_techniques(const TrainConfig& config) {
  std::vector<std::string> ids;
  for (const auto& info : technique_registry()) {
    if (info.is_on(config)) ids.push_back(info.id);
  }
  return ids;
}

std::string not_applicable_reason(const TechniqueInfo& info, const TrainConfig& config) {
  if (std::find(info.devices.begin(), info.devices.end(), config.device) == info.devices.end()) {
    return info.id + " applies only on " + info.devices.front() + " (this run is on " +
           config.device + ")";
  }
  if (info.acts_on_host_batches && config.data.on_device) {
    return info.id +
           " acts on host batches, and this run has none (data.on_device: batches are gathered "
           "on the device)";
  }
  return "";
}

std::string enabled_techniques_not_applicable_reason(const TrainConfig& config) {
  for (const auto& id : enabled_techniques(config)) {
    const auto reason = not_applicable_reason(*find_technique(id), config);
    if (!reason.empty()) return reason;
  }
  return "";
}

}  // namespace speedbench
