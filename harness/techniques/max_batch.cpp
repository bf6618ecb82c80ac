#include "harness/techniques/max_batch.h"

#include <c10/util/Exception.h>
#include <torch/torch.h>

#include "harness/measure/memory_meter.h"
#include "harness/train/evaluate.h"
#include "harness/train/optimizer_factory.h"

namespace speedbench {

MaxBatchResult search_max_batch(const std::function<BatchProbe(int64_t)>& measure, int64_t start,
                                int64_t limit) {
  MaxBatchResult result;
  auto try_batch = [&](int64_t batch) {
    result.probes.push_back(measure(batch));
    return result.probes.back().fits;
  };
  int64_t fits = 0, fails = 0;
  for (int64_t batch = std::min(start, limit);; batch = std::min(batch * 2, limit)) {
    if (!try_batch(batch)) {
      fails = batch;
      break;
    }
    fits = batch;
    if (batch == limit) break;
  }
  if (fails == 0) {  // everything up to the limit fits
    result.batch = fits;
    return result;
  }
  int64_t low = fits, high = fails;  // low fits (or 0), high does not
  while (high - low > 1) {
    const int64_t middle = low + (high - low) / 2;
    (try_batch(middle) ? low : high) = middle;
  }
  result.batch = low;
  return result;
}

BatchProbe probe_training_step(const TrainConfig& config, const Workload& workload, int64_t batch,
                               int64_t budget_bytes, const torch::Device& device) {
  BatchProbe probe;
  probe.batch = batch;
  const auto& train = workload.data.train;
  // Real rows, repeated when the batch is larger than the training set.
  auto rows = torch::arange(batch, torch::kInt64).remainder(train.size());
  data::BatchDataset dataset(train, workload.transform);
  std::vector<size_t> indices(rows.data_ptr<int64_t>(), rows.data_ptr<int64_t>() + batch);
  auto example = dataset.get_batch(indices);

  auto memory = measure::make_memory_meter(device.is_cuda(), device.is_cuda() ? device.index() : 0);
  try {
    auto model =
        build_model(config, train.inputs.sizes().slice(1).vec(), workload.data.num_classes);
    model.ptr()->to(device);
    auto optimizer = make_optimizer(config.optimizer, model.ptr()->parameters());
    memory->reset_peak();
    const auto base = memory->current_bytes();
    auto loss =
        classification_loss(model.forward(example.data.to(device)), example.target.to(device));
    loss.backward();
    optimizer->step();
    probe.peak_bytes = memory->peak_bytes() - base;
    // On CUDA, budget 0 means the device itself: it fits when it ran.
    probe.fits = (device.is_cuda() && budget_bytes == 0) || probe.peak_bytes <= budget_bytes;
  } catch (const c10::OutOfMemoryError&) {
    probe.fits = false;  // a CUDA candidate that does not fit the device
  }
  memory->release_cached();  // the next candidate starts from what is really live
  return probe;
}

int64_t apply_max_batch(TrainConfig& config, const Workload& workload,
                        const torch::Device& device) {
  const auto& options = config.techniques.max_batch;
  const auto result = search_max_batch(
      [&](int64_t batch) {
        return probe_training_step(config, workload, batch, options.budget_bytes, device);
      },
      config.batch_size, std::min<int64_t>(options.limit, workload.data.train.size()));
  if (result.batch == 0) {
    // The run's own batch does not fit what the search may use: an out-of-memory run (the error's
    // type makes its record's status `oom`), not a crash.
    const auto& first = result.probes.front();
    const std::string why = first.peak_bytes < 0
                                ? "the device ran out of memory; lower batch_size"
                                : "its training step took " + std::to_string(first.peak_bytes) +
                                      " bytes, above techniques.max_batch.budget_bytes " +
                                      std::to_string(options.budget_bytes) +
                                      "; lower batch_size or raise the budget";
    C10_THROW_ERROR(OutOfMemoryError, "max_batch: out of memory at the starting batch " +
                                          std::to_string(first.batch) + ": " + why);
  }
  config.batch_size = result.batch;
  return static_cast<int64_t>(result.probes.size());
}

}  // namespace speedbench
