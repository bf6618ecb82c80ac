#include "harness/train/fault_injection.h"

#include <torch/torch.h>

#include <csignal>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "harness/config/config_error.h"

namespace speedbench {

namespace {

std::string g_armed;  // "" = none
constexpr int64_t kFaultStep = 3;

}  // namespace

void arm_fault_injection(int64_t run_index) {
  g_armed.clear();
  const char* plan = std::getenv(kInjectFaultVariable);
  if (plan == nullptr) return;
  std::stringstream entries(plan);
  std::string entry;
  while (std::getline(entries, entry, ',')) {
    const auto colon = entry.find(':');
    const auto kind = colon == std::string::npos ? "" : entry.substr(colon + 1);
    if (colon == std::string::npos ||
        (kind != "segfault" && kind != "abort" && kind != "oom" && kind != "bad_input")) {
      throw std::invalid_argument(std::string(kInjectFaultVariable) + ": got \"" + entry +
                                  "\", expected RUN_INDEX:segfault|abort|oom|bad_input");
    }
    if (entry.substr(0, colon) == std::to_string(run_index)) g_armed = kind;
  }
}

void maybe_inject_fault(int64_t steps_done) {
  if (g_armed.empty() || steps_done != kFaultStep) return;
  if (g_armed == "segfault") std::raise(SIGSEGV);
  if (g_armed == "abort") std::abort();
  if (g_armed == "oom") {
    // 2^60 bytes: the allocator fails as it does when memory runs out ("can't allocate").
    auto impossible = torch::empty({int64_t{1} << 58}, torch::kFloat32);
    impossible.fill_(0);
  }
  if (g_armed == "bad_input") {
    throw ConfigError("", "injected", "bad input that only the run itself finds (a test's fault)");
  }
}

}  // namespace speedbench
