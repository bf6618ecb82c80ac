// The CUDA implementation of cuda_graphs (see harness/techniques/cuda_graphs.h).
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include <optional>

#include "harness/techniques/amp.h"
#include "harness/techniques/cuda_graphs.h"
#include "harness/techniques/zero_grad.h"
#include "harness/train/evaluate.h"

namespace speedbench {

namespace {

// `waiting` runs nothing more until `other` has finished what it has queued (stream.wait_stream).
void wait_for(const c10::cuda::CUDAStream& waiting, const c10::cuda::CUDAStream& other) {
  c10::cuda::CUDAEvent event;
  event.record(other);
  event.block(waiting);
}

class CudaGraphTrainingStep : public CapturedTrainingStep {
 public:
  CudaGraphTrainingStep(Workload& workload, torch::optim::Optimizer& optimizer,
                        const TrainConfig& config, const torch::Tensor& inputs,
                        const torch::Tensor& targets)
      : static_inputs_(inputs.clone()), static_targets_(targets.clone()) {
    const auto parameters = workload.module->parameters();
    auto step = [&] {
      {
        // amp bf16 applies inside the graph too, over the forward pass and the loss only, as in
        // the eager step: autograd runs backward under the autocast state of its caller.
        std::optional<AutocastGuard> autocast;
        if (config.techniques.amp == "bf16")
          autocast.emplace(c10::DeviceType::CUDA, torch::kBFloat16);
        static_loss_ =
            classification_loss(workload.train_forward(static_inputs_, config), static_targets_);
      }
      static_loss_.backward();
      optimizer.step();
    };
    // Warm up (lazy initialisations and cuDNN autotuning happen outside capture) and capture on
    // a side stream: CUDAGraph::capture_begin refuses the default stream. Replays may run on it.
    auto main_stream = c10::cuda::getCurrentCUDAStream();
    auto side = c10::cuda::getStreamFromPool();
    wait_for(side, main_stream);
    {
      c10::cuda::CUDAStreamGuard guard(side);
      for (int i = 0; i < kCaptureWarmupSteps; ++i) {
        clear_gradients(parameters, /*set_to_none=*/true);
        step();
      }
      // Capture with the gradients unset: backward allocates them inside the graph's pool, and
      // every replay writes (not accumulates) them.
      clear_gradients(parameters, /*set_to_none=*/true);
      graph_.capture_begin();
      step();
      graph_.capture_end();
    }
    wait_for(main_stream, side);
  }

  torch::Tensor run(const torch::Tensor& inputs, const torch::Tensor& targets) override {
    static_inputs_.copy_(inputs, /*non_blocking=*/true);
    static_targets_.copy_(targets, /*non_blocking=*/true);
    graph_.replay();
    return static_loss_;
  }

 private:
  at::cuda::CUDAGraph graph_;
  torch::Tensor static_inputs_, static_targets_, static_loss_;
};

}  // namespace

std::unique_ptr<CapturedTrainingStep> capture_training_step(Workload& workload,
                                                            torch::optim::Optimizer& optimizer,
                                                            const TrainConfig& config,
                                                            const torch::Tensor& inputs,
                                                            const torch::Tensor& targets) {
  return std::make_unique<CudaGraphTrainingStep>(workload, optimizer, config, inputs, targets);
}

}  // namespace speedbench
