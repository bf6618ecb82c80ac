// Paths the build knows and some tests need: the speedbench binary that the CLI tests run and the
// source tree whose presets and claims other tests load. Only build_paths.cpp is compiled with
// them (tests/CMakeLists.txt), so the test files keep one set of flags and compile in unity
// batches (a file with definitions of its own compiles alone: with six such files the test
// binary's cold compile on 2 cores took 72 s release and 71 s asan, now 57 s and 58 s).
#pragma once

#include <string>

namespace speedbench::testing {

// The speedbench CLI of this build.
std::string speedbench_executable();

// The root of the source tree (suites/, results/reference/).
std::string source_dir();

}  // namespace speedbench::testing
