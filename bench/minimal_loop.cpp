// speedbench_minimal_loop CONFIG.json: the reference for the harness-overhead race. The same
// model and data as `speedbench run-one` (build_workload), trained by the shortest honest
// LibTorch loop: no meters, no memory tracker, no data loader, no progress, no records.
// Prints one JSON line like bench/python_parity/train.py: samples/s over the steps after
// warmup_steps (batch gather + forward + backward + step + the loss read) and test accuracy.
// Only configs with every technique off are accepted: the race measures the harness, not a tip.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/techniques/registry.h"
#include "harness/train/workload.h"

namespace {

using namespace speedbench;

std::unique_ptr<torch::optim::Optimizer> plain_optimizer(const OptimizerConfig& o,
                                                         const std::vector<torch::Tensor>& params) {
  if (o.name == "sgd") {
    return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(o.lr)
                                                           .momentum(o.momentum)
                                                           .nesterov(o.nesterov)
                                                           .weight_decay(o.weight_decay));
  }
  if (o.name == "adam") {
    return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(o.lr)
                                                            .betas({o.beta1, o.beta2})
                                                            .eps(o.eps)
                                                            .weight_decay(o.weight_decay));
  }
  return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(o.lr)
                                                           .betas({o.beta1, o.beta2})
                                                           .eps(o.eps)
                                                           .weight_decay(o.weight_decay));
}

// A batch as the model takes it: images become floats in [0, 1], text ids stay ids.
torch::Tensor as_model_input(const torch::Tensor& raw) {
  return raw.scalar_type() == torch::kUInt8 ? raw.to(torch::kFloat32).div_(255.0) : raw;
}

torch::Tensor loss_of(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}),
                                              targets.reshape({-1}));
}

int run(const char* path) {
  const auto config = load_train_config(path);
  for (const auto& id : enabled_techniques(config)) {
    if (id != "debug_off") {
      throw ConfigError(path, find_technique(id)->config_field,
                        "the minimal loop runs with every technique off");
    }
  }
  if (config.max_steps <= 0)
    throw ConfigError(path, "max_steps", "the race needs a step count (> 0)");
  torch::set_num_threads(static_cast<int>(config.threads));
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  Workload workload = build_workload(config);
  workload.module->train();
  auto optimizer = plain_optimizer(config.optimizer, workload.module->parameters());
  const auto& train = workload.data.train;
  const int64_t batch = config.batch_size;
  auto order = torch::randperm(train.size());
  int64_t position = 0;
  double timed_s = 0, last_loss = 0;
  int64_t timed_samples = 0;
  for (int64_t step = 0; step < config.max_steps; ++step) {
    const auto start = std::chrono::steady_clock::now();
    if (position + batch > train.size()) {
      order = torch::randperm(train.size());
      position = 0;
    }
    const auto rows = order.narrow(0, position, batch);
    position += batch;
    const auto inputs = as_model_input(train.inputs.index_select(0, rows));
    const auto targets = train.targets.index_select(0, rows);
    optimizer->zero_grad(/*set_to_none=*/false);
    auto loss = loss_of(workload.model.forward(inputs), targets);
    loss.backward();
    optimizer->step();
    last_loss = loss.item<double>();
    if (step >= config.warmup_steps) {
      timed_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      timed_samples += batch;
    }
  }
  workload.module->eval();
  const auto& test = workload.data.test;
  int64_t correct = 0, total = 0;
  for (int64_t begin = 0; begin < test.size(); begin += config.eval_batch_size) {
    const int64_t count = std::min(config.eval_batch_size, test.size() - begin);
    const auto targets = test.targets.narrow(0, begin, count);
    const auto logits = workload.model.forward(as_model_input(test.inputs.narrow(0, begin, count)));
    correct += logits.argmax(-1).eq(targets).sum().item<int64_t>();
    total += targets.numel();
  }
  std::printf(
      "{\"samples_per_s\": %.6g, \"steps\": %lld, \"final_train_loss\": %.6g, \"test_accuracy\": "
      "%.6g}\n",
      timed_s > 0 ? timed_samples / timed_s : 0.0, static_cast<long long>(config.max_steps),
      last_loss, static_cast<double>(correct) / static_cast<double>(total));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: speedbench_minimal_loop CONFIG.json\n");
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const speedbench::ConfigError& error) {
    std::fprintf(stderr, "speedbench_minimal_loop: error: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "speedbench_minimal_loop: error: %s\n", error.what());
    return 1;
  }
}
