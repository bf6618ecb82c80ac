#include "models/resnet.h"

#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/pooling.h>

#include <stdexcept>

namespace speedbench::models {

namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, bool bias) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(bias));
}

// A 1x1 conv and BatchNorm when the block changes the shape; empty (identity) when it does not.
torch::nn::Sequential shortcut(int64_t in, int64_t out, int64_t stride, bool conv_bias) {
  torch::nn::Sequential projection;
  if (stride != 1 || in != out) {
    projection->push_back(conv(in, out, /*kernel=*/1, stride, conv_bias));
    projection->push_back(torch::nn::BatchNorm2d(out));
  }
  return projection;
}

torch::Tensor apply_shortcut(torch::nn::Sequential& projection, const torch::Tensor& x) {
  return projection->is_empty() ? x : projection->forward(x);
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(int64_t in_channels, int64_t out_channels, int64_t stride,
                               bool conv_bias) {
  conv1_ =
      register_module("conv1", conv(in_channels, out_channels, /*kernel=*/3, stride, conv_bias));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(out_channels));
  conv2_ = register_module("conv2", conv(out_channels, out_channels, /*kernel=*/3, 1, conv_bias));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(out_channels));
  shortcut_ = register_module("shortcut", shortcut(in_channels, out_channels, stride, conv_bias));
}

torch::Tensor BasicBlockImpl::forward(const torch::Tensor& x) {
  auto out = torch::relu(bn1_->forward(conv1_->forward(x)));
  out = bn2_->forward(conv2_->forward(out));
  return torch::relu(out + apply_shortcut(shortcut_, x));
}

BottleneckBlockImpl::BottleneckBlockImpl(int64_t in_channels, int64_t width, int64_t stride,
                                         bool conv_bias) {
  const int64_t out_channels = width * kExpansion;
  conv1_ = register_module("conv1", conv(in_channels, width, /*kernel=*/1, 1, conv_bias));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(width));
  conv2_ = register_module("conv2", conv(width, width, /*kernel=*/3, stride, conv_bias));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(width));
  conv3_ = register_module("conv3", conv(width, out_channels, /*kernel=*/1, 1, conv_bias));
  bn3_ = register_module("bn3", torch::nn::BatchNorm2d(out_channels));
  shortcut_ = register_module("shortcut", shortcut(in_channels, out_channels, stride, conv_bias));
}

torch::Tensor BottleneckBlockImpl::forward(const torch::Tensor& x) {
  auto out = torch::relu(bn1_->forward(conv1_->forward(x)));
  out = torch::relu(bn2_->forward(conv2_->forward(out)));
  out = bn3_->forward(conv3_->forward(out));
  return torch::relu(out + apply_shortcut(shortcut_, x));
}

ResNetImpl::ResNetImpl(const ResNetOptions& options) {
  if (options.widths.size() != options.blocks_per_stage.size() || options.widths.empty()) {
    throw std::invalid_argument("ResNet: one width per stage is needed");
  }
  const auto stem_width = options.widths.front();
  imagenet_stem_ = options.imagenet_stem;
  const int64_t stem_kernel = imagenet_stem_ ? 7 : 3, stem_stride = imagenet_stem_ ? 2 : 1;
  stem_conv_ = register_module("stem_conv", conv(options.in_channels, stem_width, stem_kernel,
                                                 stem_stride, options.conv_bias));
  stem_bn_ = register_module("stem_bn", torch::nn::BatchNorm2d(stem_width));
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  int64_t channels = stem_width;
  for (size_t stage = 0; stage < options.widths.size(); ++stage) {
    const int64_t width = options.widths[stage];
    for (int64_t b = 0; b < options.blocks_per_stage[stage]; ++b) {
      const int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
      if (options.bottleneck) {
        blocks_->push_back(BottleneckBlock(channels, width, stride, options.conv_bias));
        channels = width * BottleneckBlockImpl::kExpansion;
      } else {
        blocks_->push_back(BasicBlock(channels, width, stride, options.conv_bias));
        channels = width;
      }
    }
  }
  head_ = register_module("head", torch::nn::Linear(channels, options.num_classes));
}

int64_t ResNetImpl::num_segments() const { return static_cast<int64_t>(blocks_->size()) + 2; }

torch::Tensor ResNetImpl::forward_segment(int64_t index, const torch::Tensor& x) {
  if (index == 0) {
    auto out = torch::relu(stem_bn_->forward(stem_conv_->forward(x)));
    return imagenet_stem_ ? torch::max_pool2d(out, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1)
                          : out;
  }
  if (index == num_segments() - 1) {
    // B x C x H x W -> B x C (global average pool) -> B x classes
    return head_->forward(x.mean({2, 3}));
  }
  return blocks_->ptr<ResidualBlockImpl>(index - 1)->forward(x);
}

std::vector<std::shared_ptr<torch::nn::Module>> ResNetImpl::segment_modules(int64_t index) const {
  if (index == 0) return {stem_conv_.ptr(), stem_bn_.ptr()};
  if (index == num_segments() - 1) return {head_.ptr()};
  return {blocks_->ptr(index - 1)};
}

std::vector<torch::Tensor> ResNetImpl::segment_parameters(int64_t index) const {
  std::vector<torch::Tensor> result;
  for (const auto& module : segment_modules(index)) {
    for (const auto& p : module->parameters()) result.push_back(p);
  }
  return result;
}

std::vector<torch::Tensor> ResNetImpl::segment_buffers(int64_t index) const {
  std::vector<torch::Tensor> result;
  for (const auto& module : segment_modules(index)) {
    for (const auto& b : module->buffers()) result.push_back(b);
  }
  return result;
}

torch::Tensor ResNetImpl::forward(const torch::Tensor& x) {
  auto out = x;
  for (int64_t i = 0; i < num_segments(); ++i) out = forward_segment(i, out);
  return out;
}

ResNetOptions cifar_resnet_options(int64_t depth, std::vector<int64_t> widths) {
  if (depth < 8 || (depth - 2) % 6 != 0) {
    throw std::invalid_argument("CIFAR ResNet depth must be 6n+2, got " + std::to_string(depth));
  }
  ResNetOptions options;
  const int64_t blocks = (depth - 2) / 6;
  options.blocks_per_stage = std::vector<int64_t>(widths.size(), blocks);
  options.widths = std::move(widths);
  return options;
}

ResNetOptions resnet18_options(std::vector<int64_t> widths) {
  ResNetOptions options;
  options.blocks_per_stage = std::vector<int64_t>(widths.size(), 2);
  options.widths = std::move(widths);
  return options;
}

ResNetOptions resnet50_options(std::vector<int64_t> widths) {
  if (widths.size() != 4) throw std::invalid_argument("ResNet-50 has 4 stages");
  ResNetOptions options;
  options.blocks_per_stage = {3, 4, 6, 3};
  options.widths = std::move(widths);
  options.bottleneck = true;
  return options;
}

}  // namespace speedbench::models
