// The ResNet family of the benchmarks (He et al., arXiv 1512.03385):
//   CIFAR-style ResNet-(6n+2): a 3x3 stem, three stages of n basic blocks (widths 16/32/64 by
//   default, stride 2 between stages), global average pooling, one linear layer. Depth 8 is the
//   quick CPU workload, 20/56 the classic ones.
//   ResNet-18: four stages of two basic blocks (64/128/256/512), same 3x3 stem (small inputs).
//   ResNet-50: four stages of 3/4/6/3 bottleneck blocks (inner widths 64/128/256/512, outputs 4x
//   those), torchvision's v1.5 layout (the stride on the 3x3 conv).
// The stem is a 3x3 conv at full resolution (small inputs), or ImageNet's 7x7 stride-2 conv and
// 3x3 stride-2 max pool (224x224 inputs: the blocks start at 56x56).
// Any input channels and size; the conv bias before BatchNorm is a constructor option (tip 15).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <vector>

namespace speedbench::models {

struct ResNetOptions {
  int64_t in_channels = 1;
  int64_t num_classes = 10;
  std::vector<int64_t> blocks_per_stage = {1, 1, 1};  // ResNet-8
  std::vector<int64_t> widths = {16, 32, 64};         // bottleneck blocks: the inner width
  bool bottleneck = false;     // 1x1-3x3-1x1 blocks with 4x wider outputs (ResNet-50)
  bool imagenet_stem = false;  // 7x7 stride-2 conv + 3x3 stride-2 max pool
  bool conv_bias = true;       // a bias in every conv (all are followed by BatchNorm)
};

// A residual block: what the network's block segments have in common.
class ResidualBlockImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
};

// Two 3x3 convs with BatchNorm and ReLU, plus a 1x1 projection when the shape changes.
class BasicBlockImpl : public ResidualBlockImpl {
 public:
  BasicBlockImpl(int64_t in_channels, int64_t out_channels, int64_t stride, bool conv_bias);
  torch::Tensor forward(const torch::Tensor& x) override;

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Sequential shortcut_{nullptr};  // empty = identity
};
TORCH_MODULE(BasicBlock);

// 1x1 (width) -> 3x3 (width, the stride) -> 1x1 (4 x width), each with BatchNorm, ReLU after the
// sum; a 1x1 projection when the shape changes.
class BottleneckBlockImpl : public ResidualBlockImpl {
 public:
  static constexpr int64_t kExpansion = 4;
  BottleneckBlockImpl(int64_t in_channels, int64_t width, int64_t stride, bool conv_bias);
  torch::Tensor forward(const torch::Tensor& x) override;

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  torch::nn::Sequential shortcut_{nullptr};  // empty = identity
};
TORCH_MODULE(BottleneckBlock);

class ResNetImpl : public torch::nn::Module {
 public:
  explicit ResNetImpl(const ResNetOptions& options);
  // x: [B, C, H, W] -> logits [B, num_classes]
  torch::Tensor forward(const torch::Tensor& x);

  // The network as a chain of segments (stem, each block, head), for techniques that work
  // segment by segment (activation checkpointing).
  int64_t num_segments() const;
  torch::Tensor forward_segment(int64_t index, const torch::Tensor& x);
  std::vector<torch::Tensor> segment_parameters(int64_t index) const;
  std::vector<torch::Tensor> segment_buffers(int64_t index) const;  // BatchNorm statistics

 private:
  torch::nn::Conv2d stem_conv_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::Linear head_{nullptr};
  bool imagenet_stem_ = false;

  // The modules of segment `index`.
  std::vector<std::shared_ptr<torch::nn::Module>> segment_modules(int64_t index) const;
};
TORCH_MODULE(ResNet);

// ResNet-(6n+2) for CIFAR-style inputs; throws std::invalid_argument if depth != 6n+2.
ResNetOptions cifar_resnet_options(int64_t depth, std::vector<int64_t> widths);
ResNetOptions resnet18_options(std::vector<int64_t> widths);
ResNetOptions resnet50_options(std::vector<int64_t> widths);

}  // namespace speedbench::models
