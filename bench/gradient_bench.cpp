// Tips 5, 11 and 14 on the parameter set of ResNet-8 and ResNet-18 (CIFAR stem, 10 classes):
// clearing gradients (zero_ and accumulate vs set to none and write), the optimizer step
// implementations (loop vs foreach vs fused) for SGD with momentum and AdamW, and the cost of
// clipping the global gradient norm (the harness's clip vs LibTorch's clip_grad_norm_).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "harness/techniques/grad_clipping.h"
#include "harness/techniques/zero_grad.h"
#include "harness/train/optimizer_factory.h"
#include "models/resnet.h"

namespace {

std::vector<torch::Tensor> parameters_with_grads(int64_t model) {
  auto options = model == 8 ? speedbench::models::cifar_resnet_options(8, {16, 32, 64})
                            : speedbench::models::resnet18_options({64, 128, 256, 512});
  options.in_channels = 3;
  auto params = speedbench::models::ResNet(options)->parameters();
  for (auto& p : params) p.mutable_grad() = torch::randn_like(p);
  return params;
}

// One "backward" writing fresh gradients after the clear: into zeros, or into new tensors.
void clear_then_write(benchmark::State& state, bool set_to_none) {
  auto params = parameters_with_grads(state.range(0));
  std::vector<torch::Tensor> fresh;
  for (const auto& p : params) fresh.push_back(torch::randn_like(p));
  int64_t bytes = 0;
  for (const auto& p : params) bytes += p.numel() * 4;
  for (auto _ : state) {
    speedbench::clear_gradients(params, set_to_none);
    for (size_t i = 0; i < params.size(); ++i) {
      auto& grad = params[i].mutable_grad();
      if (grad.defined()) {
        grad.add_(fresh[i]);  // autograd accumulates into the zeroed gradient
      } else {
        grad = fresh[i].clone();  // autograd writes a new gradient
      }
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

void optimizer_step(benchmark::State& state, const std::string& name, const std::string& impl) {
  auto params = parameters_with_grads(state.range(0));
  speedbench::OptimizerConfig config;
  config.name = name;
  config.lr = 1e-4;
  config.weight_decay = 1e-4;
  auto optimizer = speedbench::make_optimizer(config, params, impl);
  for (auto _ : state) optimizer->step();
  int64_t count = 0;
  for (const auto& p : params) count += p.numel();
  state.SetItemsProcessed(state.iterations() * count);  // parameters updated
}

// max_norm below the gradients' norm, so every call really scales them (as a clipped step).
void clip_grad_norm(benchmark::State& state, bool libtorch) {
  auto params = parameters_with_grads(state.range(0));
  int64_t bytes = 0;
  for (const auto& p : params) bytes += p.numel() * 4;
  for (auto _ : state) {
    const double norm = libtorch ? torch::nn::utils::clip_grad_norm_(params, 1e-3)
                                 : speedbench::clip_global_grad_norm(params, 1e-3);
    benchmark::DoNotOptimize(norm);
  }
  state.SetBytesProcessed(state.iterations() * bytes);  // gradient bytes read (and scaled)
}

// Each mechanism over ResNet-8's and ResNet-18's parameters, in microseconds.
void over_resnet8_and_18(benchmark::internal::Benchmark* family) {
  family->Arg(8)->Arg(18)->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(clip_grad_norm, harness, false)->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(clip_grad_norm, libtorch, true)->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(clear_then_write, zero, false)->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(clear_then_write, none, true)->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(optimizer_step, sgd_loop, "sgd", "loop")->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(optimizer_step, sgd_foreach, "sgd", "foreach")->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(optimizer_step, sgd_fused, "sgd", "fused")->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(optimizer_step, adamw_loop, "adamw", "loop")->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(optimizer_step, adamw_foreach, "adamw", "foreach")->Apply(over_resnet8_and_18);
BENCHMARK_CAPTURE(optimizer_step, adamw_fused, "adamw", "fused")->Apply(over_resnet8_and_18);
