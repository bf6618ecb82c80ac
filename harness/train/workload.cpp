#include "harness/train/workload.h"

#include <torch/torch.h>

#include "harness/techniques/checkpointing.h"
#include "models/recurrent.h"
#include "models/resnet.h"

namespace speedbench {

torch::nn::AnyModule build_model(const TrainConfig& config, const std::vector<int64_t>& input_shape,
                                 int64_t outputs) {
  const auto& m = config.model;
  if (m.arch == "resnet" || m.arch == "resnet18") {
    auto options = m.arch == "resnet" ? models::cifar_resnet_options(m.depth, m.widths)
                                      : models::resnet18_options(m.widths);
    options.in_channels = input_shape.at(0);
    options.num_classes = outputs;
    options.conv_bias = !config.techniques.bn_no_bias;
    return torch::nn::AnyModule(models::ResNet(options));
  }
  models::RecurrentOptions options;
  options.cell = m.cell;
  options.hidden = m.hidden;
  options.layers = m.layers;
  options.outputs = outputs;
  if (m.arch == "row_rnn") {
    options.input_size = input_shape.at(0) * input_shape.at(2);  // C * W features per row
    return torch::nn::AnyModule(models::RowRnnClassifier(options));
  }
  options.input_size = m.embedding;
  return torch::nn::AnyModule(models::CharLanguageModel(options));
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
