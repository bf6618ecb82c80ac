// Tip 12: a host batch buffer turned into a tensor by copying (torch::tensor) vs by wrapping
// (from_blob), for Fashion-MNIST (1x28x28) and ImageNet-shaped (3x224x224) float batches.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "harness/techniques/host_to_tensor.h"

namespace {

void host_to_tensor(benchmark::State& state, int64_t channels, int64_t side, bool wrap) {
  const int64_t batch = state.range(0);
  const std::vector<int64_t> shape = {batch, channels, side, side};
  auto buffer = std::make_shared<std::vector<float>>(batch * channels * side * side, 0.5f);
  for (auto _ : state) {
    auto tensor = speedbench::host_buffer_to_tensor(buffer, shape, wrap);
    benchmark::DoNotOptimize(tensor.data_ptr<float>());
  }
  // Batch bytes made available as a tensor per second (the same measure for both sides: the
  // wrapped side hands them over without moving them).
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(buffer->size() * sizeof(float)));
}

}  // namespace

BENCHMARK_CAPTURE(host_to_tensor, fashion_copy, 1, 28, false)->RangeMultiplier(4)->Range(32, 4096);
BENCHMARK_CAPTURE(host_to_tensor, fashion_wrap, 1, 28, true)->RangeMultiplier(4)->Range(32, 4096);
BENCHMARK_CAPTURE(host_to_tensor, imagenet_copy, 3, 224, false)->RangeMultiplier(8)->Range(32, 256);
BENCHMARK_CAPTURE(host_to_tensor, imagenet_wrap, 3, 224, true)->RangeMultiplier(8)->Range(32, 256);
