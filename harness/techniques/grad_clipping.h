// Tip 14, grad_clipping: no clipping -> clip the global gradient norm to max_norm.
// Claim: clipping stabilises RNN training at high learning rates (Pascanu et al., "On the
// difficulty of training recurrent neural networks", arXiv 1211.5063), which enables the higher
// LRs that speed convergence.
#pragma once

#include <torch/types.h>

#include <vector>

namespace speedbench {

// Scales all gradients together so their global L2 norm is at most max_norm; returns the norm
// before clipping. Reading the norm is a host sync (counted).
double clip_global_grad_norm(const std::vector<torch::Tensor>& parameters, double max_norm);

}  // namespace speedbench
