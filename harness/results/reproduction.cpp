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
  if (recorded.config.value("deterministic", false)) {
    size_t first_difference = 0;
    while (first_difference < a.step_losses.size() && first_difference < b.step_losses.size() &&
           a.step_losses[first_difference] == b.step_losses[first_difference]) {
      ++first_difference;
    }
    const bool same = a.step_losses == b.step_losses;
    out.checks.push_back(
        {"loss curve (bitwise)", std::to_string(a.step_losses.size()) + " losses",
         same ? "identical" : "differs from step " + std::to_string(first_difference + 1), true,
         same});
    out.exact_checks_agree &= same;
    add_exact(out, "final test loss", number(a.final_test_loss), number(b.final_test_loss));
    add_exact(out, "final test accuracy", number(a.final_test_accuracy),
              number(b.final_test_accuracy));
  } else {
    out.checks.push_back(
        {"loss curve", "not compared: the run was not deterministic", "", false, true});
  }
  if (a.step_ms.size() >= 2 && b.step_ms.size() >= 2) {
    const auto ratio = measure::bootstrap_ratio_of_medians(a.step_ms, b.step_ms);
    const bool agrees = ratio.low >= 1 - kTimingTolerance && ratio.high <= 1 + kTimingTolerance;
    out.checks.push_back({"median step time (ratio rerun/recorded, 95% interval)",
                          number(measure::summarize(a.step_ms).median) + " ms",
                          number(measure::summarize(b.step_ms).median) + " ms, " +
                              number(ratio.estimate) + "x [" + number(ratio.low) + ", " +
                              number(ratio.high) + "]",
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
        << (c.agrees ? "yes" : (c.exact ? "**NO**" : "no (timing)")) << " |\n";
  }
  for (const auto& w : r.environment_warnings)
    out << "warning: the environment differs: " << w << "\n";
  return out.str();
}

}  // namespace speedbench
