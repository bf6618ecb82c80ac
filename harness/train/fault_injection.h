// Test hook for crash isolation (never set in normal use): SPEEDBENCH_INJECT_FAULT="I:KIND,..."
// makes the run at suite position I fail at its third training step the way KIND says:
//   segfault  the process dies of SIGSEGV        abort  it dies of SIGABRT (std::abort)
//   oom       a real allocation the CPU allocator cannot satisfy (status oom)
//   bad_input a ConfigError, as bad input that only the run finds would raise (exit code 2)
// It lets tests prove that the suite records each failure and goes on. Only a process's own
// environment can set it: a config file cannot.
#pragma once

#include <cstdint>
#include <string>

namespace speedbench {

inline constexpr const char* kInjectFaultVariable = "SPEEDBENCH_INJECT_FAULT";

// Arms the fault planned for suite position `run_index`, if any; throws std::invalid_argument
// for a malformed variable.
void arm_fault_injection(int64_t run_index);

// Called by the train loop after each step: fires the armed fault at step 3.
void maybe_inject_fault(int64_t steps_done);

}  // namespace speedbench
