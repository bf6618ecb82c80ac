#include "harness/train/evaluate.h"

#include <torch/torch.h>

#include <optional>

#include "harness/measure/sync_counter.h"
#include "harness/techniques/channels_last.h"

namespace speedbench {

torch::Tensor classification_loss(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}),
                                              targets.reshape({-1}));
}

EvalResult evaluate(Workload& workload, const data::BatchDataset& test_set, int64_t batch_size,
                    const torch::Device& device, bool no_grad, bool channels_last) {
  std::optional<torch::NoGradGuard> no_grad_guard;
  if (no_grad) no_grad_guard.emplace();
  workload.module->eval();
  const auto total = static_cast<int64_t>(test_set.size().value());
  // Sums stay on the device; one read at the end.
  auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(device));
  auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device));
  int64_t predictions = 0;
  for (int64_t begin = 0; begin < total; begin += batch_size) {
    const auto count = std::min(batch_size, total - begin);
    auto batch = test_set.slice(begin, count);
    auto inputs = batch.data.to(device), targets = batch.target.to(device);
    if (channels_last) inputs = channels_last_input(inputs);
    auto logits = workload.model.forward(inputs);
    auto flat_logits = logits.reshape({-1, logits.size(-1)});
    auto flat_targets = targets.reshape({-1});
    loss_sum += torch::nn::functional::cross_entropy(
                    flat_logits, flat_targets,
                    torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .detach()
                    .to(torch::kFloat64);
    correct += flat_logits.argmax(-1).eq(flat_targets).sum();
    predictions += flat_targets.numel();
  }
  workload.module->train();
  measure::count_host_sync();  // the two reads below
  EvalResult result;
  result.loss = loss_sum.item<double>() / static_cast<double>(predictions);
  result.accuracy = static_cast<double>(correct.item<int64_t>()) / static_cast<double>(predictions);
  return result;
}

}  // namespace speedbench
