#include "harness/techniques/amp.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <map>

#include "harness/measure/sync_counter.h"

namespace speedbench {

AutocastGuard::AutocastGuard(c10::DeviceType device, c10::ScalarType dtype)
    : device_(device),
      previous_enabled_(at::autocast::is_autocast_enabled(device)),
      previous_dtype_(at::autocast::get_autocast_dtype(device)) {
  at::autocast::set_autocast_enabled(device_, true);
  at::autocast::set_autocast_dtype(device_, dtype);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  // Leaving the outermost region drops the cast-weight cache, as torch.autocast does.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_, previous_enabled_);
  at::autocast::set_autocast_dtype(device_, previous_dtype_);
}

GradScaler::GradScaler(const torch::Device& device, double initial_scale, double growth_factor,
                       double backoff_factor, int64_t growth_interval)
    : scale_(torch::full({1}, initial_scale,
                         torch::TensorOptions().dtype(torch::kFloat32).device(device))),
      growth_tracker_(
          torch::zeros({1}, torch::TensorOptions().dtype(torch::kInt32).device(device))),
      found_inf_(torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat32).device(device))),
      growth_factor_(growth_factor),
      backoff_factor_(backoff_factor),
      growth_interval_(growth_interval) {}

torch::Tensor GradScaler::scale_loss(const torch::Tensor& loss) const {
  return loss * scale_.to(loss.scalar_type());
}

void GradScaler::unscale(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  found_inf_.zero_();
  const auto inv_scale = scale_.to(torch::kFloat64).reciprocal().to(torch::kFloat32);
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale);
}

bool GradScaler::gradients_finite() const {
  measure::count_host_sync();
  const bool finite = found_inf_.item<float>() == 0.0f;
  if (!finite) skipped_steps_ += 1;
  return finite;
}

void GradScaler::update() {
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, growth_factor_, backoff_factor_,
                         growth_interval_);
}

double GradScaler::scale() const { return scale_.item<double>(); }

bool cpu_runs_bf16_rnn(const std::string& cell) {
  static std::map<std::string, bool> answers;
  const auto known = answers.find(cell);
  if (known != answers.end()) return known->second;
  bool runs = true;
  try {
    const AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
    const auto input = torch::ones({2, 1, 4});
    if (cell == "gru") {
      torch::nn::GRU(torch::nn::GRUOptions(4, 4))->forward(input);
    } else {
      torch::nn::LSTM(torch::nn::LSTMOptions(4, 4))->forward(input);
    }
  } catch (const std::exception&) {  // oneDNN's own error type, not a c10::Error
    runs = false;
  }
  answers[cell] = runs;
  return runs;
}

std::string amp_not_applicable_reason(const TrainConfig& config) {
  const bool recurrent = config.model.arch == "row_rnn" || config.model.arch == "char_lm";
  if (config.device != "cpu" || config.techniques.amp != "bf16" || !recurrent ||
      cpu_runs_bf16_rnn(config.model.cell)) {
    return "";
  }
  return "amp bf16 on a " + config.model.cell +
         ": oneDNN has no bf16 kernels for it on this CPU (a one-step probe could not create the "
         "RNN primitive)";
}

}  // namespace speedbench
