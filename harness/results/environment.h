// The environment block of every record: where and with what a run was measured (host, CPU model,
// instruction sets and caches, threads, OS, compiler, build type, LibTorch, CUDA/cuDNN/GPU when
// present, git commit). environment_identity.h says which of it names the machine and the build.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace speedbench {

nlohmann::json collect_environment();

// `speedbench --version`: version, git commit, build type, LibTorch, whether CUDA code is built in.
std::string version_line();

// GPU details (name, memory, driver, runtime); compiled from harness/cuda/ in CUDA builds and
// empty otherwise. Called only when a CUDA device is present.
nlohmann::json collect_cuda_environment();

}  // namespace speedbench
