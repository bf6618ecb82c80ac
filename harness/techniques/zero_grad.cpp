#include "harness/techniques/zero_grad.h"

namespace speedbench {

void clear_gradients(const std::vector<torch::Tensor>& parameters, bool set_to_none) {
  for (const auto& parameter : parameters) {
    auto& grad = const_cast<torch::Tensor&>(parameter).mutable_grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      grad.reset();  // frees the gradient's memory until the next backward
    } else {
      grad = grad.detach();
      grad.zero_();
    }
  }
}

}  // namespace speedbench
