// Tip 6, cudnn_benchmark: cuDNN autotuning off -> on (fixed input shapes). Claim: anecdotal
// 1.4x-2.4x (speechbrain#294, NVIDIA/waveglow#172).
// Beyond the list, tf32: fp32 matmuls and convolutions -> TensorFloat-32 on Ampere and newer
// (NVIDIA A100 whitepaper: up to 8x fp32 matmul throughput).
// Both are process-wide LibTorch flags; they only mean something on CUDA (not_applicable on CPU).
#pragma once

#include "harness/config/train_config.h"

namespace speedbench {

// Sets cuDNN benchmark mode and TF32 from the config. Both are off for the baseline, TF32 for
// cuDNN too, which PyTorch's default leaves on: the baseline is strict fp32 on every library.
void apply_backend_flags(const Techniques& techniques);

}  // namespace speedbench
