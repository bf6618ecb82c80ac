// Tip 2 (pin_memory): host -> device copies from pageable vs pinned memory, 1 MiB..64 MiB,
// synchronous and non_blocking. CUDA only: on a machine without a GPU every case is skipped
// with the reason (Google Benchmark reports it as an error_message in its JSON).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "harness/suite/run_one.h"

namespace {

void host_to_device(benchmark::State& state, bool pinned, bool non_blocking) {
  if (!speedbench::cuda_device_available()) {
    state.SkipWithError("needs a CUDA device: pinned memory only changes host->device copies");
    for (auto _ : state) {
    }
    return;
  }
  const int64_t bytes = state.range(0) << 20;
  auto host = torch::empty({bytes / 4}, torch::kFloat32);
  if (pinned) host = host.pin_memory();
  host.fill_(1.0f);
  auto device =
      torch::empty({bytes / 4}, torch::TensorOptions(torch::kFloat32).device(torch::kCUDA));
  for (auto _ : state) {
    device.copy_(host, non_blocking);
    torch::cuda::synchronize();  // the copy is done (a non_blocking one returns at once)
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

// 1, 8 and 64 MiB, in wall time (the copy runs on the device, not on this thread).
void over_1_to_64_mib(benchmark::internal::Benchmark* family) {
  family->RangeMultiplier(8)->Range(1, 64)->UseRealTime();
}

}  // namespace

BENCHMARK_CAPTURE(host_to_device, pageable, false, false)->Apply(over_1_to_64_mib);
BENCHMARK_CAPTURE(host_to_device, pinned, true, false)->Apply(over_1_to_64_mib);
BENCHMARK_CAPTURE(host_to_device, pinned_non_blocking, true, true)->Apply(over_1_to_64_mib);
