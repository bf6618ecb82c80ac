// Per-step costs of tips 7, 13 and 4 in isolation, off and on side by side:
//   loss_read     reading the loss with .item() every step vs every 50 steps (LossReader)
//   anomaly_mode  a chain of small differentiable ops, forward + backward, anomaly detection
//                 off vs on (items = ops: the per-op overhead is 1 / items_per_second)
//   autocast      a Linear(256, 256) forward at batch N in fp32 vs inside a bf16 autocast region
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "harness/techniques/amp.h"
#include "harness/techniques/debug_mode.h"
#include "harness/techniques/loss_reader.h"

namespace {

// A "step" that produces a scalar loss from a [size x size] matmul, read every `read_every`.
void loss_read(benchmark::State& state, int64_t read_every) {
  const int64_t size = state.range(0);
  const auto a = torch::randn({size, size}), b = torch::randn({size, size});
  speedbench::LossReader reader(read_every);
  double total = 0;
  for (auto _ : state) {
    for (double loss : reader.add(torch::mm(a, b).mean())) total += loss;
  }
  for (double loss : reader.flush()) total += loss;
  benchmark::DoNotOptimize(total);
  state.SetItemsProcessed(state.iterations());  // steps
}

void anomaly_mode(benchmark::State& state, const std::string& mode) {
  const int64_t ops = state.range(0);
  const auto x = torch::randn({64}, torch::requires_grad());
  speedbench::DebugModeGuard guard(mode);
  for (auto _ : state) {
    auto y = x;
    for (int64_t i = 0; i < ops / 2; ++i) y = (y * 1.0001).add(0.001);
    y.sum().backward();
  }
  state.SetItemsProcessed(state.iterations() * ops);  // differentiable ops, forward and backward
}

void autocast(benchmark::State& state, bool bf16) {
  const int64_t batch = state.range(0);
  torch::nn::Linear layer(256, 256);
  const auto input = torch::randn({batch, 256});
  torch::NoGradGuard no_grad;
  for (auto _ : state) {
    std::optional<speedbench::AutocastGuard> region;
    if (bf16) region.emplace(torch::kCPU, torch::kBFloat16);
    auto out = layer(input);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * batch);  // examples
}

}  // namespace

BENCHMARK_CAPTURE(loss_read, every_step, 1)->Arg(16)->Arg(128)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(loss_read, every_50, 50)->Arg(16)->Arg(128)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(anomaly_mode, off, "off")->Arg(100)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(anomaly_mode, anomaly, "anomaly")->Arg(100)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(autocast, fp32, false)->Arg(1)->Arg(32)->Arg(512)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(autocast, bf16, true)->Arg(1)->Arg(32)->Arg(512)->Unit(benchmark::kMicrosecond);
