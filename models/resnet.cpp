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

}  // namespace

BasicBlockImpl::BasicBlockImpl(int64_t in_channels, int64_t out_channels, int64_t stride,
                               bool conv_bias) {
  conv1_ =
      register_module("conv1", conv(in_channels, out_channels, /*kernel=*/3, stride, conv_bias));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(out_channels));
  conv2_ = register_module("conv2", conv(out_channels, out_channels, /*kernel=*/3, 1, conv_bias));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(out_channels));
  shortcut_ = register_module("shortcut", torch::nn::Sequential());
  if (stride != 1 || in_channels != out_channels) {
    shortcut_->push_back(conv(in_channels, out_channels, /*kernel=*/1, stride, conv_bias));
    shortcut_->push_back(torch::nn::BatchNorm2d(out_channels));
  }
}

torch::Tensor BasicBlockImpl::forward(const torch::Tensor& x) {
  auto out = torch::relu(bn1_->forward(conv1_->forward(x)));
  out = bn2_->forward(conv2_->forward(out));
  auto skip = shortcut_->is_empty() ? x : shortcut_->forward(x);
  return torch::relu(out + skip);
}

ResNetImpl::ResNetImpl(const ResNetOptions& options) {
  if (options.widths.size() != options.blocks_per_stage.size() || options.widths.empty()) {
    throw std::invalid_argument("ResNet: one width per stage is needed");
  }
  const auto stem_width = options.widths.front();
  stem_conv_ = register_module(
      "stem_conv", conv(options.in_channels, stem_width, /*kernel=*/3, 1, options.conv_bias));
  stem_bn_ = register_module("stem_bn", torch::nn::BatchNorm2d(stem_width));
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  int64_t channels = stem_width;
  for (size_t stage = 0; stage < options.widths.size(); ++stage) {
    for (int64_t b = 0; b < options.blocks_per_stage[stage]; ++b) {
      const int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
      blocks_->push_back(BasicBlock(channels, options.widths[stage], stride, options.conv_bias));
      channels = options.widths[stage];
    }
  }
  head_ = register_module("head", torch::nn::Linear(channels, options.num_classes));
}

int64_t ResNetImpl::num_segments() const { return static_cast<int64_t>(blocks_->size()) + 2; }

torch::Tensor ResNetImpl::forward_segment(int64_t index, const torch::Tensor& x) {
  if (index == 0) return torch::relu(stem_bn_->forward(stem_conv_->forward(x)));
  if (index == num_segments() - 1) {
    // B x C x H x W -> B x C (global average pool) -> B x classes
    return head_->forward(x.mean({2, 3}));
  }
  return blocks_->ptr<BasicBlockImpl>(index - 1)->forward(x);
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

}  // namespace speedbench::models
