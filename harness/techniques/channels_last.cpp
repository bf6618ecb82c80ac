#include "harness/techniques/channels_last.h"

#include <torch/torch.h>

namespace speedbench {

void convert_to_channels_last(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : module.parameters()) {
    if (parameter.dim() == 4) parameter.set_data(parameter.contiguous(at::MemoryFormat::ChannelsLast));
  }
}

torch::Tensor channels_last_input(const torch::Tensor& input) {
  return input.dim() == 4 ? input.contiguous(at::MemoryFormat::ChannelsLast) : input;
}

}  // namespace speedbench
