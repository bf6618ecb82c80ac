#include "models/flops.h"

#include <stdexcept>

namespace speedbench::models {

namespace {

// A k x k convolution with padding k/2: the output has ceil(size / stride) rows and columns.
double conv_flops(int64_t in, int64_t out, int64_t kernel, int64_t out_height, int64_t out_width) {
  return 2.0 * in * out * kernel * kernel * out_height * out_width;
}

}  // namespace

double resnet_forward_flops(const ResNetOptions& options, int64_t height, int64_t width) {
  const auto downsample = [&](int64_t stride) {
    height = (height + stride - 1) / stride;
    width = (width + stride - 1) / stride;
  };
  int64_t channels = options.widths.front();
  double flops = 0;
  if (options.imagenet_stem) {
    downsample(2);  // the 7x7 conv; the max pool after it halves again, without FLOPs counted
    flops += conv_flops(options.in_channels, channels, 7, height, width);
    downsample(2);
  } else {
    flops += conv_flops(options.in_channels, channels, 3, height, width);
  }
  for (size_t stage = 0; stage < options.widths.size(); ++stage) {
    for (int64_t b = 0; b < options.blocks_per_stage.at(stage); ++b) {
      const int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
      const int64_t inner = options.widths[stage];
      const int64_t in_height = height, in_width = width;
      downsample(stride);
      int64_t out = inner;
      if (options.bottleneck) {
        out = inner * BottleneckBlockImpl::kExpansion;
        flops += conv_flops(channels, inner, 1, in_height, in_width) +  // before the stride
                 conv_flops(inner, inner, 3, height, width) +
                 conv_flops(inner, out, 1, height, width);
      } else {
        flops +=
            conv_flops(channels, out, 3, height, width) + conv_flops(out, out, 3, height, width);
      }
      if (stride != 1 || channels != out) flops += conv_flops(channels, out, 1, height, width);
      channels = out;
    }
  }
  return flops + 2.0 * channels * options.num_classes;  // head
}

double recurrent_forward_flops(const RecurrentOptions& options, int64_t steps,
                               bool head_every_step) {
  const int64_t gates = options.cell == "lstm" ? 4 : options.cell == "gru" ? 3 : 0;
  if (gates == 0) throw std::invalid_argument("unknown recurrent cell " + options.cell);
  double flops = 0;
  int64_t input = options.input_size;
  for (int64_t layer = 0; layer < options.layers; ++layer) {
    flops += 2.0 * gates * options.hidden * (input + options.hidden) * steps;
    input = options.hidden;
  }
  const double head = 2.0 * options.hidden * options.outputs;
  return flops + head * (head_every_step ? steps : 1);
}

}  // namespace speedbench::models
