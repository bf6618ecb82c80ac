// CPU image augmentation of the CIFAR recipe: random crop after zero padding, random
// horizontal flip. Randomness comes from the caller's generator, so a batch's augmentation is
// fixed by its seed whichever DataLoader thread builds it.
#pragma once

#include <torch/types.h>

#include <random>

namespace speedbench::data {

// images: float [B, C, H, W]; returns a new tensor of the same shape.
torch::Tensor random_crop_and_flip(const torch::Tensor& images, int64_t padding,
                                   std::mt19937_64& rng);

}  // namespace speedbench::data
