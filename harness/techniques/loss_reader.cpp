#include "harness/techniques/loss_reader.h"

#include <torch/torch.h>

#include "harness/measure/sync_counter.h"

namespace speedbench {

LossReader::LossReader(int64_t read_every) : read_every_(read_every) {}

std::vector<double> LossReader::add(const torch::Tensor& loss) {
  if (read_every_ == 1) {
    measure::count_host_sync();  // the baseline: .item() on every step's loss
    return {loss.item<double>()};
  }
  pending_.push_back(loss.detach());
  if (static_cast<int64_t>(pending_.size()) < read_every_) return {};
  return flush();
}

std::vector<double> LossReader::flush() {
  if (pending_.empty()) return {};
  measure::count_host_sync();  // one device->host transfer for all pending losses
  auto host = torch::stack(pending_).to(torch::kCPU, torch::kFloat64).contiguous();
  pending_.clear();
  const auto* values = host.data_ptr<double>();
  return std::vector<double>(values, values + host.numel());
}

}  // namespace speedbench
