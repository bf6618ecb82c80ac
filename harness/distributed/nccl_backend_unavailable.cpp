// The NCCL process group in a build without CUDA or without nccl.h: a clear error instead.
#if !(SPEEDBENCH_WITH_CUDA && SPEEDBENCH_WITH_NCCL)
#include <torch/csrc/distributed/c10d/Backend.hpp>

#include <chrono>
#include <stdexcept>

namespace speedbench::distributed {

c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>&, int,
                                                    int, int, std::chrono::milliseconds) {
  throw std::runtime_error(
      "DDP on CUDA needs ProcessGroupNCCL, and this speedbench was built without CUDA or without "
      "nccl.h; rebuild on a machine with the CUDA toolkit and NCCL");
}

}  // namespace speedbench::distributed
#endif
