#include "harness/data/batch_dataset.h"

#include <torch/torch.h>

#include "harness/data/augment.h"

namespace speedbench::data {

namespace {
constexpr int64_t kCropPadding = 4;
}

BatchDataset::BatchDataset(ExampleSet examples, ImageTransform transform)
    : examples_(std::move(examples)), transform_(transform) {}

std::optional<size_t> BatchDataset::size() const {
  return static_cast<size_t>(examples_.size());
}

torch::Tensor BatchDataset::to_inputs(torch::Tensor raw, bool augment,
                                      uint64_t augment_seed) const {
  if (!transform_.is_image) return raw;
  auto images = raw.to(torch::kFloat32).div_(255.0);
  if (augment) {
    std::mt19937_64 rng(augment_seed);
    images = random_crop_and_flip(images, kCropPadding, rng);
  }
  if (transform_.normalize) images.sub_(transform_.mean).div_(transform_.std);
  return images;
}

torch::data::Example<> BatchDataset::get_batch(c10::ArrayRef<size_t> indices) {
  auto index = torch::empty({static_cast<int64_t>(indices.size())}, torch::kInt64);
  auto* out = index.data_ptr<int64_t>();
  // The seed depends on the rows requested, not on the thread or the call order.
  uint64_t seed = transform_.seed * 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < indices.size(); ++i) {
    out[i] = static_cast<int64_t>(indices[i]);
    seed = (seed ^ indices[i]) * 0x100000001B3ULL;
  }
  return {to_inputs(examples_.inputs.index_select(0, index), transform_.augment, seed),
          examples_.targets.index_select(0, index)};
}

torch::data::Example<> BatchDataset::slice(int64_t begin, int64_t count) const {
  // Evaluation never augments.
  return {to_inputs(examples_.inputs.narrow(0, begin, count), /*augment=*/false, 0),
          examples_.targets.narrow(0, begin, count)};
}

}  // namespace speedbench::data
