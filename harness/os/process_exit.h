// How a suite's runs end: without the static destructors. LibTorch's undo its operator
// registrations one by one (each recomputes a dispatch table), 0.12 s of `speedbench list`'s
// 0.40 s here, and every run of a suite is a process of its own (DESIGN.md). Nothing of ours is
// left to them: a record is written, synced and closed before its command returns.
// A run started alone exits normally: profilers that write their data at exit (Nsight Systems
// through CUPTI, gprof) keep it.
#pragma once

namespace speedbench {

// The suite runner sets it to "1" for itself and its runs (unless it is set already: "0" keeps
// the normal exit, for a suite run under such a profiler).
inline constexpr const char* kQuickExitVariable = "SPEEDBENCH_QUICK_EXIT";

// Whether kQuickExitVariable is "1".
bool quick_exit_asked();

// Flushes stdout and stderr (and, in a coverage build, the line counts), then ends the process
// with `exit_code`, running no atexit handler or static destructor.
[[noreturn]] void exit_skipping_static_destructors(int exit_code);

}  // namespace speedbench
