#include "harness/data/batch_dataset.h"

#include <torch/torch.h>

#include <numeric>

#include "harness/data/augment.h"
#include "harness/techniques/host_to_tensor.h"

namespace speedbench::data {

namespace {

constexpr int64_t kCropPadding = 4;
constexpr float kPixelScale = 1.0f / 255.0f;

// The rows as an index tensor on `device`. Pinned and copied asynchronously: a copy from pageable
// memory would make the host wait for the device at every batch.
torch::Tensor row_index_on(torch::Device device, c10::ArrayRef<int64_t> rows) {
  auto index = torch::tensor(rows, torch::kInt64);
  return device.is_cpu() ? index : index.pin_memory().to(device, /*non_blocking=*/true);
}

}  // namespace

BatchDataset::BatchDataset(ExampleSet examples, ImageTransform transform)
    : examples_(std::move(examples)), transform_(transform) {}

std::optional<size_t> BatchDataset::size() const { return static_cast<size_t>(examples_.size()); }

torch::data::Example<> BatchDataset::gather(c10::ArrayRef<int64_t> rows) const {
  if (transform_.on_device) {
    const auto index = row_index_on(examples_.inputs.device(), rows);
    auto inputs = examples_.inputs.index_select(0, index);
    if (transform_.is_image) inputs = inputs.to(torch::kFloat).mul_(kPixelScale);
    return {inputs, examples_.targets.index_select(0, index)};
  }
  return {gather_host_inputs(rows),
          examples_.targets.index_select(0, row_index_on(torch::kCPU, rows))};
}

torch::Tensor BatchDataset::gather_host_inputs(c10::ArrayRef<int64_t> rows) const {
  const auto row_shape = examples_.inputs.sizes().slice(1);
  const int64_t row_size = c10::multiply_integers(row_shape);
  std::vector<int64_t> shape = {static_cast<int64_t>(rows.size())};
  shape.insert(shape.end(), row_shape.begin(), row_shape.end());
  const bool wrap = transform_.wrap_host_buffer;
  if (!transform_.is_image) {
    auto buffer = std::make_shared<std::vector<int64_t>>(rows.size() * row_size);
    const auto* ids = examples_.inputs.data_ptr<int64_t>();
    for (size_t i = 0; i < rows.size(); ++i) {
      std::copy_n(ids + rows[i] * row_size, row_size, buffer->data() + i * row_size);
    }
    return host_buffer_to_tensor(std::move(buffer), shape, wrap);
  }
  auto buffer = std::make_shared<std::vector<float>>(rows.size() * row_size);
  const auto* pixels = examples_.inputs.data_ptr<uint8_t>();
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto* source = pixels + rows[i] * row_size;
    auto* target = buffer->data() + i * row_size;
    for (int64_t j = 0; j < row_size; ++j) target[j] = source[j] * kPixelScale;
  }
  return host_buffer_to_tensor(std::move(buffer), shape, wrap);
}

torch::Tensor BatchDataset::finish_inputs(torch::Tensor inputs, bool augment,
                                          uint64_t augment_seed) const {
  if (!transform_.is_image) return inputs;
  if (augment) {
    std::mt19937_64 rng(augment_seed);
    inputs = random_crop_and_flip(inputs, kCropPadding, rng);
  }
  if (transform_.normalize) inputs.sub_(transform_.mean).div_(transform_.std);
  return inputs;
}

torch::data::Example<> BatchDataset::get_batch(c10::ArrayRef<size_t> indices) {
  std::vector<int64_t> rows(indices.begin(), indices.end());
  // The seed depends on the rows requested, not on the thread or the call order.
  uint64_t seed = transform_.seed * 0x9E3779B97F4A7C15ULL;
  for (auto row : indices) seed = (seed ^ row) * 0x100000001B3ULL;
  auto batch = gather(rows);
  auto inputs = finish_inputs(batch.data, transform_.augment, seed);
  if (transform_.pin_memory && !transform_.on_device) {
    return {inputs.pin_memory(), batch.target.pin_memory()};
  }
  return {inputs, batch.target};
}

torch::data::Example<> BatchDataset::slice(int64_t begin, int64_t count) const {
  std::vector<int64_t> rows(count);
  std::iota(rows.begin(), rows.end(), begin);
  auto batch = gather(rows);
  return {finish_inputs(batch.data, /*augment=*/false, 0), batch.target};  // never augmented
}

}  // namespace speedbench::data
