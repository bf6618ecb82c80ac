#include "harness/techniques/host_to_tensor.h"

#include <torch/torch.h>

namespace speedbench {

namespace {

template <typename T>
torch::Tensor to_tensor(std::shared_ptr<std::vector<T>> buffer, const std::vector<int64_t>& shape,
                        bool wrap, torch::Dtype dtype) {
  if (wrap) {
    auto* data = buffer->data();
    // The deleter owns the buffer: it lives exactly as long as the tensor's storage.
    return torch::from_blob(
        data, shape, [buffer](void*) mutable { buffer.reset(); },
        torch::TensorOptions().dtype(dtype));
  }
  return torch::tensor(*buffer, torch::TensorOptions().dtype(dtype)).view(shape);
}

}  // namespace

torch::Tensor host_buffer_to_tensor(std::shared_ptr<std::vector<float>> buffer,
                                    const std::vector<int64_t>& shape, bool wrap) {
  return to_tensor(std::move(buffer), shape, wrap, torch::kFloat32);
}

torch::Tensor host_buffer_to_tensor(std::shared_ptr<std::vector<int64_t>> buffer,
                                    const std::vector<int64_t>& shape, bool wrap) {
  return to_tensor(std::move(buffer), shape, wrap, torch::kInt64);
}

}  // namespace speedbench
