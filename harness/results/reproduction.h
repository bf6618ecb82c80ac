// `speedbench reproduce`: a recorded run against its rerun. Deterministic quantities must agree
// exactly (step count, parameters, FLOPs; with deterministic mode the whole loss curve bit for
// bit and the final test loss and accuracy; without it the curve is shown, not judged); timings
// agree when the bootstrap 95% interval of the ratio of median step times lies within +-10% of 1.
// A different machine or build (environment_identity.h) or thread count is a warning.
// Torch-free.
#pragma once

#include <string>
#include <vector>

#include "harness/results/record.h"

namespace speedbench {

struct ReproductionCheck {
  std::string what;      // "loss curve (bitwise)"
  std::string recorded;  // short texts for the table
  std::string rerun;
  bool exact = true;  // an exact check (a mismatch fails the reproduction) or a timing one
  bool agrees = false;
  bool judged = true;  // false: shown for information only (a non-deterministic run's curve)
};

struct Reproduction {
  std::vector<ReproductionCheck> checks;
  std::vector<std::string> environment_warnings;  // "cpu_model: 'A' then, 'B' now"
  bool exact_checks_agree = true;
  bool timings_agree = true;
};

Reproduction compare_reproduction(const Record& recorded, const Record& rerun);

std::string reproduction_table(const Reproduction& reproduction);

}  // namespace speedbench
