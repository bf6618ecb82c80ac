// Model FLOPs of one forward pass per example, counted from the architecture: 2 FLOPs per
// multiply-accumulate of the convolutions, recurrent matrix products and linear layers.
// Normalisation, activations, pooling and element-wise gate math are left out, as MFU
// accounting usually does. A training step costs about 3x the forward (forward + 2x backward).
#pragma once

#include <cstdint>

#include "models/recurrent.h"
#include "models/resnet.h"

namespace speedbench::models {

double resnet_forward_flops(const ResNetOptions& options, int64_t height, int64_t width);

// `steps` time steps; the head runs once (classifier) or at every step (language model).
double recurrent_forward_flops(const RecurrentOptions& options, int64_t steps,
                               bool head_every_step);

}  // namespace speedbench::models
