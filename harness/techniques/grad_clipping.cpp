#include "harness/techniques/grad_clipping.h"

#include <torch/nn/utils/clip_grad.h>

#include "harness/measure/sync_counter.h"

namespace speedbench {

double clip_global_grad_norm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  measure::count_host_sync();  // clip_grad_norm_ returns the norm as a double
  return torch::nn::utils::clip_grad_norm_(parameters, max_norm);
}

}  // namespace speedbench
