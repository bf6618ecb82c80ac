// `run --suite FILE --plan`: what a suite would run, without running it. Per workload, each
// variant with the baseline it is compared against and the config fields it changes, the
// variants this machine cannot run (a CUDA-only technique on a CPU, any run of a CUDA suite on a
// machine without a GPU), and the number of runs. Nothing is trained, no dataset is read and
// nothing is written, so a GPU suite can be looked at on a CPU machine.
#pragma once

#include <string>

#include "harness/suite/suite.h"

namespace speedbench {

// The plan as text; `cuda_available`: whether this machine has a CUDA device.
std::string suite_plan_text(const Suite& suite, bool cuda_available);

}  // namespace speedbench
