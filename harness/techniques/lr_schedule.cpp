#include "harness/techniques/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace speedbench {

namespace {

constexpr double kPi = 3.14159265358979323846;

// OneCycleLR's annealing from `start` to `end` as `pct` goes 0 -> 1.
double anneal(const std::string& kind, double start, double end, double pct) {
  if (kind == "linear") return (end - start) * pct + start;
  return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1.0);
}

}  // namespace

LrSchedule::LrSchedule(const LrScheduleConfig& config, double base_lr, int64_t total_steps,
                       int64_t steps_per_epoch)
    : config_(config),
      base_lr_(base_lr),
      total_steps_(std::max<int64_t>(total_steps, 1)),
      step_size_up_(config.step_size_up > 0 ? config.step_size_up
                                            : std::max<int64_t>(steps_per_epoch / 2, 1)) {}

double LrSchedule::lr_at(int64_t step) const {
  const auto t = static_cast<double>(step);
  const auto& c = config_;
  if (c.kind == "step") return base_lr_ * std::pow(c.gamma, std::floor(t / c.step_size));
  if (c.kind == "cosine") {
    return c.min_lr + (base_lr_ - c.min_lr) * (1.0 + std::cos(kPi * t / total_steps_)) / 2.0;
  }
  if (c.kind == "cyclic") {
    // CyclicLR with step_size_down = step_size_up.
    const double cycle_length = 2.0 * step_size_up_;
    const double cycle = std::floor(1.0 + t / cycle_length);
    const double x = 1.0 + t / cycle_length - cycle;
    const double scale = x <= 0.5 ? x / 0.5 : (x - 1.0) / (0.5 - 1.0);
    double amplitude = 1.0;
    if (c.cyclic_mode == "triangular2") amplitude = 1.0 / std::pow(2.0, cycle - 1.0);
    if (c.cyclic_mode == "exp_range") amplitude = std::pow(c.gamma, t);
    return base_lr_ + (c.max_lr - base_lr_) * scale * amplitude;
  }
  if (c.kind == "one_cycle") return one_cycle_lr(step);
  return base_lr_;
}

double LrSchedule::one_cycle_lr(int64_t step) const {
  const auto& c = config_;
  const double initial_lr = c.max_lr / c.div_factor;
  const double final_lr = initial_lr / c.final_div_factor;
  const double warm_end = c.pct_start * total_steps_ - 1.0;  // OneCycleLR's phase boundaries
  const double last = total_steps_ - 1.0;
  const auto t = static_cast<double>(step);
  if (t <= warm_end) return anneal(c.anneal, initial_lr, c.max_lr, t / warm_end);
  return anneal(c.anneal, c.max_lr, final_lr, (t - warm_end) / (last - warm_end));
}

std::optional<double> LrSchedule::momentum_at(int64_t step) const {
  const auto& c = config_;
  if (c.kind != "one_cycle" || !c.cycle_momentum) return std::nullopt;
  const double warm_end = c.pct_start * total_steps_ - 1.0;
  const double last = total_steps_ - 1.0;
  const auto t = static_cast<double>(step);
  if (t <= warm_end) return anneal(c.anneal, c.max_momentum, c.base_momentum, t / warm_end);
  return anneal(c.anneal, c.base_momentum, c.max_momentum, (t - warm_end) / (last - warm_end));
}

}  // namespace speedbench
