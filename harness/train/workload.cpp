#include "harness/train/workload.h"

#include <torch/torch.h>

#include "harness/techniques/checkpointing.h"
#include "models/flops.h"
#include "models/recurrent.h"
#include "models/resnet.h"

namespace speedbench {

namespace {

models::ResNetOptions resnet_options(const TrainConfig& config,
                                     const std::vector<int64_t>& input_shape, int64_t outputs) {
  const auto& m = config.model;
  auto options = m.arch == "resnet"     ? models::cifar_resnet_options(m.depth, m.widths)
                 : m.arch == "resnet18" ? models::resnet18_options(m.widths)
                                        : models::resnet50_options(m.widths);
  options.imagenet_stem = m.stem == "imagenet";
  options.in_channels = input_shape.at(0);
  options.num_classes = outputs;
  options.conv_bias = !config.techniques.bn_no_bias;
  return options;
}

models::RecurrentOptions recurrent_options(const TrainConfig& config,
                                           const std::vector<int64_t>& input_shape,
                                           int64_t outputs) {
  const auto& m = config.model;
  models::RecurrentOptions options;
  options.cell = m.cell;
  options.hidden = m.hidden;
  options.layers = m.layers;
  options.outputs = outputs;
  options.input_size = m.arch == "row_rnn" ? input_shape.at(0) * input_shape.at(2)  // C * W per row
                                           : m.embedding;
  return options;
}

}  // namespace

torch::nn::AnyModule build_model(const TrainConfig& config, const std::vector<int64_t>& input_shape,
                                 int64_t outputs) {
  if (is_resnet_arch(config.model)) {
    return torch::nn::AnyModule(models::ResNet(resnet_options(config, input_shape, outputs)));
  }
  const auto options = recurrent_options(config, input_shape, outputs);
  if (config.model.arch == "row_rnn")
    return torch::nn::AnyModule(models::RowRnnClassifier(options));
  return torch::nn::AnyModule(models::CharLanguageModel(options));
}

double forward_flops_per_sample(const TrainConfig& config, const std::vector<int64_t>& input_shape,
                                int64_t outputs) {
  if (is_resnet_arch(config.model)) {
    return models::resnet_forward_flops(resnet_options(config, input_shape, outputs),
                                        input_shape.at(1), input_shape.at(2));
  }
  const auto options = recurrent_options(config, input_shape, outputs);
  if (config.model.arch == "row_rnn") {
    return models::recurrent_forward_flops(options, input_shape.at(1), /*head_every_step=*/false);
  }
  return models::recurrent_forward_flops(options, input_shape.at(0), /*head_every_step=*/true);
}

Workload build_workload(const TrainConfig& config) {
  Workload workload;
  workload.data = data::load_dataset(config.data, config.seed);
  const auto sample_shape = workload.data.train.inputs.sizes().slice(1).vec();
  workload.model = build_model(config, sample_shape, workload.data.num_classes);
  workload.module = workload.model.ptr();
  workload.resnet = std::dynamic_pointer_cast<models::ResNetImpl>(workload.module);

  auto& transform = workload.transform;
  transform.is_image = config.data.dataset != "fortunes";
  transform.augment = config.data.augment;
  transform.normalize = config.techniques.input_norm;
  transform.mean = workload.data.pixel_mean;
  transform.std = workload.data.pixel_std;
  transform.seed = static_cast<uint64_t>(config.seed);
  transform.wrap_host_buffer = config.techniques.host_to_tensor;
  transform.on_device = config.data.on_device;
  return workload;
}

torch::Tensor Workload::train_forward(const torch::Tensor& inputs, const TrainConfig& config) {
  if (config.techniques.checkpointing && resnet) {
    return checkpointed_resnet_forward(*resnet, inputs, config.techniques.checkpoint_segments);
  }
  return model.forward(inputs);
}

int64_t count_parameters(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const auto& p : module.parameters()) count += p.numel();
  return count;
}

}  // namespace speedbench
