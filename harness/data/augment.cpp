#include "harness/data/augment.h"

#include <torch/torch.h>

namespace speedbench::data {

torch::Tensor random_crop_and_flip(const torch::Tensor& images, int64_t padding,
                                   std::mt19937_64& rng) {
  const auto height = images.size(2), width = images.size(3);
  auto padded = torch::constant_pad_nd(images, {padding, padding, padding, padding}, 0.0);
  std::uniform_int_distribution<int64_t> offset(0, 2 * padding);
  std::bernoulli_distribution flip(0.5);
  std::vector<torch::Tensor> crops;
  crops.reserve(images.size(0));
  for (int64_t i = 0; i < images.size(0); ++i) {
    auto crop = padded[i].narrow(1, offset(rng), height).narrow(2, offset(rng), width);
    crops.push_back(flip(rng) ? crop.flip({2}) : crop);
  }
  return torch::stack(crops);
}

}  // namespace speedbench::data
