// Beyond the list, channels_last: NCHW -> NHWC ("channels last") memory format for the
// convolution weights and the input images. Claim: +22-30% on ResNet-50 with AMP on GPUs
// (PyTorch memory-format tutorial); oneDNN's CPU convolutions also prefer NHWC.
#pragma once

#include <torch/nn/module.h>

namespace speedbench {

// Converts every 4-D parameter (conv weights) of `module` to channels_last, in place.
void convert_to_channels_last(torch::nn::Module& module);
// A 4-D input in channels_last layout (anything else is returned unchanged).
torch::Tensor channels_last_input(const torch::Tensor& input);

}  // namespace speedbench
