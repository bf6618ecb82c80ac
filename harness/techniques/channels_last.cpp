#include "harness/techniques/channels_last.h"

#include <torch/torch.h>

namespace speedbench {

void convert_to_channels_last(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : module.parameters()) {
    // Restrided even when it already counts as channels_last-contiguous: a weight with one input
    // channel (the stem on grey images) does, and contiguous() would keep its NCHW strides, so
    // the stem's output and everything up to the first block would stay NCHW and mix formats
    // (slow elementwise paths, copies). Python's Module.to(memory_format=...) restrides too.
    if (parameter.dim() == 4) {
      parameter.set_data(
          at::empty_like(parameter, at::MemoryFormat::ChannelsLast).copy_(parameter));
    }
  }
}

torch::Tensor channels_last_input(const torch::Tensor& input) {
  return input.dim() == 4 ? input.contiguous(at::MemoryFormat::ChannelsLast) : input;
}

}  // namespace speedbench
