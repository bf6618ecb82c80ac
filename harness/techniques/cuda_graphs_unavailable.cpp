// cuda_graphs in a build without CUDA: the config passes validation (a CUDA run is recorded as
// not_applicable on such a machine before it gets here), so reaching this is a bug.
#include <stdexcept>

#include "harness/techniques/cuda_graphs.h"

#if !SPEEDBENCH_WITH_CUDA
namespace speedbench {

std::unique_ptr<CapturedTrainingStep> capture_training_step(Workload&, torch::optim::Optimizer&,
                                                            const TrainConfig&,
                                                            const torch::Tensor&,
                                                            const torch::Tensor&) {
  throw std::runtime_error("cuda_graphs: this build of speedbench has no CUDA code");
}

}  // namespace speedbench
#endif
