// The ResNet family of the benchmarks (He et al., arXiv 1512.03385):
//   CIFAR-style ResNet-(6n+2): a 3x3 stem, three stages of n basic blocks (widths 16/32/64 by
//   default, stride 2 between stages), global average pooling, one linear layer. Depth 8 is the
//   quick CPU workload, 20/56 the classic ones.
//   ResNet-18: four stages of two basic blocks (64/128/256/512), same 3x3 stem (small inputs).
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
  std::vector<int64_t> widths = {16, 32, 64};
  bool conv_bias = true;  // a bias in every conv (all are followed by BatchNorm)
};

// Two 3x3 convs with BatchNorm and ReLU, plus a 1x1 projection when the shape changes.
class BasicBlockImpl : public torch::nn::Module {
 public:
  BasicBlockImpl(int64_t in_channels, int64_t out_channels, int64_t stride, bool conv_bias);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Sequential shortcut_{nullptr};  // empty = identity
};
TORCH_MODULE(BasicBlock);

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

  // The modules of segment `index`.
  std::vector<std::shared_ptr<torch::nn::Module>> segment_modules(int64_t index) const;
};
TORCH_MODULE(ResNet);

// ResNet-(6n+2) for CIFAR-style inputs; throws std::invalid_argument if depth != 6n+2.
ResNetOptions cifar_resnet_options(int64_t depth, std::vector<int64_t> widths);
ResNetOptions resnet18_options(std::vector<int64_t> widths);

}  // namespace speedbench::models
