// Tip 12, host_to_tensor: turn a host buffer into a tensor by copying it (torch::tensor, the
// C++ torch.tensor) -> by wrapping it without a copy (torch::from_blob with a deleter that keeps
// the buffer alive, the C++ torch.as_tensor). Claim: as_tensor avoids a copy (PyTorch docs).
// The batch dataset assembles every batch in a host buffer and hands it over through this.
#pragma once

#include <torch/types.h>

#include <memory>
#include <vector>

namespace speedbench {

// wrap = false: a new tensor holding a copy of `buffer`; wrap = true: a tensor that shares
// `buffer`'s memory and owns a reference to it.
torch::Tensor host_buffer_to_tensor(std::shared_ptr<std::vector<float>> buffer,
                                    const std::vector<int64_t>& shape, bool wrap);
torch::Tensor host_buffer_to_tensor(std::shared_ptr<std::vector<int64_t>> buffer,
                                    const std::vector<int64_t>& shape, bool wrap);

}  // namespace speedbench
