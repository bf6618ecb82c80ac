// Tip 11, zero_grad_none: zero_() the gradients -> set them to undefined (set_to_none).
// Claim: "lower memory footprint, modest speedup" (torch.optim docs, Optimizer.zero_grad):
// undefined gradients free their memory between steps, and the next backward writes the
// gradient instead of adding it to zeros.
#pragma once

#include <torch/types.h>

#include <vector>

namespace speedbench {

// Clears every parameter's gradient before a new backward.
void clear_gradients(const std::vector<torch::Tensor>& parameters, bool set_to_none);

}  // namespace speedbench
