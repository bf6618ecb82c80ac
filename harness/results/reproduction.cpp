#include "harness/results/reproduction.h"

#include <cstdio>
#include <sstream>

#include "harness/measure/statistics.h"
#include "harness/results/environment_identity.h"

namespace speedbench {

namespace {

constexpr double kTimingTolerance = 0.10;

std::string number(double value) {
  char text[48];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

void add_exact(Reproduction& out, const std::string& what, const std::string& recorded,
               const std::string& rerun) {
  out.checks.push_back({what, recorded, rerun, true, recorded == rerun});
  out.exact_checks_agree &= recorded == rerun;
}

// The 1-based step at which two loss curves first differ (one past the shorter one's end when
// one is a prefix of the other).
std::string first_difference_step(const RunMetrics& a, const RunMetrics& b) {
  size_t step = 0;
  while (step < a.step_losses.size() && step < b.step_losses.size() &&
         a.step_losses[step] == b.step_losses[step]) {
    ++step;
  }
  return std::to_string(step + 1);
}

}  // namespace

Reproduction compare_reproduction(const Record& recorded, const Record& rerun) {
  Reproduction out;
  const auto& a = recorded.metrics;
  const auto& b = rerun.metrics;
  add_exact(out, "status", to_string(recorded.status), to_string(rerun.status));
  add_exact(out, "steps", std::to_string(a.steps), std::to_string(b.steps));
  add_exact(out, "parameters", std::to_string(a.parameter_count),
            std::to_string(b.parameter_count));
  add_exact(out, "model FLOPs per sample", number(a.train_flops_per_sample),
            number(b.train_flops_per_sample));
  // Bit for bit where the run was deterministic; otherwise for information: kernels free to
  // reorder their sums may give other bits from the first step on, which is no failure.
  const bool deterministic = recorded.config.value("deterministic", false);
  const bool same_curve = a.step_losses == b.step_losses;
  out.checks.push_back(
      {deterministic ? "loss curve (bitwise)" : "loss curve (not deterministic: not judged)",
       std::to_string(a.step_losses.size()) + " losses",
       same_curve ? "identical" : "differs from step " + first_difference_step(a, b), true,
       same_curve, deterministic});
  if (deterministic) {
    out.exact_checks_agree &= same_curve;
    add_exact(out, "final test loss", number(a.final_test_loss), number(b.final_test_loss));
    add_exact(out, "final test accuracy", number(a.final_test_accuracy),
              number(b.final_test_accuracy));
  }
  if (a.step_ms.size() >= 2 && b.step_ms.size() >= 2) {
    const auto ratio = measure::bootstrap_ratio_of_medians(a.step_ms, b.step_ms);
    const bool agrees = ratio.low >= 1 - kTimingTolerance && ratio.high <= 1 + kTimingTolerance;
    // An equivalence test: an interval that straddles the bounds has not shown agreement.
    out.checks.push_back(
        {"median step time (ratio rerun/recorded, 95% interval; agrees when "
         "inside [" +
             number(1 - kTimingTolerance) + ", " + number(1 + kTimingTolerance) + "])",
         number(measure::summarize(a.step_ms).median) + " ms",
         number(measure::summarize(b.step_ms).median) + " ms, " + number(ratio.estimate) + "x [" +
             number(ratio.low) + ", " + number(ratio.high) + "]",
         false, agrees});
    out.timings_agree = agrees;
  }
  // The thread count too: a config may leave it to the machine.
  out.environment_warnings =
      identity_changes(recorded.environment, rerun.environment, {"torch_threads"});
  return out;
}

std::string reproduction_table(const Reproduction& r) {
  std::ostringstream out;
  out << "| check | recorded | rerun | agrees |\n|---|---|---|---|\n";
  for (const auto& c : r.checks) {
    out << "| " << c.what << " | " << c.recorded << " | " << c.rerun << " | "
        << (!c.judged  ? "-"
            : c.agrees ? "yes"
                       : (c.exact ? "**NO**" : "no (timing)"))
        << " |\n";
  }
  for (const auto& w : r.environment_warnings)
    out << "warning: the environment differs: " << w << "\n";
  return out.str();
}

}  // namespace speedbench
